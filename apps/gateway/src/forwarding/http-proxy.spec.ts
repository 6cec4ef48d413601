import {
  generatePrincipalKeys,
  PRINCIPAL_HEADER,
  PRINCIPAL_TTL_MS,
  requestBinding,
  signPrincipal,
  type App,
} from '@pgw/platform-http';
import {
  ADMIN_TOKEN,
  bearer,
  createKey,
  createSeller,
  createTenant,
  PRINCIPAL_KEYS,
  startFixture,
  stopFixture,
  stubService,
  type Fixture,
  type StubCall,
} from '../testing/gateway-fixture';

describe('the http mode: @fastify/http-proxy to services listening on a port', () => {
  let f: Fixture;
  let charges: App;
  let chargesUrl: string;
  const calls: StubCall[] = [];
  let tenantId: string;
  let sellerId: string;

  beforeAll(async () => {
    charges = await stubService('charges', calls);
    chargesUrl = await charges.listen({ port: 0, host: '127.0.0.1' });
    // A port nothing listens on: the service is configured but down.
    const down = await stubService('ledger');
    const downUrl = await down.listen({ port: 0, host: '127.0.0.1' });
    await down.close();
    f = await startFixture({
      upstreams: { mode: 'http', baseUrls: { charges: chargesUrl, ledger: downUrl } },
    });
    tenantId = await createTenant(f);
    sellerId = await createSeller(f, tenantId, { kyc_status: 'approved' });
  });
  afterAll(async () => {
    await stopFixture(f);
    await charges.close();
  });

  it('forwards over HTTP with the same principal as in-process: tenant, seller, key, permissions, livemode, request id', async () => {
    const key = await createKey(f, { tenantId, sellerId, permissions: ['charges:read'] });
    const res = await f.app.inject({
      url: '/api/v1/charges/ch_abc?expand=split',
      headers: bearer(key.secret),
    });
    expect(res.statusCode).toBe(200);
    const echo = res.json();
    expect(echo.service).toBe('charges');
    expect(echo.url).toBe('/api/v1/charges/ch_abc?expand=split');
    expect(echo.principal).toEqual({
      kind: 'api_key',
      tenantId,
      sellerId,
      keyId: key.id,
      permissions: ['charges:read'],
      livemode: false,
      requestId: res.headers['x-request-id'],
      expiresAtMs: expect.any(Number),
      clientIp: '127.0.0.1',
    });
    expect(echo.authorization).toBeNull();
    expect(echo.x_request_id).toBe(res.headers['x-request-id']);
  });

  it('sends the body bytes unchanged and copies status and headers back', async () => {
    const key = await createKey(f, { tenantId, permissions: ['charges:create'] });
    const raw = '{"amount":100,  "payment_method" : "PIX"}';
    const res = await f.app.inject({
      method: 'POST',
      url: '/api/v1/charges',
      headers: {
        ...bearer(key.secret),
        'content-type': 'application/json',
        'x-stub-status': '201',
        'x-stub-header': 'idempotent-replayed=true',
      },
      payload: raw,
    });
    expect(res.statusCode).toBe(201);
    expect(res.headers['idempotent-replayed']).toBe('true');
    expect(res.json().raw_body).toBe(raw);
    expect(res.json().principal.requestId).toBe(res.headers['x-request-id']);
    const empty = await f.app.inject({
      method: 'POST',
      url: '/api/v1/charges/ch_1/capture',
      headers: bearer(key.secret),
    });
    expect(empty.json()).toMatchObject({ raw_body: null, content_type: null });
  });

  it('runs the same checks before the network: 401, 403 and invalid JSON never reach the service', async () => {
    const reader = await createKey(f, { tenantId, permissions: ['charges:read'] });
    const before = calls.length;
    const missing = await f.app.inject({ url: '/api/v1/charges/ch_1' });
    expect([missing.statusCode, missing.json().error.code]).toEqual([401, 'api_key_missing']);
    const malformed = await f.app.inject({
      url: '/api/v1/charges/ch_1',
      headers: { authorization: `bearer ${reader.secret}` },
    });
    expect([malformed.statusCode, malformed.json().error.code]).toEqual([401, 'api_key_invalid']);
    const denied = await f.app.inject({
      method: 'POST',
      url: '/api/v1/charges',
      headers: bearer(reader.secret),
      payload: {},
    });
    expect([denied.statusCode, denied.json().error.code]).toEqual([403, 'permission_denied']);
    const writer = await createKey(f, { tenantId, permissions: ['charges:create'] });
    const badJson = await f.app.inject({
      method: 'POST',
      url: '/api/v1/charges',
      headers: { ...bearer(writer.secret), 'content-type': 'application/json' },
      payload: '{"a":',
    });
    expect([badJson.statusCode, badJson.json().error.code]).toEqual([422, 'invalid_json']);
    const notInTable = await f.app.inject({
      url: '/internal/charges/ch_1',
      headers: bearer(reader.secret),
    });
    expect(notInTable.statusCode).toBe(404);
    expect(calls.length).toBe(before);
  });

  it('forwards an operator route with an operator principal', async () => {
    const res = await f.app.inject({
      method: 'POST',
      url: '/admin/v1/jobs/pix-expiry',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      payload: { as_of_date: '2026-03-02' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      service: 'charges',
      url: '/admin/v1/jobs/pix-expiry',
      principal: { kind: 'operator' },
      raw_body: '{"as_of_date":"2026-03-02"}',
    });
  });

  it("checks KYC as the inject mode does: a pending seller's charge is 403, a pending split recipient 422, and neither reaches the service", async () => {
    const pending = await createSeller(f, tenantId);
    const pendingKey = await createKey(f, {
      tenantId,
      sellerId: pending,
      permissions: ['charges:create'],
    });
    const approvedKey = await createKey(f, { tenantId, sellerId, permissions: ['charges:create'] });
    const post = (secret: string, body: object) =>
      f.app.inject({
        method: 'POST',
        url: '/api/v1/charges',
        headers: { ...bearer(secret), 'content-type': 'application/json' },
        payload: body,
      });
    const before = calls.length;
    const refused = await post(pendingKey.secret, { amount: 100, payment_method: 'PIX' });
    expect([refused.statusCode, refused.json().error.code]).toEqual([403, 'seller_kyc_required']);
    const split = await post(approvedKey.secret, {
      amount: 100,
      payment_method: 'PIX',
      split: [{ recipient_seller_id: pending, amount_cents: 10 }],
    });
    expect([split.statusCode, split.json().error.param]).toEqual([
      422,
      'split.0.recipient_seller_id',
    ]);
    expect(calls.length).toBe(before);
    await f.admin('PATCH', `/admin/v1/sellers/${pending}`, { kyc_status: 'approved' });
    expect(
      (await post(pendingKey.secret, { amount: 100, payment_method: 'PIX' })).json().service,
    ).toBe('charges');
  });

  it('answers 404 for a service without a URL, and the contract error body, not a crash, for a service that is down', async () => {
    const key = await createKey(f, {
      tenantId,
      sellerId,
      permissions: ['balance:read', 'receivables:read'],
    });
    const absent = await f.app.inject({ url: '/api/v1/receivables', headers: bearer(key.secret) });
    expect([absent.statusCode, absent.json().error.code]).toEqual([404, 'resource_not_found']);
    const down = await f.app.inject({ url: '/api/v1/balance', headers: bearer(key.secret) });
    expect(down.statusCode).toBe(503);
    expect(down.json()).toEqual({
      error: {
        type: 'api_error',
        code: 'service_unavailable',
        message: expect.any(String),
        param: null,
      },
      request_id: down.headers['x-request-id'],
    });
  });

  it('a request straight to the service is refused (401) with a missing, forged or expired principal', async () => {
    const principal = {
      kind: 'api_key' as const,
      tenantId,
      sellerId: null,
      keyId: 'key_x',
      permissions: ['charges:read'],
      livemode: false,
      requestId: 'req_direct',
      expiresAtMs: Date.now() + PRINCIPAL_TTL_MS,
    };
    const forThis = requestBinding('GET', '/api/v1/charges/ch_1');
    const cases: Array<[string, Record<string, string>]> = [
      ['missing', {}],
      [
        'forged',
        {
          [PRINCIPAL_HEADER]: signPrincipal(principal, forThis, generatePrincipalKeys().privateKey),
        },
      ],
      [
        'expired',
        {
          [PRINCIPAL_HEADER]: signPrincipal(
            { ...principal, expiresAtMs: Date.now() - 1 },
            forThis,
            PRINCIPAL_KEYS.privateKey,
          ),
        },
      ],
      [
        'issued for another request',
        {
          [PRINCIPAL_HEADER]: signPrincipal(
            principal,
            requestBinding('GET', '/api/v1/charges/ch_2'),
            PRINCIPAL_KEYS.privateKey,
          ),
        },
      ],
      ['an API key instead', { authorization: `Bearer sk_test_${'a'.repeat(32)}` }],
    ];
    for (const [name, headers] of cases) {
      const res = await fetch(`${chargesUrl}/api/v1/charges/ch_1`, { headers });
      expect([
        name,
        res.status,
        ((await res.json()) as { error: { code: string } }).error.code,
      ]).toEqual([name, 401, 'principal_invalid']);
    }
    const valid = await fetch(`${chargesUrl}/api/v1/charges/ch_1`, {
      headers: { [PRINCIPAL_HEADER]: signPrincipal(principal, forThis, PRINCIPAL_KEYS.privateKey) },
    });
    expect(valid.status).toBe(200);
  });

  it('signs each principal for the request it forwards: the one a service received is refused on any other route', async () => {
    // Proves a principal captured between the gateway and a service cannot be replayed onto another route (issue 16, item 11).
    const key = await createKey(f, {
      tenantId,
      sellerId,
      permissions: ['charges:read', 'refunds:create'],
    });
    const read = await f.app.inject({ url: '/api/v1/charges/ch_abc', headers: bearer(key.secret) });
    expect(read.statusCode).toBe(200);
    const captured = read.json().principal_header as string;
    const replays: Array<[string, string]> = [
      ['POST', '/api/v1/charges/ch_abc/refund'],
      ['GET', '/api/v1/charges/ch_other'],
      ['GET', '/api/v1/charges/ch_abc?expand=split'],
    ];
    for (const [method, path] of replays) {
      const res = await fetch(`${chargesUrl}${path}`, {
        method,
        headers: { [PRINCIPAL_HEADER]: captured },
      });
      expect([
        method,
        path,
        res.status,
        ((await res.json()) as { error: { code: string } }).error.code,
      ]).toEqual([method, path, 401, 'principal_invalid']);
    }
    expect(
      (
        await fetch(`${chargesUrl}/api/v1/charges/ch_abc`, {
          headers: { [PRINCIPAL_HEADER]: captured },
        })
      ).status,
    ).toBe(200);
    // A path spelled with percent-escapes is the same request on both sides of the proxy.
    const encoded = await f.app.inject({
      url: '/api/v1/charges/%63h_abc?expand=split',
      headers: bearer(key.secret),
    });
    expect([encoded.statusCode, encoded.json().principal?.tenantId]).toEqual([200, tenantId]);
  });
});
