// The anticipation service on the real PostgreSQL (its own schema, a pool of connections, so requests
// really run at once) and the real Kafka broker (KafkaBus): racing executions over the same receivables
// and the same treasury, and the executed event on Kafka.
import { decodeEvent, TOPICS } from '@pgw/contracts';
import { KafkaBus, type Bus, type BusMessage, type SubscribeOptions } from '@pgw/platform-bus';
import { createPgDb, type Db } from '@pgw/platform-db';
import { integrationEnv, uniqueName, waitFor } from '@pgw/testing';
import { Harness } from './testing/harness';

/**
 * Topics and consumer groups of this run only: the broker is shared with other suites, whose events on
 * the real topic names (and committed offsets) must not reach this service.
 */
class IsolatedBus implements Bus {
  constructor(
    private readonly inner: Bus,
    private readonly prefix: string,
  ) {}
  publish(messages: BusMessage[]): Promise<void> {
    return this.inner.publish(messages.map((m) => ({ ...m, topic: `${this.prefix}.${m.topic}` })));
  }
  subscribe(options: SubscribeOptions) {
    return this.inner.subscribe({
      groupId: `${this.prefix}.${options.groupId}`,
      topics: options.topics.map((t) => `${this.prefix}.${t}`),
      handle: (batch) =>
        options.handle(batch.map((m) => ({ ...m, topic: m.topic.slice(this.prefix.length + 1) }))),
    });
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

// A fresh topic's consumer group can take a while to join on a busy broker.
jest.setTimeout(120_000);
const env = integrationEnv();
const prefix = uniqueName('it');
const kafka = (clientId: string) =>
  new IsolatedBus(
    new KafkaBus({ brokers: env.kafkaBrokers, clientId: `${prefix}-${clientId}`, partitions: 3 }),
    prefix,
  );
let db: Db;
let h: Harness;
const listener = kafka('listener');
const heard: string[] = [];

beforeAll(async () => {
  db = createPgDb({ url: env.databaseUrl, schema: uniqueName('anticipation'), poolMax: 12 });
  h = await Harness.start(null, { db, bus: kafka('anticipation') });
  await listener.subscribe({
    groupId: 'listener',
    topics: [TOPICS.anticipation],
    handle: async (batch) => {
      for (const m of batch)
        heard.push(decodeEvent('anticipation.anticipation-executed.v1', m.value).anticipation_id);
    },
  });
}, 120_000);

afterAll(async () => {
  await h?.stop();
  await listener.close();
  await db?.knex.raw(`drop schema if exists "${db.schema}" cascade`);
  await db?.close();
});

const count = async (table: string) =>
  Number(((await db.read((q) => q(table).count({ n: '*' }))) as Array<{ n: unknown }>)[0]?.n);

/** Publishes over Kafka and waits until the service's copy can price the seller's `n` receivables. */
async function eligible(sellerId: string, n: number): Promise<void> {
  await waitFor(
    async () => {
      const res = await h.simulate(undefined, h.principal({ sellerId }));
      return res.statusCode === 200 && res.body.eligible_receivable_count === n ? true : undefined;
    },
    30_000,
    `${n} eligible receivables of ${sellerId}`,
  );
}

it('never anticipates a receivable twice under racing executions on PostgreSQL, and announces each on Kafka', async () => {
  // Proves the locks and the re-check under them with real concurrency: overlapping requests succeed
  // only on disjoint receivables, the rest answer 422, and nothing is counted twice.
  await h.tenant(100_000_000);
  await h.seller('seller_a');
  const ids: string[] = [];
  for (let i = 0; i < 6; i++)
    ids.push(await h.receivable('seller_a', { due_date: `2026-04-0${i + 1}` }));
  await eligible('seller_a', 6);

  const requests: Array<string[] | undefined> = [
    ids,
    [...ids].reverse(),
    [ids[0]!, ids[1]!],
    [ids[1]!, ids[2]!],
    [ids[3]!],
    [ids[4]!, ids[5]!],
    [ids[5]!, ids[0]!],
    undefined,
    undefined,
    [ids[2]!, ids[3]!, ids[4]!],
    ids.slice(1),
    [ids[4]!],
  ];
  const answers = await Promise.all(
    requests.map((receivable_ids, i) =>
      h.execute(
        receivable_ids === undefined ? undefined : { receivable_ids },
        i % 3 === 0 ? { key: `race-${i}` } : {},
      ),
    ),
  );

  const created = answers.filter((a) => a.statusCode === 201);
  expect(created.length).toBeGreaterThanOrEqual(1);
  for (const a of answers.filter((x) => x.statusCode !== 201))
    expect([a.statusCode, a.body.error.code]).toEqual([422, 'receivable_not_eligible']);
  const taken = created.flatMap((a) => a.body.receivable_ids as string[]);
  expect(new Set(taken).size).toBe(taken.length);
  expect(await count('anticipation_items')).toBe(taken.length);
  expect(await count('anticipations')).toBe(created.length);
  // Every refused request named a receivable that a successful one took.
  for (const [i, a] of answers.entries()) {
    if (a.statusCode === 201) continue;
    const named = requests[i] ?? ids;
    expect(named.some((id) => taken.includes(id))).toBe(true);
  }
  const cashOut = (await db.read((q) =>
    q('treasury').where({ tenant_id: h.tenantId }).first('cash_out_cents'),
  )) as { cash_out_cents: unknown };
  expect(Number(cashOut.cash_out_cents)).toBe(
    created.reduce((s, a) => s + a.body.net_amount_cents, 0),
  );

  const want = created.map((a) => a.body.id as string).sort();
  await waitFor(
    async () => (want.every((id) => heard.includes(id)) ? true : undefined),
    30_000,
    'the executed events on Kafka',
  );
  expect([...new Set(heard)].filter((id) => want.includes(id)).sort()).toEqual(want);
});

it('spends the treasury once under racing executions of different sellers: one 201, the other 422 treasury_limit_exceeded', async () => {
  // Proves the treasury row lock: two disjoint requests that each fit the cash but not together.
  await h.seller('seller_b');
  await h.seller('seller_c');
  const b = await h.receivable('seller_b', { due_date: '2026-04-01' });
  const c = await h.receivable('seller_c', { due_date: '2026-04-01' });
  await eligible('seller_b', 1);
  await eligible('seller_c', 1);
  // Each nets 9,508; the tenant's treasury is set to what is left after the first test plus 10,000.
  const spent = Number(
    (
      (await db.read((q) =>
        q('treasury').where({ tenant_id: h.tenantId }).first('cash_out_cents'),
      )) as { cash_out_cents: unknown }
    ).cash_out_cents,
  );
  await h.tenant(spent + 10_000);
  await waitFor(
    async () =>
      (await h.simulate(undefined, h.principal({ sellerId: 'seller_b' }))).body.treasury
        .available_cash_cents === 10_000
        ? true
        : undefined,
    30_000,
    'the new treasury figure',
  );

  const answers = await Promise.all([
    h.execute({ receivable_ids: [b] }, { principal: h.principal({ sellerId: 'seller_b' }) }),
    h.execute({ receivable_ids: [c] }, { principal: h.principal({ sellerId: 'seller_c' }) }),
  ]);
  const outcomes = answers
    .map((a) => (a.statusCode === 201 ? 'created' : a.body.error.code))
    .sort();
  expect(outcomes).toEqual(['created', 'treasury_limit_exceeded']);
  expect(
    (await h.simulate(undefined, h.principal({ sellerId: 'seller_b' }))).body.treasury
      .available_cash_cents,
  ).toBe(10_000 - 9_508);
});
