// The ledger alone, fed with balance movements as the receivables service writes them: running balances
// written once per batch, repeats booked once, an unbalanced movement refused, and the balance routes.
import { encodeEvent, EVENT_TOPICS, newEnvelope, type EventMap } from '@pgw/contracts';
import {
  HEADER_EVENT_ID,
  HEADER_EVENT_TYPE,
  InProcessBus,
  type BusMessage,
} from '@pgw/platform-bus';
import { createPgliteKnex, sharedDb } from '@pgw/platform-db';
import { PRINCIPAL_HEADER, TestPrincipals } from '@pgw/platform-http';
import { InjectPeers, ManualClock, startService, type RunningService } from '@pgw/platform-service';
import { uniqueName } from '@pgw/testing';
import { ledgerMigrations } from './migrations';
import { ledgerService } from './service';

jest.setTimeout(60_000);
/** The spec plays the gateway: principals are signed with this pair for each request; the ledger holds the public key. */
const PRINCIPALS = new TestPrincipals();
const knex = createPgliteKnex(null);
const bus = new InProcessBus();
const db = sharedDb(knex, uniqueName('ledger'));
const clock = new ManualClock(new Date('2026-03-02T12:00:00Z'));
let ledger: RunningService;

beforeAll(async () => {
  ledger = await startService(ledgerService, {
    db,
    bus,
    clock,
    principalPublicKey: PRINCIPALS.publicKey,
    peers: new InjectPeers(),
    env: {},
    log: { level: 'silent' },
  });
  PRINCIPALS.bind(ledger.app);
});
afterAll(async () => {
  await ledger.stop();
  await knex.destroy();
});

type Moved = EventMap['receivables.balance-moved.v1'];
const type = 'receivables.balance-moved.v1';

function movement(
  tenantId: string,
  sellerId: string,
  over: Partial<Moved>,
  occurredAtMs = clock.now().getTime(),
  livemode = false,
): BusMessage {
  const event: Moved = {
    envelope: newEnvelope(type, { producer: 'receivables', tenantId, livemode, occurredAtMs }),
    seller_id: sellerId,
    type: 'charge.sale',
    charge_id: 'ch_1',
    settlement_id: null,
    anticipation_id: null,
    pending_delta_cents: 0,
    available_delta_cents: 0,
    reserved_delta_cents: 0,
    debt_delta_cents: 0,
    fee_delta_cents: 0,
    gross_delta_cents: 0,
    paid_out_cents: 0,
    ...over,
  };
  return {
    topic: EVENT_TOPICS[type],
    key: sellerId,
    value: encodeEvent(type, event),
    headers: { [HEADER_EVENT_ID]: event.envelope.event_id, [HEADER_EVENT_TYPE]: type },
  };
}

const sale = (tenantId: string, net: number, fee: number, at?: number) =>
  movement(
    tenantId,
    'seller_1',
    { pending_delta_cents: net, fee_delta_cents: fee, gross_delta_cents: net + fee },
    at,
  );
const get = (url: string, tenantId: string, sellerId: string | null = 'seller_1') =>
  ledger.app.inject({
    url,
    headers: {
      [PRINCIPAL_HEADER]: PRINCIPALS.header({
        kind: 'api_key',
        tenantId,
        sellerId,
        keyId: 'key_x',
        permissions: ['balance:read'],
        livemode: false,
        requestId: 'req_x',
        expiresAtMs: Date.now() + 60_000,
      }),
    },
  });

describe('ledger', () => {
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
    const accountWrites: string[] = [];
    const count = (query: { sql: string }) => {
      if (/"accounts"/.test(query.sql) && !/^select/i.test(query.sql))
        accountWrites.push(query.sql);
    };
    knex.on('query', count);
    await bus.publish(batch);
    knex.off('query', count);
    // Three movements, four accounts each touched more than once: one statement for the whole batch.
    expect(accountWrites).toHaveLength(1);
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
      if (/"history_counts"/.test(query.sql)) historyWrites.push(query.sql);
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
    const other = await startService(ledgerService, {
      db: existing,
      bus: new InProcessBus(),
      clock: new ManualClock(new Date('2026-03-02T12:00:00Z')),
      principalPublicKey: PRINCIPALS.publicKey,
      peers: new InjectPeers(),
      env: {},
      log: { level: 'silent' },
    });
    PRINCIPALS.bind(other.app);
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
        headers: {
          [PRINCIPAL_HEADER]: PRINCIPALS.header({
            kind: 'api_key',
            tenantId: tenant,
            sellerId: 'seller_1',
            keyId: 'key_x',
            permissions: ['balance:read'],
            livemode: false,
            requestId: 'req_x',
            expiresAtMs: Date.now() + 60_000,
          }),
        },
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

  it('refuses a movement that does not balance: nothing of its batch is booked', async () => {
    const tenant = uniqueName('ten');
    await expect(
      bus.publish([sale(tenant, 10, 1), movement(tenant, 'seller_1', { pending_delta_cents: 5 })]),
    ).rejects.toThrow('does not balance');
    expect(await db.read((q) => q('journal_entries').where({ tenant_id: tenant }))).toEqual([]);
    expect((await get('/api/v1/balance', tenant)).json()).toMatchObject({ pending_cents: 0 });
  });

  it('answers the balance only to a seller-scoped key with balance:read, and zeros for a seller without entries', async () => {
    const tenant = uniqueName('ten');
    expect((await get('/api/v1/balance', tenant, null)).statusCode).toBe(403);
    expect((await get('/api/v1/balance/history', tenant, null)).json().error.code).toBe(
      'seller_scope_required',
    );
    expect((await ledger.app.inject({ url: '/api/v1/balance' })).statusCode).toBe(401);
    expect((await get('/api/v1/balance', tenant, 'seller_new')).json()).toMatchObject({
      pending_cents: 0,
      available_cents: 0,
      reserved_cents: 0,
      requestable_cents: 0,
    });
    expect((await get('/api/v1/balance/history', tenant, 'seller_new')).json()).toMatchObject({
      data: [],
      total: 0,
      total_pages: 0,
    });
  });
});
