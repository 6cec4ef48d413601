// Paging, filters and scoping of every list and retrieval the two services answer, and the operator
// job routes. After every scenario the shared invariant checker runs (invariants.ts).
import { createPgliteKnex } from '@pgw/platform-db';
import { PRINCIPAL_HEADER } from '@pgw/platform-http';
import { Money } from './money.scenarios';
import { checkInvariants, type ChargeExpectation } from './invariants';

// The embedded database boots in seconds on a busy machine: one per file, and room for it.
jest.setTimeout(60_000);
const knex = createPgliteKnex(null);
afterAll(() => knex.destroy());

describe('lists, retrieval and jobs', () => {
  let money: Money;
  const charges = new Map<string, ChargeExpectation>();

  beforeAll(async () => {
    money = await Money.start(knex);
    await money.publish(money.seller('seller_own'), money.seller('seller_other'));
    // 5 charges of 1x and one of 3x: 8 receivables; 2 Pix available at once.
    for (let i = 0; i < 5; i++) {
      const c = money.charge(i < 2 ? 'seller_other' : 'seller_own', {
        payment_method: i < 2 ? 'pix' : 'credit_card',
        amount_cents: 1_000 + i,
      });
      await money.publish(money.paid(c));
      charges.set(c.charge_id, { grossCents: c.amount_cents });
    }
    const three = money.charge('seller_own', { installments: 3 });
    await money.publish(money.paid(three));
    charges.set(three.charge_id, { grossCents: 10_000 });
    await money.job('settlement-run', '2026-03-02');
  });

  afterAll(async () => {
    try {
      await checkInvariants(money, charges);
    } finally {
      await money.stop();
    }
  });

  afterEach(() => checkInvariants(money, charges));

  it('pages receivables most recent first, with the list envelope, and filters by status', async () => {
    const all = await money.get('/api/v1/receivables?limit=3&page=1');
    expect(all.statusCode).toBe(200);
    expect(all.body).toMatchObject({
      object: 'list',
      page: 1,
      limit: 3,
      total: 8,
      total_pages: 3,
      request_id: expect.stringMatching(/^req_/),
    });
    expect(all.body.data).toHaveLength(3);
    expect(all.body.data[0].installments).toBe(3); // the 3x charge came last
    const pages = [1, 2, 3].map((page) => money.get(`/api/v1/receivables?limit=3&page=${page}`));
    const ids = (await Promise.all(pages)).flatMap((p) => p.body.data.map((r: any) => r.id));
    expect(new Set(ids).size).toBe(8);
    const beyond = await money.get('/api/v1/receivables?limit=3&page=4');
    expect(beyond.body).toMatchObject({ data: [], total: 8, page: 4 });
    const paid = await money.get('/api/v1/receivables?status=paid');
    expect(paid.body.data.map((r: any) => r.status)).toEqual(['paid', 'paid']);
    expect((await money.get('/api/v1/receivables?status=pending')).body.total).toBe(6);
    expect((await money.get('/api/v1/receivables?status=anticipated')).body.total).toBe(0);
  });

  it("narrows receivables to one charge's with charge_id, and refuses an id that is not a charge's", async () => {
    // Proves the filter the dashboard's charge page reads: the 3x charge's three installments, nothing of another seller's charge to a seller key.
    const three = [...charges.keys()].pop()!;
    const own = await money.get(`/api/v1/receivables?charge_id=${three}`);
    expect(own.body.data.map((r: any) => [r.charge_id, r.installment]).sort()).toEqual([
      [three, 1],
      [three, 2],
      [three, 3],
    ]);
    expect(own.body.total).toBe(3);
    const otherSellers = [...charges.keys()][0]!;
    expect(
      (
        await money.get(
          `/api/v1/receivables?charge_id=${otherSellers}`,
          money.principal({ sellerId: 'seller_own' }),
        )
      ).body.total,
    ).toBe(0);
    expect((await money.get(`/api/v1/receivables?charge_id=${otherSellers}`)).body.total).toBe(1);
    const invalid = await money.get('/api/v1/receivables?charge_id=recv_1');
    expect([invalid.statusCode, invalid.body.error.code, invalid.body.error.param]).toEqual([
      422,
      'parameter_invalid',
      'charge_id',
    ]);
  });

  it('scopes the lists to the key seller, when the key has one', async () => {
    const mine = await money.get(
      '/api/v1/receivables',
      money.principal({ sellerId: 'seller_other' }),
    );
    expect(mine.body.total).toBe(2);
    expect(mine.body.data.every((r: any) => r.seller_id === 'seller_other')).toBe(true);
    expect(
      (await money.get('/api/v1/settlements', money.principal({ sellerId: 'seller_own' }))).body
        .total,
    ).toBe(0);
  });

  it.each([
    ['/api/v1/receivables?status=settled', 'status'],
    ['/api/v1/receivables?page=0', 'page'],
    ['/api/v1/receivables?limit=101', 'limit'],
    ['/api/v1/receivables?limit=0', 'limit'],
    ['/api/v1/receivables?limit=abc', 'limit'],
    ['/api/v1/receivables?page=1.5', 'page'],
    ['/api/v1/settlements?status=done', 'status'],
    ['/api/v1/settlements?page=0', 'page'],
    ['/api/v1/settlements?limit=101', 'limit'],
    ['/api/v1/settlements?limit=abc', 'limit'],
  ])('answers 422 parameter_invalid for %s', async (url, param) => {
    const res = await money.get(url);
    expect(res.statusCode).toBe(422);
    expect(res.body.error).toMatchObject({
      type: 'invalid_request_error',
      code: 'parameter_invalid',
      param,
    });
  });

  it.each([
    ['/api/v1/balance/history?page=0', 'page'],
    ['/api/v1/balance/history?limit=101', 'limit'],
    ['/api/v1/balance/history?limit=abc', 'limit'],
  ])('answers 422 parameter_invalid for %s', async (url, param) => {
    const res = await money.get(url, money.principal({ sellerId: 'seller_own' }));
    expect(res.statusCode).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'parameter_invalid', param });
  });

  it('pages the balance history most recent first', async () => {
    const p = money.principal({ sellerId: 'seller_other' });
    const first = await money.get('/api/v1/balance/history?limit=2', p);
    expect(first.body).toMatchObject({
      object: 'list',
      page: 1,
      limit: 2,
      total: 3,
      total_pages: 2,
    });
    expect(first.body.data.map((t: any) => t.type)).toEqual(['payout.paid', 'charge.sale']);
    const second = await money.get('/api/v1/balance/history?limit=2&page=2', p);
    expect(second.body.data.map((t: any) => [t.type, t.amount_cents])).toEqual([
      ['charge.sale', 1000 - 10],
    ]);
  });

  it('retrieves a receivable and a settlement, and answers 404 for a bad pattern, another tenant or the other environment', async () => {
    const [r] = (await money.get('/api/v1/receivables?status=paid&limit=1')).body.data;
    const one = await money.get(`/api/v1/receivables/${r.id}`);
    expect(one.body).toEqual({ ...r, request_id: expect.stringMatching(/^req_/) });
    const [s] = (await money.get('/api/v1/settlements')).body.data;
    expect((await money.get(`/api/v1/settlements/${s.id}`)).statusCode).toBe(200);
    for (const url of [`/api/v1/receivables/${r.id}`, `/api/v1/settlements/${s.id}`]) {
      expect(
        (await money.get(url, money.principal({ tenantId: 'ten_someoneelse' }))).statusCode,
      ).toBe(404);
      expect((await money.get(url, money.principal({ livemode: true }))).statusCode).toBe(404);
    }
    for (const url of [
      '/api/v1/receivables/recv_nope',
      '/api/v1/receivables/ch_abc',
      '/api/v1/receivables/recv_a-b',
      '/api/v1/settlements/set_nope',
      '/api/v1/settlements/recv_x',
    ]) {
      const res = await money.get(url);
      expect(res.statusCode).toBe(404);
      expect(res.body.error).toMatchObject({ type: 'not_found_error', code: 'resource_not_found' });
    }
  });

  it('checks permissions and seller scope itself, whatever the gateway did', async () => {
    expect(
      (
        await money.get(
          '/api/v1/receivables',
          money.principal({ permissions: ['settlements:read'] }),
        )
      ).statusCode,
    ).toBe(403);
    expect(
      (
        await money.get(
          '/api/v1/settlements',
          money.principal({ permissions: ['receivables:read'] }),
        )
      ).statusCode,
    ).toBe(403);
    const noSeller = await money.get('/api/v1/balance');
    expect(noSeller.statusCode).toBe(403);
    expect(noSeller.body.error.code).toBe('seller_scope_required');
    expect(
      (await money.receivables.app.inject({ method: 'GET', url: '/api/v1/receivables' }))
        .statusCode,
    ).toBe(401);
  });

  it('runs jobs only for the operator, with a valid as_of_date, defaulting to the clock today', async () => {
    const asKey = await money.receivables.app.inject({
      method: 'POST',
      url: '/admin/v1/jobs/settlement-run',
      headers: { [PRINCIPAL_HEADER]: money.principal() },
    });
    expect(asKey.statusCode).toBe(401);
    for (const payload of [
      { as_of_date: '2026-02-30' },
      { as_of_date: 'tomorrow' },
      { as_of_date: 20260302 },
      { when: '2026-03-02' },
    ]) {
      const res = await money.receivables.app.inject({
        method: 'POST',
        url: '/admin/v1/jobs/receivables-release',
        headers: { [PRINCIPAL_HEADER]: money.operatorPrincipal() },
        payload,
      });
      expect(res.statusCode).toBe(422);
    }
    money.clock.set(new Date('2026-03-05T10:00:00Z'));
    const res = await money.job('receivables-release');
    expect(res.body).toMatchObject({
      job: 'receivables-release',
      as_of_date: '2026-03-05',
      processed: 0,
    });
  });
});
