import { createTenant, startFixture, stopFixture, type Fixture } from '../testing/gateway-fixture';
import {
  everyPage,
  expectAdminTokenRequired,
  idsOf,
  list,
} from '../testing/operator-lists.fixture';

describe('the operator API: GET /admin/v1/tenants', () => {
  let f: Fixture;

  beforeAll(async () => {
    f = await startFixture();
  });
  afterAll(() => stopFixture(f));

  it('pages every tenant, newest first, in the list envelope', async () => {
    // Proves an operator finds tenants without knowing their ids: each one once, the last created first.
    const created: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      f.clock.advanceDays(1);
      created.push(await createTenant(f, { name: `Marketplace ${i}` }));
    }
    const pages = await everyPage(f, '/admin/v1/tenants', 2);
    expect(pages[0]!.total).toBe(5);
    expect(idsOf(pages)).toEqual([...created].reverse());
    expect(pages[0]!.data[0]).toEqual({
      object: 'tenant',
      id: created[4],
      name: 'Marketplace 4',
      treasury_available_cash_cents: expect.any(Number),
      created_at: f.clock.now().toISOString(),
      updated_at: f.clock.now().toISOString(),
    });
  });

  it('puts tenants created in the same instant each on exactly one page', async () => {
    // Proves the order has a tie-break: with the clock stopped, no tenant is on two pages or on none.
    f.clock.advanceDays(1);
    const sameInstant = [await createTenant(f), await createTenant(f), await createTenant(f)];
    const ids = idsOf(await everyPage(f, '/admin/v1/tenants', 1));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.slice(0, 3).sort()).toEqual([...sameInstant].sort());
  });

  it('refuses paging out of range with 422 on the parameter', async () => {
    // Proves the list takes contract §2's paging: limit 1 to 100, page from 1.
    for (const [query, param] of [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['page=0', 'page'],
      ['page=x', 'page'],
    ]) {
      const res = await f.admin('GET', `/admin/v1/tenants?${query}`);
      expect([query, res.statusCode, res.json().error.param]).toEqual([query, 422, param]);
    }
    expect((await list(f, '/admin/v1/tenants?page=1000')).data).toEqual([]);
  });

  it('needs the admin token', async () => {
    await expectAdminTokenRequired(f, '/admin/v1/tenants');
  });
});
