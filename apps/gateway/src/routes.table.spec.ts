import { PERMISSIONS, type Permission } from './auth/permissions';
import { OPERATOR_ROUTES, PROVIDER_ROUTES, PUBLIC_ROUTES, type PublicRoute } from './routes.table';
import {
  ADMIN_TOKEN,
  bearer,
  createKey,
  createSeller,
  createTenant,
  startFixture,
  stopFixture,
  stubUpstreams,
  type Fixture,
  type StubCall,
} from './testing/gateway-fixture';

// api-v1.md §4 and §5, copied by hand (and the one listed extension): the table must say exactly this, or this test says where it differs.
const API_V1_ENDPOINTS: Array<
  [string, string, Permission, 'tenant' | 'tenant+kyc' | 'seller' | 'seller+kyc']
> = [
  ['POST', '/payment-methods/tokenize', 'payment_methods:tokenize', 'seller+kyc'],
  ['POST', '/charges', 'charges:create', 'tenant+kyc'], // contract §4a: the owning seller's KYC
  // Beyond api-v1 §4 (a draft that may change, §9): the key's charges, paged, for the dashboard (issue 22).
  ['GET', '/charges', 'charges:read', 'tenant'],
  ['GET', '/charges/{id}', 'charges:read', 'tenant'],
  // Beyond api-v1 §4 too: a charge's refunds and its events, for the dashboard's charge page (issue 22).
  ['GET', '/charges/{id}/refunds', 'charges:read', 'tenant'],
  ['GET', '/charges/{id}/events', 'charges:read', 'tenant'],
  ['POST', '/charges/{id}/capture', 'charges:create', 'tenant'],
  ['POST', '/charges/{id}/refund', 'refunds:create', 'tenant'],
  ['GET', '/balance', 'balance:read', 'seller'],
  ['GET', '/balance/history', 'balance:read', 'seller'],
  ['GET', '/receivables', 'receivables:read', 'tenant'],
  ['GET', '/receivables/{id}', 'receivables:read', 'tenant'],
  ['GET', '/settlements', 'settlements:read', 'tenant'],
  ['GET', '/settlements/{id}', 'settlements:read', 'tenant'],
  ['GET', '/chargebacks', 'chargebacks:read', 'tenant'],
  ['GET', '/chargebacks/{id}', 'chargebacks:read', 'tenant'],
  ['POST', '/anticipations/simulate', 'anticipations:read', 'seller'],
  ['POST', '/anticipations', 'anticipations:create', 'seller'],
  ['GET', '/anticipations', 'anticipations:read', 'seller'],
  ['GET', '/anticipations/{id}', 'anticipations:read', 'seller'],
];

const SAMPLE_IDS: Record<string, string> = {
  charges: 'ch_abc123',
  receivables: 'recv_abc123',
  settlements: 'set_abc123',
  chargebacks: 'cb_abc123',
  anticipations: 'ant_abc123',
};

/** A concrete path for a route pattern: `/api/v1/charges/:id` → `/api/v1/charges/ch_abc123`. */
function pathOf(route: PublicRoute): string {
  const resource = route.url.split('/')[3] ?? '';
  return route.url.replace(':id', SAMPLE_IDS[resource] ?? 'x_1');
}

const bodyOf = (route: PublicRoute) =>
  route.method === 'POST' ? { payload: { probe: true } } : {};

describe('the routing table', () => {
  it('holds every endpoint of api-v1 §4 with the permission and scope of api-v1 §5, the charges list beside them, and nothing else', () => {
    const fromTable = PUBLIC_ROUTES.map((r) => [
      r.method,
      r.url.replace('/api/v1', '').replace(':id', '{id}'),
      r.permission,
      `${r.sellerScope ? 'seller' : 'tenant'}${r.kyc ? '+kyc' : ''}`,
    ]);
    expect(fromTable).toEqual(API_V1_ENDPOINTS);
    for (const route of PUBLIC_ROUTES) expect(PERMISSIONS).toContain(route.permission);
  });
});

