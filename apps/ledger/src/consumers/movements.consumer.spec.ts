// The movements consumer: running balances written once per batch, repeats booked once, an unbalanced
// movement refused with its whole batch, and the history count backfilled on an existing database.
import { HEADER_EVENT_ID, InProcessBus } from '@pgw/platform-bus';
import { sharedDb } from '@pgw/platform-db';
import { ManualClock } from '@pgw/platform-service';
import { statementsDuring, uniqueName } from '@pgw/testing';
import { ledgerMigrations } from '../migrations';
import { balanceReader, ledgerFixture, startLedger } from '../testing/ledger-fixture';

const { knex, bus, db, movement, sale, get } = ledgerFixture();

describe('the balance movements consumer', () => {
  it('books a batch of movements with each account written once, and answers the balance from running totals', async () => {
    const tenant = uniqueName('ten');
    const batch = [
      sale(tenant, 9701, 299),
      sale(tenant, 4850, 150),
      movement(tenant, 'seller_1', {
        type: 'receivable.released',
        pending_delta_cents: -9701,
        available_delta_cents: 9701,
      }),
    ];
    const accountWrites = (await statementsDuring(knex, () => bus.publish(batch))).filter((sql) =>
      /\binsert into "?accounts\b/.test(sql),
    );
    // Three movements, four accounts each touched more than once: one statement for the whole batch, which
    // also books the entries and their postings (and the inbox's ids).
    expect(accountWrites).toHaveLength(1);
    expect(accountWrites[0]).toMatch(
      /insert into "inbox"[\s\S]*insert into journal_entries[\s\S]*insert into postings[\s\S]*insert into accounts/,
    );
    const accounts = (await db.read((q) =>
      q('accounts').where({ tenant_id: tenant }).orderBy('account'),
    )) as Array<Record<string, unknown>>;
    expect(accounts.map((a) => [a.account, Number(a.balance_cents)])).toEqual([
      ['platform:cash', -15_000],
      ['platform:fees', 449],
      ['seller:seller_1:available', 9701],
      ['seller:seller_1:pending', 4850],
    ]);
    const balance = await get('/api/v1/balance', tenant);
    expect(balance.json()).toEqual({
      object: 'balance',
      pending_cents: 4850,
      available_cents: 9701,
      reserved_cents: 0,
      requestable_cents: 9701,
      currency: 'BRL',
      request_id: expect.stringMatching(/^req_/),
    });
  });

  it('books a movement delivered twice once, and lists only what changes the seller money, most recent first', async () => {
    const tenant = uniqueName('ten');
    const first = sale(tenant, 100, 1, Date.parse('2026-03-01T10:00:00Z'));
    const late = sale(tenant, 200, 2, Date.parse('2026-03-01T09:00:00Z'));
    await bus.publish([first]);
    await bus.publish([
      first,
      movement(tenant, 'seller_1', {
        type: 'receivable.released',
        pending_delta_cents: -100,
        available_delta_cents: 100,
      }),
    ]);
    await bus.publish([late]);
    const history = (await get('/api/v1/balance/history', tenant)).json();
    expect(history).toMatchObject({ object: 'list', total: 2, page: 1, limit: 50, total_pages: 1 });
    expect(history.data.map((t: { amount_cents: number }) => t.amount_cents)).toEqual([100, 200]);
    expect((await get('/api/v1/balance', tenant)).json()).toMatchObject({
      pending_cents: 200,
      available_cents: 100,
    });
  });

  it('books a movement once even when the inbox has forgotten it: the journal knows its source event', async () => {
    const tenant = uniqueName('ten');
    const first = sale(tenant, 100, 1);
    await bus.publish([first]);
    // The inbox keeps an id 30 days; a replay older than that reaches the journal's own guard.
    const forgotten = await db.tx((trx) =>
      trx('inbox').where({ event_id: first.headers[HEADER_EVENT_ID] }).delete(['event_id']),
    );
    expect(forgotten).toHaveLength(1);
    await bus.publish([first, sale(tenant, 200, 2)]);
    expect((await get('/api/v1/balance', tenant)).json()).toMatchObject({ pending_cents: 300 });
    const fees = await db.read((q) =>
      q('accounts').where({ tenant_id: tenant, account: 'platform:fees' }).first(),
    );
    expect(Number(fees?.balance_cents)).toBe(3);
    const entries = await db.read((q) => q('journal_entries').where({ tenant_id: tenant }));
    expect(entries).toHaveLength(2);
    const postings = await db.read((q) =>
      q('postings').whereIn(
        'entry_seq',
        entries.map((e: { seq: number }) => e.seq),
      ),
    );
    expect(postings.length).toBe(2 * 3); // a sale's three postings: cash, fees, the seller's pending
    expect((await get('/api/v1/balance/history', tenant)).json()).toMatchObject({ total: 2 });
  });

  it('refuses a movement that does not balance: nothing of its batch is booked', async () => {
    const tenant = uniqueName('ten');
    await expect(
      bus.publish([sale(tenant, 10, 1), movement(tenant, 'seller_1', { pending_delta_cents: 5 })]),
    ).rejects.toThrow('does not balance');
    expect(await db.read((q) => q('journal_entries').where({ tenant_id: tenant }))).toEqual([]);
    expect((await get('/api/v1/balance', tenant)).json()).toMatchObject({ pending_cents: 0 });
  });

  it('counts the history already booked when the count arrives on an existing database', async () => {
    // Proves migration 0002 on a ledger that has entries: the backfill counts exactly what journal_history lists.
    const existing = sharedDb(knex, uniqueName('ledger'));
    await existing.migrate(ledgerMigrations.slice(0, 1));
    const tenant = uniqueName('ten');
    const entry = (n: number, sellerId: string, livemode: boolean, amountCents: number) => ({
      id: `ldge_${n}`,
      source_event_id: `evt_${n}`,
      tenant_id: tenant,
      livemode,
      seller_id: sellerId,
      type: amountCents > 0 ? 'charge.sale' : 'receivable.released',
      amount_cents: amountCents,
      direction: amountCents > 0 ? 'credit' : null,
      created_at: new Date(Date.parse('2026-03-01T10:00:00Z') + n * 1000),
    });
    await existing.tx(async (trx) => {
      await trx('journal_entries').insert([
        entry(1, 'seller_1', false, 10),
        entry(2, 'seller_1', false, 20),
        entry(3, 'seller_1', false, 0),
        entry(4, 'seller_1', true, 30),
        entry(5, 'seller_2', false, 40),
      ]);
    });
    const other = await startLedger(
      existing,
      new InProcessBus(),
      new ManualClock(new Date('2026-03-02T12:00:00Z')),
    );
    try {
      const counts = (await existing.read((q) =>
        q('history_counts').where({ tenant_id: tenant }).orderBy(['seller_id', 'livemode']),
      )) as Array<Record<string, unknown>>;
      expect(counts.map((c) => [c.seller_id, c.livemode, Number(c.entries)])).toEqual([
        ['seller_1', false, 2],
        ['seller_1', true, 1],
        ['seller_2', false, 1],
      ]);
      const answer = await other.app.inject({
        url: '/api/v1/balance/history?limit=1&page=2',
        headers: balanceReader(tenant),
      });
      expect(answer.json()).toMatchObject({
        total: 2,
        total_pages: 2,
        page: 2,
        data: [{ id: 'ldge_1', amount_cents: 10 }],
      });
    } finally {
      await other.stop();
    }
  });
});
