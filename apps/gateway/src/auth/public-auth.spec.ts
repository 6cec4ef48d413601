import { connect } from 'node:net';
import { PERMISSIONS } from './permissions';
import { sha256Hex } from './api-key-secret';
import { ADMIN_TOKEN, bearer, createKey, createSeller, createTenant, startFixture, stopFixture, type Fixture } from '../testing/gateway-fixture';

// Each suite boots an embedded PostgreSQL (PGlite, a few seconds) once in beforeAll.
jest.setTimeout(30_000);

/**
 * Sends raw bytes to a listening server and returns the status line's code (0 when the server hung up
 * without one): the header as bytes on the wire, past any client library's own checks.
 */
async function rawStatus(port: number, headerBytes: Buffer): Promise<number> {
  const request = Buffer.concat([Buffer.from('GET /api/v1/charges/ch_1 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nAuthorization: '), headerBytes, Buffer.from('\r\n\r\n')]);
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(request));
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(answer.startsWith('HTTP/1.1 ') ? Number(answer.slice(9, 12)) : 0));
  });
}

describe('public authentication', () => {
  let f: Fixture;
  let tenantId: string;
  let sellerId: string;
  let secret: string;

  beforeAll(async () => {
    f = await startFixture();
    tenantId = await createTenant(f);
    sellerId = await createSeller(f, tenantId, { kyc_status: 'approved' });
    secret = (await createKey(f, { tenantId, sellerId, permissions: [...PERMISSIONS] })).secret;
  });
  afterAll(() => stopFixture(f));

  it('serves a valid key (the baseline the refusals below differ from)', async () => {
    const res = await f.app.inject({ url: '/api/v1/charges/ch_1', headers: bearer(secret) });
    expect(res.statusCode).toBe(200);
  });

  it('answers 401 api_key_missing without an Authorization header', async () => {
    const res = await f.app.inject({ url: '/api/v1/charges/ch_1' });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({
      error: { type: 'authentication_error', code: 'api_key_missing', message: expect.any(String), param: null },
      request_id: res.headers['x-request-id'],
    });
  });

  it('answers 401 api_key_invalid, never 500, to a malformed Authorization header of any shape', async () => {
    const body = secret.slice('sk_test_'.length);
    const unknown = `sk_test_${'Z'.repeat(32)}`;
    const shapes = [
      '',
      ' ',
      'Bearer',
      'Bearer ',
      `bearer ${secret}`,
      `BEARER ${secret}`,
      `Bearer  ${secret}`,
      `Bearer ${secret} `,
      `Bearer\t${secret}`,
      `Token ${secret}`,
      `Basic ${Buffer.from(`${secret}:`).toString('base64')}`,
      secret,
      `Bearer sk_live_${body}`, // the right characters under the other environment: another secret, unknown
      `Bearer sk_test_${body.slice(1)}`,
      `Bearer ${secret}x`,
      `Bearer ${unknown}`,
      `Bearer ${ADMIN_TOKEN}`,
      `Bearer sk_test_${body.slice(1)}Ä`,
      `Bearer ${secret},Bearer ${secret}`,
      `Bearer ${'A'.repeat(8_000)}`,
      'Bearer \u00ff\u00fe\u00fd',
      'Bearer sk_test_%00%0a',
    ];
    for (const authorization of shapes) {
      const res = await f.app.inject({ url: '/api/v1/charges/ch_1', headers: { authorization } });
      expect([authorization.slice(0, 40), res.statusCode, res.json().error.code]).toEqual([authorization.slice(0, 40), 401, 'api_key_invalid']);
    }
  });

  it('answers 401 to non-ASCII and oversized bytes on the wire, never 500', async () => {
    await f.app.listen({ port: 0, host: '127.0.0.1' });
    const address = f.app.server.address();
    if (address === null || typeof address === 'string') throw new Error('not listening on a port');
    expect(await rawStatus(address.port, Buffer.from(`Bearer ${secret}`))).toBe(200);
    expect(await rawStatus(address.port, Buffer.from('Bearer sk_test_ação€😀', 'utf8'))).toBe(401);
    expect(await rawStatus(address.port, Buffer.from([0x42, 0x65, 0x61, 0x72, 0x65, 0x72, 0x20, 0xff, 0xc3, 0x28, 0x80]))).toBe(401);
    expect(await rawStatus(address.port, Buffer.from(`Bearer ${'x'.repeat(12_000)}`))).toBe(401);
    // Beyond Node's header limit (16 KiB) its HTTP parser refuses the request before any of our code: 431 or a hang-up, never a 500.
    expect([431, 0]).toContain(await rawStatus(address.port, Buffer.from(`Bearer ${'x'.repeat(70_000)}`)));
  });

  it('answers 401 api_key_invalid to the admin token on /api/v1', async () => {
    const res = await f.app.inject({ url: '/api/v1/balance', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(res.statusCode).toBe(401);
    expect(res.json().error.code).toBe('api_key_invalid');
  });

  it('answers 401 api_key_revoked on every replica within 1 s of a revocation, with the real cache', async () => {
    const key = await createKey(f, { tenantId, permissions: ['charges:read'] });
    const replica = await startFixture({ knex: f.knex });
    try {
      // Both replicas have the key in their caches.
      for (const app of [f.app, replica.app]) expect((await app.inject({ url: '/api/v1/charges/ch_1', headers: bearer(key.secret) })).statusCode).toBe(200);
      const revoked = await f.admin('DELETE', `/admin/v1/api-keys/${key.id}`);
      expect(revoked.statusCode).toBe(200);
      const revokedAtMs = performance.now();
      const here = await f.app.inject({ url: '/api/v1/charges/ch_1', headers: bearer(key.secret) });
      expect(here.json().error.code).toBe('api_key_revoked');
      let elapsedMs = 0;
      for (;;) {
        const res = await replica.app.inject({ url: '/api/v1/charges/ch_1', headers: bearer(key.secret) });
        elapsedMs = performance.now() - revokedAtMs;
        if (res.statusCode === 401) {
          expect(res.json().error).toMatchObject({ type: 'authentication_error', code: 'api_key_revoked' });
          break;
        }
        expect(res.statusCode).toBe(200);
        if (elapsedMs > 2_000) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      expect(elapsedMs).toBeLessThan(1_000);
    } finally {
      await stopFixture(replica, { keepDatabase: true });
    }
  });

  it('answers 429 rate_limited with Retry-After once a key has spent its per-second budget, for that key only', async () => {
    const limited = await createKey(f, { tenantId, permissions: ['charges:read'], rateLimitPerSecond: 3 });
    const statuses: number[] = [];
    let refused = null;
    for (let i = 0; i < 4; i += 1) {
      const res = await f.app.inject({ url: '/api/v1/charges/ch_1', headers: bearer(limited.secret) });
      statuses.push(res.statusCode);
      if (res.statusCode === 429) refused = res;
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(refused?.headers['retry-after']).toBe('1');
    expect(refused?.json()).toEqual({
      error: { type: 'rate_limit_error', code: 'rate_limited', message: expect.any(String), param: null },
      request_id: refused?.headers['x-request-id'],
    });
    expect((await f.app.inject({ url: '/api/v1/charges/ch_1', headers: bearer(secret) })).statusCode).toBe(200);
    await new Promise((r) => setTimeout(r, 400));
    expect((await f.app.inject({ url: '/api/v1/charges/ch_1', headers: bearer(limited.secret) })).statusCode).toBe(200);
  });

  it('applies RATE_LIMIT_PER_SECOND to keys without a limit of their own', async () => {
    const strict = await startFixture({ knex: f.knex, env: { RATE_LIMIT_PER_SECOND: '2' } });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 3; i += 1) statuses.push((await strict.app.inject({ url: '/api/v1/charges/ch_1', headers: bearer(secret) })).statusCode);
      expect(statuses).toEqual([200, 200, 429]);
    } finally {
      await stopFixture(strict, { keepDatabase: true });
    }
  });

  it('never writes a key secret to a log line, nor anywhere in the database but as its SHA-256', async () => {
    const created = await f.admin('POST', '/admin/v1/api-keys', { tenant_id: tenantId, seller_id: sellerId, permissions: ['charges:read'] });
    const { id, secret: fresh } = created.json();
    expect(fresh).toMatch(/^sk_test_[A-Za-z0-9]{32}$/);
    await f.app.inject({ url: '/api/v1/charges/ch_1', headers: bearer(fresh) });
    await f.app.inject({ url: '/api/v1/balance', headers: bearer(fresh) }); // 403
    await f.app.inject({ url: '/api/v1/charges/ch_1', headers: { authorization: `bearer ${fresh}` } }); // 401 malformed
    await f.admin('DELETE', `/admin/v1/api-keys/${id}`);
    await f.app.inject({ url: '/api/v1/charges/ch_1', headers: bearer(fresh) }); // 401 revoked

    const randomPart = fresh.slice('sk_test_'.length);
    expect(f.log.lines.length).toBeGreaterThan(10);
    expect(f.log.lines.filter((line) => line.includes(randomPart))).toEqual([]);

    const tables = await f.knex.raw(`select table_name from information_schema.tables where table_schema = 'gateway' and table_type = 'BASE TABLE'`);
    const names: string[] = tables.rows.map((row: { table_name: string }) => row.table_name);
    expect(names).toEqual(expect.arrayContaining(['api_keys', 'tenants', 'sellers', 'outbox']));
    for (const table of names) {
      const rows = await f.knex.withSchema('gateway').select('*').from(table);
      const dump = JSON.stringify(rows, (_k, v: unknown) => (v instanceof Uint8Array ? Buffer.from(v).toString('latin1') : v));
      expect([table, dump.includes(randomPart)]).toEqual([table, false]);
    }
    const row = await f.knex.withSchema('gateway').from('api_keys').where({ id }).first();
    expect(row.secret_sha256).toBe(sha256Hex(fresh));
    expect(Object.values(row).filter((v) => typeof v === 'string' && v.includes(randomPart))).toEqual([]);
  });
});
