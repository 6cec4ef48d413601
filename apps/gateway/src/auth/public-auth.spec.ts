import { connect } from 'node:net';
import type { FastifyRequest } from 'fastify';
import type { Knex } from 'knex';
import { statementsDuring } from '@pgw/testing';
import { ApiKeyAuthenticator, keyCacheFor } from './api-key-auth';
import { PERMISSIONS } from './permissions';
import { newApiKeySecret, sha256Hex } from '@pgw/gateway-domain/api-key-secret';
import { RateLimiter } from './rate-limiter';
import {
  ADMIN_TOKEN,
  bearer,
  createKey,
  createSeller,
  createTenant,
  startFixture,
  stopFixture,
  type Fixture,
} from '../testing/gateway-fixture';

/**
 * Sends raw bytes to a listening server and returns the status line's code (0 when the server hung up
 * without one): the header as bytes on the wire, past any client library's own checks.
 */
async function rawStatus(port: number, headerBytes: Buffer): Promise<number> {
  const request = Buffer.concat([
    Buffer.from(
      'GET /api/v1/charges/ch_1 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nAuthorization: ',
    ),
    headerBytes,
    Buffer.from('\r\n\r\n'),
  ]);
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(request));
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () =>
      resolve(answer.startsWith('HTTP/1.1 ') ? Number(answer.slice(9, 12)) : 0),
    );
  });
}

