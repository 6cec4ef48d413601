import {
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
  list,
} from '../testing/operator-lists.fixture';

describe('the operator API: GET /admin/v1/tenants/{tenant_id}/sellers', () => {
  let f: Fixture;
  let tenantId: string;
  const created: string[] = [];

  beforeAll(async () => {
    f = await startFixture();
    tenantId = await createTenant(f);
    const otherTenant = await createTenant(f);
    for (let i = 0; i < 5; i += 1) {
      f.clock.advanceDays(1);
      created.push(
        await createSeller(f, tenantId, {
          name: `Vendedor ${i}`,
          ...(i % 2 === 0 ? { kyc_status: 'approved' } : {}),
        }),
      );
      await createSeller(f, otherTenant);
    }
  });
  afterAll(() => stopFixture(f));

  it("pages the tenant's sellers only, newest first, each with its KYC status", async () => {
    // Proves the operator sees a tenant's sellers without their ids, and none of another tenant's.
    const pages = await everyPage(f, `/admin/v1/tenants/${tenantId}/sellers`, 2);
    expect(idsOf(pages)).toEqual([...created].reverse());
    expect(pages.flatMap((p) => p.data.map((s) => [s.tenant_id, s.kyc_status]))).toEqual([
      [tenantId, 'approved'],
      [tenantId, 'pending'],
      [tenantId, 'approved'],
      [tenantId, 'pending'],
      [tenantId, 'approved'],
    ]);
    expect(pages[0]!.data[0]).toMatchObject({
      object: 'seller',
      name: 'Vendedor 4',
      document: expect.stringMatching(/^\d{11}$|^\d{14}$/),
      mdr_bps: expect.any(Object),
    });
    expect(pages[0]!.data[0]).not.toHaveProperty('request_id');
  });

  it('filters by KYC status: the sellers waiting for approval', async () => {
    // Proves kyc_status=pending answers exactly the pending sellers, with a total that counts them alone.
    const pending = await list(f, `/admin/v1/tenants/${tenantId}/sellers?kyc_status=pending`);
    expect([pending.total, pending.data.map((s) => s.id)]).toEqual([2, [created[3], created[1]]]);
    const bad = await f.admin('GET', `/admin/v1/tenants/${tenantId}/sellers?kyc_status=maybe`);
    expect([bad.statusCode, bad.json().error.param]).toEqual([422, 'kyc_status']);
  });

  it('answers 404 for an unknown tenant and needs the admin token', async () => {
    await expectUnknownTenantNotFound(f, (id) => `/admin/v1/tenants/${id}/sellers`);
    await expectAdminTokenRequired(f, `/admin/v1/tenants/${tenantId}/sellers`);
  });
});
