// GET /api/v1/balance/history: paged from the count kept per batch, each seller and environment apart.
import { uniqueName } from '@pgw/testing';
import { ledgerFixture } from '../testing/ledger-fixture';

const { knex, bus, db, movement, sale, get } = ledgerFixture();

describe('GET /api/v1/balance/history', () => {
  it('pages the history with its total from the seller count kept per batch: every page, past the end, each seller and environment apart', async () => {
    // Proves history_counts: written once per batch, a repeat and a move between the seller's own
    // buckets not counted, and each page of the public paging contract (api-v1 list envelope) exact.
    const tenant = uniqueName('ten');
    const at = (minute: number) => Date.parse('2026-03-01T10:00:00Z') + minute * 60_000;
    const sales = Array.from({ length: 7 }, (_, i) => sale(tenant, 100 + i, 1, at(i)));
    const other = movement(
      tenant,
      'seller_2',
      { pending_delta_cents: 50, fee_delta_cents: 1, gross_delta_cents: 51 },
      at(3),
    );
    const live = movement(
      tenant,
      'seller_1',
      { pending_delta_cents: 999, fee_delta_cents: 1, gross_delta_cents: 1000 },
      at(4),
      true,
    );
    const released = movement(
      tenant,
      'seller_1',
      { type: 'receivable.released', pending_delta_cents: -100, available_delta_cents: 100 },
      at(8),
    );
    const historyWrites: string[] = [];
    const count = (query: { sql: string }) => {
      if (/\binsert into "?history_counts\b/.test(query.sql)) historyWrites.push(query.sql);
    };
    knex.on('query', count);
    await bus.publish([...sales.slice(0, 4), other, released]);
    knex.off('query', count);
    expect(historyWrites).toHaveLength(1);
    await bus.publish([sales[0]!, ...sales.slice(4), sales[6]!, live]);

    const counts = (await db.read((q) =>
      q('history_counts').where({ tenant_id: tenant }).orderBy(['seller_id', 'livemode']),
    )) as Array<Record<string, unknown>>;
    expect(counts.map((c) => [c.seller_id, c.livemode, Number(c.entries)])).toEqual([
      ['seller_1', false, 7],
      ['seller_1', true, 1],
      ['seller_2', false, 1],
    ]);
    const all = (await get('/api/v1/balance/history?limit=100', tenant)).json();
    expect(all).toMatchObject({ total: 7, total_pages: 1 });
    const pages = [];
    for (let page = 1; page <= 4; page++)
      pages.push((await get(`/api/v1/balance/history?limit=3&page=${page}`, tenant)).json());
    expect(pages.map((p) => [p.page, p.limit, p.total, p.total_pages, p.data.length])).toEqual([
      [1, 3, 7, 3, 3],
      [2, 3, 7, 3, 3],
      [3, 3, 7, 3, 1],
      [4, 3, 7, 3, 0],
    ]);
    expect(pages.flatMap((p) => p.data)).toEqual(all.data);
    expect(all.data.map((t: { amount_cents: number }) => t.amount_cents)).toEqual([
      106, 105, 104, 103, 102, 101, 100,
    ]);
    expect((await get('/api/v1/balance/history', tenant, 'seller_2')).json()).toMatchObject({
      total: 1,
      data: [{ amount_cents: 50 }],
    });
  });

  it('is for a seller-scoped key only, and an empty list for a seller without entries', async () => {
    const tenant = uniqueName('ten');
    expect((await get('/api/v1/balance/history', tenant, null)).json().error.code).toBe(
      'seller_scope_required',
    );
    expect((await get('/api/v1/balance/history', tenant, 'seller_new')).json()).toMatchObject({
      data: [],
      total: 0,
      total_pages: 0,
    });
  });

  it.each([
    ['page=0', 'page'],
    ['limit=101', 'limit'],
    ['limit=abc', 'limit'],
  ])('answers 422 parameter_invalid for ?%s', async (query, param) => {
    const res = await get(`/api/v1/balance/history?${query}`, uniqueName('ten'));
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toMatchObject({ code: 'parameter_invalid', param });
  });
});