/** Counts the queries that read api_keys while `work` runs: a key lookup reaching the database. */
async function keyLookups(knex: Knex, work: () => Promise<unknown>): Promise<number> {
  return (await statementsDuring(knex, work)).filter((sql) => sql.includes('api_keys')).length;
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
      error: {
        type: 'authentication_error',
        code: 'api_key_missing',
        message: expect.any(String),
        param: null,
      },
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
      expect([authorization.slice(0, 40), res.statusCode, res.json().error.code]).toEqual([
        authorization.slice(0, 40),
        401,
        'api_key_invalid',
      ]);
    }
  });

  it('answers 401 to non-ASCII and oversized bytes on the wire, never 500', async () => {
    await f.app.listen({ port: 0, host: '127.0.0.1' });
    const address = f.app.server.address();
    if (address === null || typeof address === 'string') throw new Error('not listening on a port');
    expect(await rawStatus(address.port, Buffer.from(`Bearer ${secret}`))).toBe(200);
    expect(await rawStatus(address.port, Buffer.from('Bearer sk_test_ação€😀', 'utf8'))).toBe(401);
    expect(
      await rawStatus(
        address.port,
        Buffer.from([0x42, 0x65, 0x61, 0x72, 0x65, 0x72, 0x20, 0xff, 0xc3, 0x28, 0x80]),
      ),
    ).toBe(401);
    expect(await rawStatus(address.port, Buffer.from(`Bearer ${'x'.repeat(12_000)}`))).toBe(401);
    // Beyond Node's header limit (16 KiB) its HTTP parser refuses the request before any of our code: 431 or a hang-up, never a 500.
    expect([431, 0]).toContain(
      await rawStatus(address.port, Buffer.from(`Bearer ${'x'.repeat(70_000)}`)),
    );
  });

  it('answers 401 api_key_invalid to the admin token on /api/v1', async () => {
    const res = await f.app.inject({
      url: '/api/v1/balance',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(res.statusCode).toBe(401);
    expect(res.json().error.code).toBe('api_key_invalid');
  });

  it('answers 401 api_key_revoked on every replica within 1 s of a revocation, with the real cache', async () => {
    const key = await createKey(f, { tenantId, permissions: ['charges:read'] });
    const replica = await startFixture({ knex: f.knex });
    try {
      // Both replicas have the key in their caches.
      for (const app of [f.app, replica.app])
        expect(
          (await app.inject({ url: '/api/v1/charges/ch_1', headers: bearer(key.secret) }))
            .statusCode,
        ).toBe(200);
      const revoked = await f.admin('DELETE', `/admin/v1/api-keys/${key.id}`);
      expect(revoked.statusCode).toBe(200);
      const revokedAtMs = performance.now();
      const here = await f.app.inject({ url: '/api/v1/charges/ch_1', headers: bearer(key.secret) });
      expect(here.json().error.code).toBe('api_key_revoked');
      let elapsedMs = 0;
      for (;;) {
        const res = await replica.app.inject({
          url: '/api/v1/charges/ch_1',
          headers: bearer(key.secret),
        });
        elapsedMs = performance.now() - revokedAtMs;
        if (res.statusCode === 401) {
          expect(res.json().error).toMatchObject({
            type: 'authentication_error',
            code: 'api_key_revoked',
          });
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
    const limited = await createKey(f, {
      tenantId,
      permissions: ['charges:read'],
      rateLimitPerSecond: 3,
    });
    const statuses: number[] = [];
    let refused = null;
    for (let i = 0; i < 4; i += 1) {
      const res = await f.app.inject({
        url: '/api/v1/charges/ch_1',
        headers: bearer(limited.secret),
      });
      statuses.push(res.statusCode);
      if (res.statusCode === 429) refused = res;
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(refused?.headers['retry-after']).toBe('1');
    expect(refused?.json()).toEqual({
      error: {
        type: 'rate_limit_error',
        code: 'rate_limited',
        message: expect.any(String),
        param: null,
      },
      request_id: refused?.headers['x-request-id'],
    });
    expect(
      (await f.app.inject({ url: '/api/v1/charges/ch_1', headers: bearer(secret) })).statusCode,
    ).toBe(200);
    await new Promise((r) => setTimeout(r, 400));
    expect(
      (await f.app.inject({ url: '/api/v1/charges/ch_1', headers: bearer(limited.secret) }))
        .statusCode,
    ).toBe(200);
  });

  it('applies RATE_LIMIT_PER_SECOND to keys without a limit of their own', async () => {
    const strict = await startFixture({ knex: f.knex, env: { RATE_LIMIT_PER_SECOND: '2' } });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 3; i += 1)
        statuses.push(
          (await strict.app.inject({ url: '/api/v1/charges/ch_1', headers: bearer(secret) }))
            .statusCode,
        );
      expect(statuses).toEqual([200, 200, 429]);
    } finally {
      await stopFixture(strict, { keepDatabase: true });
    }
  });

  it('looks an unknown secret up once, then keeps the answer briefly', async () => {
    const unknown = newApiKeySecret('test');
    const lookups = await keyLookups(f.knex, async () => {
      for (let i = 0; i < 4; i += 1) {
        const res = await f.app.inject({
          url: '/api/v1/charges/ch_1',
          headers: bearer(unknown),
          remoteAddress: `198.51.100.${i + 1}`,
        });
        expect(res.json().error.code).toBe('api_key_invalid');
      }
    });
    expect(lookups).toBe(1);
  });

  it('reads a key once for concurrent requests that miss the cache together', async () => {
    const fresh = (await createKey(f, { tenantId, permissions: ['charges:read'] })).secret;
    const unknown = newApiKeySecret('test');
    const answers: number[] = [];
    const lookups = await keyLookups(f.knex, () =>
      Promise.all(
        [fresh, fresh, unknown, unknown].map(async (key) =>
          answers.push(
            (await f.app.inject({ url: '/api/v1/charges/ch_1', headers: bearer(key) })).statusCode,
          ),
        ),
      ),
    );
    expect(answers.sort()).toEqual([200, 200, 401, 401]);
    expect(lookups).toBe(2); // one per secret
  });

  it('keeps unknown secrets apart from the keys: a flood of them never evicts a cached key', async () => {
    const authenticator = new ApiKeyAuthenticator({
      db: f.db,
      keys: keyCacheFor(f.db, { entriesMax: 2, unknownEntriesMax: 2, ttlMs: 60_000 }),
      rateLimiter: new RateLimiter({ bucketsMax: 10 }),
      defaultRateLimitPerSecond: 10_000,
      failureLimiter: new RateLimiter({ bucketsMax: 10 }),
      failuresPerSecond: 10_000,
    });
    const rule = { permission: 'charges:read' as const, sellerScope: false, kyc: false };
    const request = (key: string) =>
      ({
        headers: { authorization: `Bearer ${key}` },
        ip: '192.0.2.1',
        id: 'req_flood',
      }) as unknown as FastifyRequest;
    await authenticator.principalFor(request(secret), rule);
    for (let i = 0; i < 50; i += 1) {
      await expect(
        authenticator.principalFor(request(newApiKeySecret('test')), rule),
      ).rejects.toMatchObject({ code: 'api_key_invalid' });
    }
    expect(await keyLookups(f.knex, () => authenticator.principalFor(request(secret), rule))).toBe(
      0,
    );
  });

  it('answers 429 rate_limited with Retry-After to an address past its budget of failed authentications, without a lookup; other addresses and cached keys go on', async () => {
    // The buckets' clock stands still unless the test moves it: no refill from a slow machine's pace.
    let nowMs = 0;
    const guarded = await startFixture({
      knex: f.knex,
      env: { AUTH_FAILURES_PER_SECOND: '3' },
      rateLimitNowMs: () => nowMs,
    });
    try {
      const from = (address: string, key: string) =>
        guarded.app.inject({
          url: '/api/v1/charges/ch_1',
          headers: bearer(key),
          remoteAddress: address,
        });
      const cached = (await createKey(f, { tenantId, permissions: ['charges:read'] })).secret;
      const fresh = (await createKey(f, { tenantId, permissions: ['charges:read'] })).secret;
      expect((await from('203.0.113.7', cached)).statusCode).toBe(200);
      const codes: string[] = [];
      for (let i = 0; i < 3; i += 1)
        codes.push((await from('203.0.113.7', newApiKeySecret('test'))).json().error.code);
      expect(codes).toEqual(['api_key_invalid', 'api_key_invalid', 'api_key_invalid']);

      let refused = await from('203.0.113.7', newApiKeySecret('test'));
      const lookups = await keyLookups(f.knex, async () => {
        for (let i = 0; i < 10; i += 1)
          refused = await from('203.0.113.7', newApiKeySecret('live'));
        // A real key not yet cached is not looked up either: the address has spent its budget.
        expect((await from('203.0.113.7', fresh)).statusCode).toBe(429);
      });
      expect(lookups).toBe(0);
      expect(refused.statusCode).toBe(429);
      expect(refused.headers['retry-after']).toBe('1');
      expect(refused.json()).toEqual({
        error: {
          type: 'rate_limit_error',
          code: 'rate_limited',
          message: expect.stringContaining('failed authentications'),
          param: null,
        },
        request_id: refused.headers['x-request-id'],
      });
      // A key this replica already holds costs no lookup and is still served; another address is untouched.
      expect((await from('203.0.113.7', cached)).statusCode).toBe(200);
      expect((await from('203.0.113.8', newApiKeySecret('test'))).json().error.code).toBe(
        'api_key_invalid',
      );
      expect((await from('203.0.113.8', fresh)).statusCode).toBe(200);
      // Missing and malformed headers cost no lookup and are not counted.
      for (let i = 0; i < 5; i += 1)
        expect((await from('203.0.113.9', 'sk_test_short')).json().error.code).toBe(
          'api_key_invalid',
        );
      expect((await from('203.0.113.9', fresh)).statusCode).toBe(200);
      nowMs += 400; // one failure back at 3 per second
      expect((await from('203.0.113.7', newApiKeySecret('test'))).json().error.code).toBe(
        'api_key_invalid',
      );
    } finally {
      await stopFixture(guarded, { keepDatabase: true });
    }
  });

  it('never writes a key secret to a log line, nor anywhere in the database but as its SHA-256', async () => {
    const created = await f.admin('POST', '/admin/v1/api-keys', {
      tenant_id: tenantId,
      seller_id: sellerId,
      permissions: ['charges:read'],
    });
    const { id, secret: fresh } = created.json();
    expect(fresh).toMatch(/^sk_test_[A-Za-z0-9]{32}$/);
    await f.app.inject({ url: '/api/v1/charges/ch_1', headers: bearer(fresh) });
    await f.app.inject({ url: '/api/v1/balance', headers: bearer(fresh) }); // 403
    await f.app.inject({
      url: '/api/v1/charges/ch_1',
      headers: { authorization: `bearer ${fresh}` },
    }); // 401 malformed
    await f.admin('DELETE', `/admin/v1/api-keys/${id}`);
    await f.app.inject({ url: '/api/v1/charges/ch_1', headers: bearer(fresh) }); // 401 revoked

    const randomPart = fresh.slice('sk_test_'.length);
    expect(f.log.lines.length).toBeGreaterThan(10);
    expect(f.log.lines.filter((line) => line.includes(randomPart))).toEqual([]);

    const tables = await f.knex.raw(
      `select table_name from information_schema.tables where table_schema = 'gateway' and table_type = 'BASE TABLE'`,
    );
    const names: string[] = tables.rows.map((row: { table_name: string }) => row.table_name);
    expect(names).toEqual(expect.arrayContaining(['api_keys', 'tenants', 'sellers', 'outbox']));
    for (const table of names) {
      const rows = await f.knex.withSchema('gateway').select('*').from(table);
      const dump = JSON.stringify(rows, (_k, v: unknown) =>
        v instanceof Uint8Array ? Buffer.from(v).toString('latin1') : v,
      );
      expect([table, dump.includes(randomPart)]).toEqual([table, false]);
    }
    const row = await f.knex.withSchema('gateway').from('api_keys').where({ id }).first();
    expect(row.secret_sha256).toBe(sha256Hex(fresh));
    expect(
      Object.values(row).filter((v) => typeof v === 'string' && v.includes(randomPart)),
    ).toEqual([]);
  });
});