describe('public routes through the gateway (in-process upstreams)', () => {
  let f: Fixture;
  const calls: StubCall[] = [];
  let tenantId: string;
  let sellerId: string;
  let pendingSellerId: string;
  const keys = new Map<string, string>();

  beforeAll(async () => {
    f = await startFixture({
      upstreams: await stubUpstreams(undefined, calls),
      bodyLimitBytes: 4096,
    });
    tenantId = await createTenant(f);
    sellerId = await createSeller(f, tenantId, { kyc_status: 'approved' });
    pendingSellerId = await createSeller(f, tenantId);
    for (const permission of PERMISSIONS) {
      const others = PERMISSIONS.filter((p) => p !== permission);
      keys.set(
        `seller:${permission}`,
        (await createKey(f, { tenantId, sellerId, permissions: [permission] })).secret,
      );
      keys.set(
        `tenant:${permission}`,
        (await createKey(f, { tenantId, permissions: [permission] })).secret,
      );
      keys.set(
        `pending:${permission}`,
        (await createKey(f, { tenantId, sellerId: pendingSellerId, permissions: [permission] }))
          .secret,
      );
      keys.set(
        `lacking:${permission}`,
        (await createKey(f, { tenantId, sellerId, permissions: others })).secret,
      );
    }
  });
  afterAll(() => stopFixture(f));

  const key = (name: string): string => {
    const secret = keys.get(name);
    if (secret === undefined) throw new Error(`no key ${name}`);
    return secret;
  };

  describe.each(PUBLIC_ROUTES.map((r) => [`${r.method} ${r.url}`, r] as const))(
    '%s',
    (_name, route) => {
      it('reaches its service, at the same path, with the signed principal of a key that holds the permission', async () => {
        const res = await f.app.inject({
          method: route.method,
          url: pathOf(route),
          headers: bearer(key(`seller:${route.permission}`)),
          ...bodyOf(route),
        });
        expect(res.statusCode).toBe(200);
        const echo = res.json();
        expect(echo.service).toBe(route.service);
        expect(echo.url).toBe(pathOf(route));
        expect(echo.principal).toEqual({
          kind: 'api_key',
          tenantId,
          sellerId,
          keyId: expect.stringMatching(/^key_/),
          permissions: [route.permission],
          livemode: false,
          requestId: res.headers['x-request-id'],
          expiresAtMs: expect.any(Number),
          clientIp: '127.0.0.1',
        });
        expect(echo.authorization).toBeNull();
        expect(echo.x_request_id).toBe(res.headers['x-request-id']);
      });

      it('answers 403 permission_denied to a key with every other permission', async () => {
        const res = await f.app.inject({
          method: route.method,
          url: pathOf(route),
          headers: bearer(key(`lacking:${route.permission}`)),
          ...bodyOf(route),
        });
        expect(res.statusCode).toBe(403);
        expect(res.json().error).toMatchObject({
          type: 'permission_error',
          code: 'permission_denied',
        });
      });

      if (route.sellerScope) {
        it('answers 403 seller_scope_required to a tenant-wide key with the permission', async () => {
          const res = await f.app.inject({
            method: route.method,
            url: pathOf(route),
            headers: bearer(key(`tenant:${route.permission}`)),
            ...bodyOf(route),
          });
          expect(res.statusCode).toBe(403);
          expect(res.json().error).toMatchObject({
            type: 'permission_error',
            code: 'seller_scope_required',
          });
        });
      } else {
        it('also serves a tenant-wide key, whose principal has no seller', async () => {
          const res = await f.app.inject({
            method: route.method,
            url: pathOf(route),
            headers: bearer(key(`tenant:${route.permission}`)),
            ...bodyOf(route),
          });
          expect(res.statusCode).toBe(200);
          expect(res.json().principal).toMatchObject({ tenantId, sellerId: null });
        });
      }

      if (route.kyc) {
        it('answers 403 seller_kyc_required to a key of a seller whose KYC is not approved', async () => {
          const res = await f.app.inject({
            method: route.method,
            url: pathOf(route),
            headers: bearer(key(`pending:${route.permission}`)),
            ...bodyOf(route),
          });
          expect(res.statusCode).toBe(403);
          expect(res.json().error).toMatchObject({
            type: 'permission_error',
            code: 'seller_kyc_required',
          });
        });
      } else {
        it('needs no KYC approval', async () => {
          const res = await f.app.inject({
            method: route.method,
            url: pathOf(route),
            headers: bearer(key(`pending:${route.permission}`)),
            ...bodyOf(route),
          });
          expect(res.statusCode).toBe(200);
        });
      }

      it('answers 401 api_key_missing without a key, and never reaches the service', async () => {
        const before = calls.length;
        const res = await f.app.inject({
          method: route.method,
          url: pathOf(route),
          ...bodyOf(route),
        });
        expect(res.statusCode).toBe(401);
        expect(res.json().error).toMatchObject({
          type: 'authentication_error',
          code: 'api_key_missing',
        });
        expect(calls.length).toBe(before);
      });
    },
  );

  it('takes livemode from the key: a live key reaches the service with livemode true', async () => {
    const live = await createKey(f, {
      tenantId,
      environment: 'live',
      permissions: ['charges:read'],
    });
    expect(live.secret).toMatch(/^sk_live_[A-Za-z0-9]{32}$/);
    const res = await f.app.inject({ url: '/api/v1/charges/ch_1', headers: bearer(live.secret) });
    expect(res.json().principal.livemode).toBe(true);
  });

  it("opens tokenize the moment the seller's KYC is approved, and closes it the moment it is not (read-your-writes)", async () => {
    const secret = key('pending:payment_methods:tokenize');
    const tokenize = () =>
      f.app.inject({
        method: 'POST',
        url: '/api/v1/payment-methods/tokenize',
        headers: bearer(secret),
        payload: {},
      });
    expect((await tokenize()).statusCode).toBe(403); // the key is now in the cache
    expect(
      (await f.admin('PATCH', `/admin/v1/sellers/${pendingSellerId}`, { kyc_status: 'approved' }))
        .statusCode,
    ).toBe(200);
    expect((await tokenize()).statusCode).toBe(200);
    expect(
      (await f.admin('PATCH', `/admin/v1/sellers/${pendingSellerId}`, { kyc_status: 'pending' }))
        .statusCode,
    ).toBe(200);
    expect((await tokenize()).json().error).toMatchObject({ code: 'seller_kyc_required' });
  });

  it('answers 404 for paths and methods not in the table, and never forwards /internal', async () => {
    const secret = key('seller:charges:read');
    const before = calls.length;
    for (const [method, url] of [
      ['GET', '/api/v1/nope'],
      ['GET', '/api/v1/refunds'],
      ['DELETE', '/api/v1/charges/ch_1'],
      ['GET', '/internal/charges/ch_1'],
      ['GET', '/api/v1/internal/charges'],
      ['GET', '/api/v2/charges/ch_1'],
    ] as const) {
      const res = await f.app.inject({ method, url, headers: bearer(secret) });
      expect([method, url, res.statusCode, res.json().error.code]).toEqual([
        method,
        url,
        404,
        'resource_not_found',
      ]);
    }
    expect(calls.length).toBe(before);
  });

  it('forwards the body bytes and the query string as sent, and copies status and headers back with its own request id', async () => {
    const raw = '{ "amount" : 100,\n  "payment_method":"PIX" , "z": [1,2] }';
    const res = await f.app.inject({
      method: 'POST',
      url: '/api/v1/charges?expand=x',
      headers: {
        ...bearer(key('seller:charges:create')),
        'content-type': 'application/json',
        'idempotency-key': 'k1',
        'x-stub-status': '201',
        'x-stub-header': 'idempotent-replayed=true',
        'x-request-id': 'req_forged',
      },
      payload: raw,
    });
    expect(res.statusCode).toBe(201);
    expect(res.headers['idempotent-replayed']).toBe('true');
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const echo = res.json();
    expect(echo.raw_body).toBe(raw);
    expect(echo.url).toBe('/api/v1/charges?expand=x');
    expect(res.headers['x-request-id']).toMatch(/^req_/);
    expect(res.headers['x-request-id']).not.toBe('req_forged');
    expect(echo.x_request_id).toBe(res.headers['x-request-id']);
    expect(echo.principal.requestId).toBe(res.headers['x-request-id']);
  });

  it('copies Retry-After and error statuses of the service', async () => {
    const res = await f.app.inject({
      url: '/api/v1/charges/ch_1',
      headers: {
        ...bearer(key('seller:charges:read')),
        'x-stub-status': '503',
        'x-stub-header': 'retry-after=7',
      },
    });
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('7');
  });

  it('answers 422 invalid_json itself for a body that is not JSON, after authentication', async () => {
    const before = calls.length;
    const res = await f.app.inject({
      method: 'POST',
      url: '/api/v1/charges',
      headers: { ...bearer(key('seller:charges:create')), 'content-type': 'application/json' },
      payload: '{"amount": 1,',
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_json' });
    const anonymous = await f.app.inject({
      method: 'POST',
      url: '/api/v1/charges',
      headers: { 'content-type': 'application/json' },
      payload: '{"amount": 1,',
    });
    expect(anonymous.statusCode).toBe(401);
    expect(calls.length).toBe(before);
  });

  it('answers 413 request_too_large for a body above the limit', async () => {
    const res = await f.app.inject({
      method: 'POST',
      url: '/api/v1/charges',
      headers: { ...bearer(key('seller:charges:create')), 'content-type': 'application/json' },
      payload: JSON.stringify({ pad: 'x'.repeat(5000) }),
    });
    expect(res.statusCode).toBe(413);
    expect(res.json().error).toMatchObject({
      type: 'invalid_request_error',
      code: 'request_too_large',
    });
  });

  it('forwards a POST without a body as one without a body', async () => {
    const res = await f.app.inject({
      method: 'POST',
      url: '/api/v1/charges/ch_1/capture',
      headers: bearer(key('seller:charges:create')),
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ raw_body: null, content_type: null });
  });
});

describe('operator routes owned by services', () => {
  let f: Fixture;
  const calls: StubCall[] = [];
  let apiKey: string;
  let tenantId: string;

  beforeAll(async () => {
    f = await startFixture({ upstreams: await stubUpstreams(undefined, calls) });
    tenantId = await createTenant(f);
    apiKey = (await createKey(f, { tenantId, permissions: [...PERMISSIONS] })).secret;
  });
  afterAll(() => stopFixture(f));

  it.each(OPERATOR_ROUTES.map((r) => [r.url, r] as const))(
    'forwards %s to its owner with an operator principal',
    async (_url, route) => {
      const url = route.url
        .replace(':charge_id', 'ch_abc')
        .replace(':cb_id', 'cb_abc')
        .replace(':tenant_id', tenantId);
      const body = route.method !== 'GET' ? { payload: { as_of_date: '2026-03-02' } } : {};
      const res = await f.app.inject({
        method: route.method,
        url,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        ...body,
      });
      expect(res.statusCode).toBe(200);
      const echo = res.json();
      expect(echo.service).toBe(route.service);
      expect(echo.url).toBe(url);
      expect(echo.principal).toEqual({
        kind: 'operator',
        requestId: res.headers['x-request-id'],
        expiresAtMs: expect.any(Number),
      });
      expect(echo.raw_body).toBe(route.method !== 'GET' ? '{"as_of_date":"2026-03-02"}' : null);
      expect(echo.authorization).toBeNull();
    },
  );

  it.each(
    OPERATOR_ROUTES.filter((r) => r.url.includes(':tenant_id')).flatMap((r) => [
      [r.method, r.url, 'ten_doesnotexist0000000000'] as const,
      [r.method, r.url, 'not-a-tenant-id'] as const,
    ]),
  )(
    '%s %s answers 404 resource_not_found for the tenant %s, which the directory does not hold, and never reaches the service',
    async (method, pattern, missing) => {
      const before = calls.length;
      const body = method !== 'GET' ? { payload: { card: null, pix: null, boleto: null } } : {};
      const res = await f.app.inject({
        method,
        url: pattern.replace(':tenant_id', missing),
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        ...body,
      });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({
        error: {
          type: 'not_found_error',
          code: 'resource_not_found',
          message: 'No such tenant.',
          param: null,
        },
        request_id: res.headers['x-request-id'],
      });
      expect(calls.length).toBe(before);
    },
  );

  it.each(PROVIDER_ROUTES.map((r) => [r.url, r] as const))(
    'forwards the provider callback %s without credentials, its principal bound to that path',
    async (_url, route) => {
      // Proves a PSP's webhook reaches its service although it carries no key (the ingress authenticates the PSP).
      const res = await f.app.inject({
        method: route.method,
        url: route.url,
        payload: { pix: [] },
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({
        service: route.service,
        url: route.url,
        principal: { kind: 'operator' },
        authorization: null,
      });
    },
  );

  it('sends each job to the service that runs it, and an unknown job is 404', async () => {
    const owners: Record<string, string> = {};
    for (const job of [
      'receivables-release',
      'settlement-run',
      'authorization-expiry',
      'pix-expiry',
      'refund-reconciliation',
    ]) {
      const res = await f.app.inject({
        method: 'POST',
        url: `/admin/v1/jobs/${job}`,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      owners[job] = res.json().service;
    }
    expect(owners).toEqual({
      'receivables-release': 'receivables',
      'settlement-run': 'receivables',
      'authorization-expiry': 'charges',
      'pix-expiry': 'charges',
      'refund-reconciliation': 'charges',
    });
    const unknown = await f.app.inject({
      method: 'POST',
      url: '/admin/v1/jobs/make-money',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.code).toBe('resource_not_found');
  });

  it.each([
    ['no Authorization', (): Record<string, string> => ({})],
    ['a wrong admin token', () => ({ authorization: 'Bearer adm_wrong_token_000000000000' })],
    ['the admin token in lower-case bearer', () => ({ authorization: `bearer ${ADMIN_TOKEN}` })],
    ['an sk_ key', () => bearer(apiKey)],
  ])('answers 401 with %s and never reaches the service', async (_name, headers) => {
    const before = calls.length;
    const res = await f.app.inject({
      method: 'POST',
      url: '/admin/v1/simulations/provider',
      headers: headers(),
      payload: { mode: 'normal' },
    });
    expect(res.statusCode).toBe(401);
    expect(res.json().error.type).toBe('authentication_error');
    expect(calls.length).toBe(before);
  });

  it('answers 422 invalid_json for a malformed body', async () => {
    const res = await f.app.inject({
      method: 'POST',
      url: '/admin/v1/simulations/provider',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      payload: '{mode:',
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().error.code).toBe('invalid_json');
  });
});

describe('a deployment without some services', () => {
  let f: Fixture;
  let secret: string;

  beforeAll(async () => {
    f = await startFixture({ upstreams: await stubUpstreams(['vault', 'charges']) });
    const tenantId = await createTenant(f);
    const sellerId = await createSeller(f, tenantId, { kyc_status: 'approved' });
    secret = (await createKey(f, { tenantId, sellerId, permissions: [...PERMISSIONS] })).secret;
  });
  afterAll(() => stopFixture(f));

  it('answers 404 resource_not_found on the routes of a service that is not running, after the same checks', async () => {
    const res = await f.app.inject({ url: '/api/v1/balance', headers: bearer(secret) });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('resource_not_found');
    expect((await f.app.inject({ url: '/api/v1/balance' })).statusCode).toBe(401);
    const job = await f.app.inject({
      method: 'POST',
      url: '/admin/v1/jobs/settlement-run',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(job.statusCode).toBe(404);
    expect(
      (await f.app.inject({ url: '/api/v1/charges/ch_1', headers: bearer(secret) })).statusCode,
    ).toBe(200);
  });
});
