import { PERMISSIONS } from '../auth/permissions';
import {
  bearer,
  createKey,
  createSeller,
  createTenant,
  startFixture,
  stopFixture,
  type Fixture,
} from '../testing/gateway-fixture';
import {
  everyPage,
  expectAdminTokenRequired,
  expectUnknownTenantNotFound,
  idsOf,
} from '../testing/operator-lists.fixture';

describe('the operator API: API keys', () => {
  let f: Fixture;
  let tenantId: string;
  let sellerId: string;

  beforeAll(async () => {
    f = await startFixture();
    tenantId = await createTenant(f);
    sellerId = await createSeller(f, tenantId, { kyc_status: 'approved' });
  });
  afterAll(() => stopFixture(f));

  it('issues a key whose secret is shown once, in the 201, and never again', async () => {
    const res = await f.admin('POST', '/admin/v1/api-keys', {
      tenant_id: tenantId,
      seller_id: sellerId,
      environment: 'live',
      permissions: ['charges:read', 'balance:read'],
      rate_limit_per_second: 50,
    });
    expect(res.statusCode).toBe(201);
    const key = res.json();
    expect(key).toEqual({
      object: 'api_key',
      id: expect.stringMatching(/^key_[A-Za-z0-9]{24}$/),
      tenant_id: tenantId,
      seller_id: sellerId,
      environment: 'live',
      livemode: true,
      secret_last4: expect.stringMatching(/^[A-Za-z0-9]{4}$/),
      permissions: ['charges:read', 'balance:read'],
      rate_limit_per_second: 50,
      status: 'active',
      created_at: '2026-03-02T12:00:00.000Z',
      revoked_at: null,
      secret: expect.stringMatching(/^sk_live_[A-Za-z0-9]{32}$/),
      request_id: res.headers['x-request-id'],
    });
    expect(key.secret.endsWith(key.secret_last4)).toBe(true);
    const revoked = await f.admin('DELETE', `/admin/v1/api-keys/${key.id}`);
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json()).toMatchObject({
      id: key.id,
      status: 'revoked',
      revoked_at: '2026-03-02T12:00:00.000Z',
    });
    expect(revoked.json()).not.toHaveProperty('secret');
    expect(revoked.payload).not.toContain(key.secret);
  });

  it('issues a tenant-wide test key by default', async () => {
    const res = await f.admin('POST', '/admin/v1/api-keys', {
      tenant_id: tenantId,
      permissions: [],
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({
      seller_id: null,
      environment: 'test',
      livemode: false,
      permissions: [],
      rate_limit_per_second: null,
    });
    expect(res.json().secret).toMatch(/^sk_test_/);
  });

  it.each([
    [
      'an unknown permission',
      { permissions: ['charges:delete'] },
      422,
      'parameter_invalid',
      'permissions.0',
    ],
    [
      'a repeated permission',
      { permissions: ['charges:read', 'charges:read'] },
      422,
      'parameter_invalid',
      'permissions',
    ],
    ['missing permissions', { permissions: undefined }, 422, 'parameter_missing', 'permissions'],
    [
      'permissions as a string',
      { permissions: 'charges:read' },
      422,
      'parameter_invalid',
      'permissions',
    ],
    ['an unknown environment', { environment: 'prod' }, 422, 'parameter_invalid', 'environment'],
    [
      'a zero rate limit',
      { rate_limit_per_second: 0 },
      422,
      'parameter_invalid',
      'rate_limit_per_second',
    ],
    [
      'a secret chosen by the caller',
      { secret: 'sk_test_mine' },
      422,
      'parameter_unknown',
      'secret',
    ],
    ['an unknown tenant', { tenant_id: 'ten_unknown' }, 404, 'resource_not_found', 'tenant_id'],
    ['a malformed tenant id', { tenant_id: 'tenant-1' }, 404, 'resource_not_found', 'tenant_id'],
    ['an unknown seller', { seller_id: 'seller_unknown' }, 404, 'resource_not_found', 'seller_id'],
  ])('refuses %s', async (_name, override, status, code, param) => {
    const res = await f.admin('POST', '/admin/v1/api-keys', {
      tenant_id: tenantId,
      permissions: ['charges:read'],
      ...override,
    });
    expect(res.statusCode).toBe(status);
    expect(res.json().error).toMatchObject({ code, param });
  });

  it('refuses a seller of another tenant: a key never spans two tenants', async () => {
    const otherTenant = await createTenant(f);
    const foreignSeller = await createSeller(f, otherTenant);
    const res = await f.admin('POST', '/admin/v1/api-keys', {
      tenant_id: tenantId,
      seller_id: foreignSeller,
      permissions: ['charges:read'],
    });
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toMatchObject({ code: 'resource_not_found', param: 'seller_id' });
  });

  it('accepts every permission of api-v1 §5', async () => {
    const res = await f.admin('POST', '/admin/v1/api-keys', {
      tenant_id: tenantId,
      seller_id: sellerId,
      permissions: [...PERMISSIONS],
    });
    expect(res.json().permissions).toEqual([...PERMISSIONS]);
  });

  it('revokes (DELETE): the key answers 401 api_key_revoked from then on; revoking again is harmless; unknown ids are 404', async () => {
    const key = (
      await f.admin('POST', '/admin/v1/api-keys', {
        tenant_id: tenantId,
        permissions: ['charges:read'],
      })
    ).json();
    expect(
      (await f.app.inject({ url: '/api/v1/charges/ch_1', headers: bearer(key.secret) })).statusCode,
    ).toBe(200);
    const first = await f.admin('DELETE', `/admin/v1/api-keys/${key.id}`);
    const res = await f.app.inject({ url: '/api/v1/charges/ch_1', headers: bearer(key.secret) });
    expect(res.statusCode).toBe(401);
    expect(res.json().error).toMatchObject({
      type: 'authentication_error',
      code: 'api_key_revoked',
    });
    f.clock.advanceDays(1);
    const second = await f.admin('DELETE', `/admin/v1/api-keys/${key.id}`);
    expect(second.statusCode).toBe(200);
    expect(second.json().revoked_at).toBe(first.json().revoked_at);
    for (const id of ['key_unknown', 'nope', 'key_with-dash']) {
      const missing = await f.admin('DELETE', `/admin/v1/api-keys/${id}`);
      expect([id, missing.statusCode, missing.json().error.code]).toEqual([
        id,
        404,
        'resource_not_found',
      ]);
    }
  });

  describe('GET /admin/v1/tenants/{tenant_id}/api-keys', () => {
    it("pages the tenant's keys only, newest first, revoked ones included, never a secret or its hash", async () => {
      // Proves the operator sees every key of a tenant (to revoke one) and that the list holds nothing that authenticates.
      const listed = await createTenant(f);
      const seller = await createSeller(f, listed);
      const otherTenant = await createTenant(f);
      const keys: Array<{ id: string; secret: string }> = [];
      for (let i = 0; i < 3; i += 1) {
        f.clock.advanceDays(1);
        keys.push(
          await createKey(f, {
            tenantId: listed,
            sellerId: i === 1 ? seller : null,
            environment: i === 2 ? 'live' : 'test',
            permissions: ['charges:read'],
          }),
        );
        await createKey(f, { tenantId: otherTenant, permissions: ['charges:read'] });
      }
      expect((await f.admin('DELETE', `/admin/v1/api-keys/${keys[0]!.id}`)).statusCode).toBe(200);
      const pages = await everyPage(f, `/admin/v1/tenants/${listed}/api-keys`, 2);
      expect(idsOf(pages)).toEqual(keys.map((k) => k.id).reverse());
      const listedKeys = pages.flatMap((p) => p.data);
      expect(listedKeys.map((k) => [k.tenant_id, k.seller_id, k.environment, k.status])).toEqual([
        [listed, null, 'live', 'active'],
        [listed, seller, 'test', 'active'],
        [listed, null, 'test', 'revoked'],
      ]);
      expect(listedKeys[0]).toEqual({
        object: 'api_key',
        id: keys[2]!.id,
        tenant_id: listed,
        seller_id: null,
        environment: 'live',
        livemode: true,
        secret_last4: keys[2]!.secret.slice(-4),
        permissions: ['charges:read'],
        rate_limit_per_second: null,
        status: 'active',
        created_at: f.clock.now().toISOString(),
        revoked_at: null,
      });
      const hashes: Array<{ secret_sha256: string }> = await f
        .knex('gateway.api_keys')
        .where({ tenant_id: listed })
        .select('secret_sha256');
      expect(hashes).toHaveLength(3);
      for (const page of pages) {
        for (const secret of [...keys.map((k) => k.secret), ...hashes.map((h) => h.secret_sha256)])
          expect(JSON.stringify(page)).not.toContain(secret);
        expect(JSON.stringify(page)).not.toMatch(/sk_(test|live)_/);
      }
    });

    it('answers 404 for an unknown tenant and needs the admin token', async () => {
      await expectUnknownTenantNotFound(f, (id) => `/admin/v1/tenants/${id}/api-keys`);
      await expectAdminTokenRequired(f, `/admin/v1/tenants/${tenantId}/api-keys`);
    });
  });
});
