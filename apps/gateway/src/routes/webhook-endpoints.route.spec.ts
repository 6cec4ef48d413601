import { createTenant, startFixture, stopFixture, type Fixture } from '../testing/gateway-fixture';
import {
  everyPage,
  expectAdminTokenRequired,
  expectUnknownTenantNotFound,
  idsOf,
} from '../testing/operator-lists.fixture';

describe('the operator API: GET /admin/v1/tenants/{tenant_id}/webhook-endpoints', () => {
  let f: Fixture;
  let tenantId: string;
  const created: Array<{ id: string; secret: string }> = [];

  beforeAll(async () => {
    f = await startFixture();
    tenantId = await createTenant(f);
    const otherTenant = await createTenant(f);
    for (let i = 0; i < 3; i += 1) {
      f.clock.advanceDays(1);
      const body = {
        url: `https://hooks.example.com/${i}`,
        ...(i === 2 ? { events: ['charge.paid'], environment: 'live' } : {}),
      };
      const res = await f.admin('POST', `/admin/v1/tenants/${tenantId}/webhook-endpoints`, body);
      expect(res.statusCode).toBe(201);
      created.push({ id: res.json().id, secret: res.json().secret });
      expect(
        (await f.admin('POST', `/admin/v1/tenants/${otherTenant}/webhook-endpoints`, body))
          .statusCode,
      ).toBe(201);
    }
  });
  afterAll(() => stopFixture(f));

  it("pages the tenant's endpoints only, newest first, and never their signing secrets", async () => {
    // Proves the operator finds an endpoint (to open its deliveries) without its id, and a list leaks no whsec_.
    const pages = await everyPage(f, `/admin/v1/tenants/${tenantId}/webhook-endpoints`, 2);
    expect(idsOf(pages)).toEqual(created.map((e) => e.id).reverse());
    expect(pages[0]!.data[0]).toEqual({
      object: 'webhook_endpoint',
      id: created[2]!.id,
      tenant_id: tenantId,
      url: 'https://hooks.example.com/2',
      events: ['charge.paid'],
      environment: 'live',
      livemode: true,
      created_at: f.clock.now().toISOString(),
      updated_at: f.clock.now().toISOString(),
    });
    for (const page of pages) {
      expect(page.data.every((e) => e.tenant_id === tenantId)).toBe(true);
      expect(JSON.stringify(page)).not.toMatch(/whsec_/);
    }
  });

  it('drops a deleted endpoint', async () => {
    // Proves the list is the directory as it is: DELETE removes the endpoint from it.
    expect(
      (await f.admin('DELETE', `/admin/v1/webhook-endpoints/${created[1]!.id}`)).statusCode,
    ).toBe(200);
    const ids = idsOf(await everyPage(f, `/admin/v1/tenants/${tenantId}/webhook-endpoints`, 50));
    expect(ids).toEqual([created[2]!.id, created[0]!.id]);
  });

  it('answers 404 for an unknown tenant and needs the admin token', async () => {
    await expectUnknownTenantNotFound(f, (id) => `/admin/v1/tenants/${id}/webhook-endpoints`);
    await expectAdminTokenRequired(f, `/admin/v1/tenants/${tenantId}/webhook-endpoints`);
  });
});
