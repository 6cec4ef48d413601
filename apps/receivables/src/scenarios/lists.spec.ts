// The balance and its history as the ledger books receivables' events: paging and errors, read through
// the ledger that money.scenarios.ts runs beside receivables. The invariant checker runs after each test.
import { listsFixture } from './lists.fixture';

const lists = listsFixture();

describe("the balance and its history, booked from receivables' events", () => {
  it('pages the balance history most recent first', async () => {
    const p = lists.money.principal({ sellerId: 'seller_other' });
    const first = await lists.money.get('/api/v1/balance/history?limit=2', p);
    expect(first.body).toMatchObject({
      object: 'list',
      page: 1,
      limit: 2,
      total: 3,
      total_pages: 2,
    });
    expect(first.body.data.map((t: any) => t.type)).toEqual(['payout.paid', 'charge.sale']);
    const second = await lists.money.get('/api/v1/balance/history?limit=2&page=2', p);
    expect(second.body.data.map((t: any) => [t.type, t.amount_cents])).toEqual([
      ['charge.sale', 1000 - 10],
    ]);
  });

  it.each([
    ['/api/v1/balance/history?page=0', 'page'],
    ['/api/v1/balance/history?limit=101', 'limit'],
    ['/api/v1/balance/history?limit=abc', 'limit'],
  ])('answers 422 parameter_invalid for %s', async (url, param) => {
    const res = await lists.money.get(url, lists.money.principal({ sellerId: 'seller_own' }));
    expect(res.statusCode).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'parameter_invalid', param });
  });

  it('answers the balance only to a seller-scoped key', async () => {
    const noSeller = await lists.money.get('/api/v1/balance');
    expect(noSeller.statusCode).toBe(403);
    expect(noSeller.body.error.code).toBe('seller_scope_required');
  });
});
