import { PRINCIPAL_HEADER } from '@pgw/platform-http';
import { apiKey, asOperator, cardCharge, get, post } from '../testing/harness';
import { chargeLifecycle } from '../testing/lifecycle';

const life = chargeLifecycle();

/** A paid card charge of `amount` cents, charged back by the operator's simulation; the chargeback. */
async function chargedBack(amount: number): Promise<{ id: string; charge_id: string }> {
  const paid = await post(life.h, '/api/v1/charges', life.m.key, {
    ...cardCharge(life.m.token()),
    amount,
  });
  expect(paid.json().status).toBe('paid');
  const opened = await post(life.h, '/admin/v1/simulations/chargebacks', asOperator(), {
    charge_id: paid.json().id,
  });
  expect(opened.statusCode).toBe(201);
  return opened.json();
}

describe('GET /api/v1/chargebacks and /api/v1/chargebacks/{id}', () => {
  it('reads a chargeback by its id as it was opened, and lists them most recent first, paged with the total', async () => {
    // Proves the integrator reads what the operator opened, and the list envelope's paging.
    const first = await chargedBack(3_000);
    life.clock.set(new Date(life.clock.now().getTime() + 1_000));
    const second = await chargedBack(4_000);
    const { request_id: _opened, ...opened } = second as typeof second & { request_id: string };
    const one = await get(life.h, `/api/v1/chargebacks/${second.id}`, life.m.key);
    expect(one.statusCode).toBe(200);
    const { request_id, ...read } = one.json();
    expect(read).toEqual(opened);
    expect(request_id).toMatch(/^req_/);
    expect(read).toMatchObject({
      charge_id: second.charge_id,
      amount_cents: 4_000,
      status: 'open',
    });

    const page1 = (await get(life.h, '/api/v1/chargebacks?limit=1', life.m.key)).json();
    expect(page1).toMatchObject({ object: 'list', page: 1, limit: 1, total: 2, total_pages: 2 });
    expect(page1.data.map((c: { id: string }) => c.id)).toEqual([second.id]);
    const page2 = (await get(life.h, '/api/v1/chargebacks?limit=1&page=2', life.m.key)).json();
    expect(page2.data.map((c: { id: string }) => c.id)).toEqual([first.id]);
    const past = (await get(life.h, '/api/v1/chargebacks?limit=1&page=3', life.m.key)).json();
    expect(past).toMatchObject({ data: [], total: 2 });
  });

  it('is 404 for an id that is not a chargeback id or names none, 422 for a bad page, and 403 without chargebacks:read', async () => {
    // Proves the path and query rules, and that the permission is required on both routes.
    for (const id of ['cb_not-an-id', 'cb_doesnotexist', 'ch_abc']) {
      const res = await get(life.h, `/api/v1/chargebacks/${id}`, life.m.key);
      expect([res.statusCode, res.json().error.code]).toEqual([404, 'resource_not_found']);
    }
    const badPage = await get(life.h, '/api/v1/chargebacks?page=0', life.m.key);
    expect([badPage.statusCode, badPage.json().error.param]).toEqual([422, 'page']);
    const cb = await chargedBack(1_000);
    const chargesOnly = {
      [PRINCIPAL_HEADER]: apiKey({
        tenantId: life.m.tenantId,
        sellerId: life.m.sellerId,
        permissions: ['charges:read'],
      }),
    };
    expect((await get(life.h, `/api/v1/chargebacks/${cb.id}`, chargesOnly)).statusCode).toBe(403);
    expect((await get(life.h, '/api/v1/chargebacks', chargesOnly)).statusCode).toBe(403);
  });
});
