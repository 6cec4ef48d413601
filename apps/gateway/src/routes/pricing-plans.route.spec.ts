import { createTenant, startFixture, stopFixture, type Fixture } from '../testing/gateway-fixture';
import {
  everyPage,
  expectAdminTokenRequired,
  expectUnknownTenantNotFound,
  idsOf,
} from '../testing/operator-lists.fixture';

describe('the operator API: GET /admin/v1/tenants/{tenant_id}/pricing-plans', () => {
  let f: Fixture;
  let tenantId: string;
  const created: string[] = [];

  beforeAll(async () => {
    f = await startFixture();
    tenantId = await createTenant(f);
    const otherTenant = await createTenant(f);
    for (let i = 0; i < 3; i += 1) {
      f.clock.advanceDays(1);
      const body = {
        name: `Plano ${i}`,
        fee_bps_per_month: 150 + i,
        settlement_delay_days: 30,
        default: i === 1,
      };
      const res = await f.admin('POST', `/admin/v1/tenants/${tenantId}/pricing-plans`, body);
      expect(res.statusCode).toBe(201);
      created.push(res.json().id);
      expect(
        (await f.admin('POST', `/admin/v1/tenants/${otherTenant}/pricing-plans`, body)).statusCode,
      ).toBe(201);
    }
  });
  afterAll(() => stopFixture(f));

  it("pages the tenant's plans only, newest first, with their terms and which is the default", async () => {
    // Proves the operator reads every plan of a tenant as created: fee, delay, MDR, and the one default.
    const pages = await everyPage(f, `/admin/v1/tenants/${tenantId}/pricing-plans`, 2);
    expect(idsOf(pages)).toEqual([...created].reverse());
    const plans = pages.flatMap((p) => p.data);
    expect(plans.map((p) => [p.tenant_id, p.name, p.fee_bps_per_month, p.default])).toEqual([
      [tenantId, 'Plano 2', 152, false],
      [tenantId, 'Plano 1', 151, true],
      [tenantId, 'Plano 0', 150, false],
    ]);
    expect(plans[0]).toMatchObject({
      object: 'pricing_plan',
      settlement_delay_days: 30,
      mdr_bps: {
        credit_card: expect.any(Number),
        debit_card: expect.any(Number),
        pix: expect.any(Number),
        boleto: expect.any(Number),
      },
    });
  });

  it('shows a change made by PATCH', async () => {
    // Proves the list reads the directory as it is now, not as the plan was created.
    expect(
      (await f.admin('PATCH', `/admin/v1/pricing-plans/${created[0]}`, { default: true }))
        .statusCode,
    ).toBe(200);
    const plans = (await everyPage(f, `/admin/v1/tenants/${tenantId}/pricing-plans`, 50)).flatMap(
      (p) => p.data,
    );
    expect(plans.filter((p) => p.default).map((p) => p.id)).toEqual([created[0]]);
  });

  it('answers 404 for an unknown tenant and needs the admin token', async () => {
    await expectUnknownTenantNotFound(f, (id) => `/admin/v1/tenants/${id}/pricing-plans`);
    await expectAdminTokenRequired(f, `/admin/v1/tenants/${tenantId}/pricing-plans`);
  });
});
