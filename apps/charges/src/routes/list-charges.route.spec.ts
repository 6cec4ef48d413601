// Proves GET /api/v1/charges lists what the key may read, newest first, across pages, narrowed by each
// filter, and refuses a filter value outside the contract's.
import { createPgliteKnex } from '@pgw/platform-db';
import { PRINCIPAL_HEADER } from '@pgw/platform-http';
import {
  apiKey,
  buyer,
  cardCharge,
  get,
  merchant,
  post,
  startCharges,
  type Harness,
  type Merchant,
} from '../testing/harness';

const knex = createPgliteKnex(null);
let h: Harness;
let m: Merchant;
const made: Array<{ id: string; status: string; payment_method: string; created_at: string }> = [];

beforeAll(async () => {
  h = await startCharges(knex);
  m = await merchant(h);
  const bodies = [
    cardCharge(m.token()),
    { amount: 2_500, payment_method: 'PIX', buyer: buyer() },
    cardCharge(m.token('4000000000000002'), { amount: 700 }),
  ];
  for (const [i, body] of bodies.entries()) {
    const answer = await post(
      h,
      '/api/v1/charges',
      { ...m.key, 'idempotency-key': `list-${i}` },
      body,
    );
    expect(answer.statusCode).toBe(201);
    made.push(answer.json());
  }
}, 60_000);

afterAll(async () => {
  await h.stop();
  await knex.destroy();
});

const list = async (query: string, key: Record<string, string> = m.key) => {
  const answer = await get(h, `/api/v1/charges${query}`, key);
  return { status: answer.statusCode, body: answer.json() };
};

describe('GET /api/v1/charges', () => {
  it('lists the seller’s charges newest first, as the list envelope, page by page', async () => {
    // Proves the order and the paging a dashboard relies on: three charges, two pages of two.
    const first = await list('?limit=2');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      object: 'list',
      page: 1,
      limit: 2,
      total: 3,
      total_pages: 2,
    });
    const second = await list('?limit=2&page=2');
    const ids = [...first.body.data, ...second.body.data].map((c: { id: string }) => c.id);
    expect(ids).toEqual(made.map((c) => c.id).reverse());
    expect(first.body.data[0]).not.toHaveProperty('request_id');
  });

  it('narrows by status, payment method and creation instant', async () => {
    // Proves each filter alone selects exactly the charges that match it.
    const refused = await list('?status=refused');
    expect(refused.body.data.map((c: { id: string }) => c.id)).toEqual(
      made.filter((c) => c.status === 'refused').map((c) => c.id),
    );
    const pix = await list('?payment_method=pix');
    expect(pix.body.data.map((c: { payment_method: string }) => c.payment_method)).toEqual(['pix']);
    const from = encodeURIComponent(made[1]!.created_at);
    const since = await list(`?created_from=${from}`);
    expect(since.body.data.map((c: { id: string }) => c.id)).toEqual(
      made
        .slice(1)
        .map((c) => c.id)
        .reverse(),
    );
    const before = await list(`?created_to=${from}`);
    expect(before.body.data.map((c: { id: string }) => c.id)).toEqual([made[0]!.id]);
  });

  it('shows nothing of another tenant, and nothing of another seller to a seller-scoped key', async () => {
    // Proves the scope: a second merchant's key sees an empty list; its own charges only once it has one.
    const other = await merchant(h);
    expect((await list('', other.key)).body).toMatchObject({ data: [], total: 0 });
    const neighbour = {
      [PRINCIPAL_HEADER]: apiKey({ tenantId: m.tenantId, sellerId: 'seller_neighbour' }),
    };
    expect((await list('', neighbour)).body.total).toBe(0);
    const tenantWide = { [PRINCIPAL_HEADER]: apiKey({ tenantId: m.tenantId, sellerId: null }) };
    expect((await list('', tenantWide)).body.total).toBe(3);
  });

  it('refuses an unknown status, a date that is not an instant and a page size above 100', async () => {
    // Proves the filters are validated like every other parameter (422 parameter_invalid with its param).
    for (const [query, param] of [
      ['?status=settled', 'status'],
      ['?created_from=yesterday', 'created_from'],
      ['?limit=101', 'limit'],
    ]) {
      const answer = await list(query!);
      expect([answer.status, answer.body.error.code, answer.body.error.param]).toEqual([
        422,
        'parameter_invalid',
        param,
      ]);
    }
  });
});
