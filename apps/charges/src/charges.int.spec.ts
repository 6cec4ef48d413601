import { addDays, newId } from '@pgw/domain';
import { createPgDb, type Db } from '@pgw/platform-db';
import { ManualClock } from '@pgw/platform-service';
import { integrationEnv, uniqueName } from '@pgw/testing';
import {
  asOperator,
  cardCharge,
  get,
  merchant,
  outboxEvents,
  post,
  startChargesOn,
  transactionsDuring,
  type Harness,
  type Merchant,
} from './testing/harness';

// Charges on the real PostgreSQL with a pool of 10: requests really run side by side here, with row
// locks and unique keys doing the work that PGlite's single connection does by serializing. The events
// go through the in-process bus (the Kafka path of the outbox is proven by the platform's integration
// test; the charges and directory topics are shared with other suites).
const env = integrationEnv();
const schema = uniqueName('charges');
// The service's clock: the job's as_of_date is a day on it, not on the wall clock.
const clock = new ManualClock(new Date());
let db: Db;
let h: Harness;
let m: Merchant;

beforeAll(async () => {
  db = createPgDb({ url: env.databaseUrl, schema, poolMax: 10 });
  h = await startChargesOn(db, { clock });
  m = await merchant(h);
});

afterAll(async () => {
  await h.stop();
  await db.knex.raw(`drop schema if exists "${schema}" cascade`);
  await db.close();
});

/** A read on a pool of its own, so that it is not among the charges service's statements. */
const otherConnection = async <T>(fn: (q: Db['knex']) => Promise<T>): Promise<T> => {
  const other = createPgDb({ url: env.databaseUrl, schema, poolMax: 1 });
  try {
    return await fn(other.knex);
  } finally {
    await other.close();
  }
};
const count = async (table: string, where: Record<string, unknown>) =>
  Number((await db.read((q) => q(table).where(where).count<{ n: string }[]>({ n: '*' })))[0]!.n);

describe('charges on PostgreSQL, concurrently', () => {
  it('20 concurrent identical requests with one Idempotency-Key make one charge and one authorization', async () => {
    // Proves the key's unique row serializes twins across connections: one charge, the rest replays or 409.
    for (let round = 0; round < 3; round++) {
      const key = `int-${newId('ch_')}`;
      const body = cardCharge(m.token(), { metadata: { key } });
      const answers = await Promise.all(
        Array.from({ length: 20 }, () =>
          post(h, '/api/v1/charges', { ...m.key, 'idempotency-key': key }, body),
        ),
      );
      const ids = new Set(
        answers.filter((a) => a.statusCode === 201).map((a) => a.json().id as string),
      );
      expect(ids.size).toBe(1);
      for (const a of answers)
        expect(a.statusCode === 201 || a.json().error.code === 'idempotency_key_in_use').toBe(true);
      const [id] = [...ids];
      expect(
        Number(
          (
            await db.read((q) =>
              q('charges')
                .whereRaw('metadata_json like ?', [`%${key}%`])
                .count<{ n: string }[]>({ n: '*' }),
            )
          )[0]!.n,
        ),
      ).toBe(1);
      expect(h.acquirer.authorizeCalls.filter((r) => r === id)).toHaveLength(1);
      expect((await outboxEvents(h, id)).map((e) => e.type)).toEqual([
        'charges.charge-created.v1',
        'charges.charge-paid.v2',
      ]);
    }
  });

  it('a card charge with a key commits twice on PostgreSQL, one statement each: the key with the intent, then the outcome with its answer', async () => {
    // Proves issue 10's merge on the real database (it was three commits: the claim had its own), and
    // that the intent is still committed before the acquirer is called.
    const key = `int-${newId('ch_')}`;
    const body = cardCharge(m.token(), { metadata: { key } });
    let intentBeforeAcquirer: unknown = null;
    let release!: () => void;
    h.acquirer.authorizeGate = new Promise((resolve) => (release = resolve));
    const calls = h.acquirer.authorizeCalls.length;
    const full: string[] = [];
    const seen = (q: { sql: string }) => void full.push(q.sql.trim());
    const { result, count } = await transactionsDuring(h, async () => {
      h.db.knex.on('query', seen);
      const answer = post(h, '/api/v1/charges', { ...m.key, 'idempotency-key': key }, body);
      while (h.acquirer.authorizeCalls.length === calls) await new Promise((r) => setTimeout(r, 5));
      // Read on a connection of its own (not counted): what a crash at this point would leave.
      intentBeforeAcquirer = await otherConnection((q) =>
        q.raw(
          `select c.status, c.outcome_known, k.state, k.resource_id = c.id as attached from "${schema}".charges c join "${schema}".idempotency_keys k on k.key = ? where c.metadata_json like ?`,
          [key, `%${key}%`],
        ),
      );
      h.acquirer.authorizeGate = null;
      release();
      return answer;
    });
    expect(result.statusCode).toBe(201);
    expect((intentBeforeAcquirer as { rows: unknown[] }).rows).toEqual([
      { status: 'pending', outcome_known: false, state: 'in_progress', attached: true },
    ]);
    expect(count).toEqual({ commits: 2, rollbacks: 0 });
    h.db.knex.off('query', seen);
    const sent = full.map((sql) => sql.slice(0, 60));
    // The key with the intent is one statement of its own (no BEGIN, no COMMIT), and so is the outcome: the
    // charge's events and history, its guarded update and the key's answer.
    expect(sent[0]).toMatch(/^with write_0 as \(insert into "idempotency_keys"/);
    expect(sent.filter((sql) => sql === 'BEGIN;')).toEqual([]);
    const outcome = full.filter((sql) => sql.includes('update "idempotency_keys"'));
    expect(outcome).toHaveLength(1);
    expect(outcome[0]).toMatch(
      /^with write_0 as \(insert into "outbox".* write_1 as \(insert into "charge_events".* write_2 as \(update "charges" set .* returning "id"\) , write_3 as \(update "idempotency_keys" .* returning "key"\) select 1 \/ \(select count\(\*\) from write_2\)::int as c0, 1 \/ \(select count\(\*\) from write_3\)::int as c1$/s,
    );
    expect(full.filter((sql) => /^update "charges"/.test(sql))).toEqual([]);
    // The answer, made from the intent and the outcome without reading the row back, is the charge as stored.
    const { request_id: _posted, ...posted } = result.json();
    const { request_id: _read, ...read } = (
      await get(h, `/api/v1/charges/${posted.id}`, m.key)
    ).json();
    expect(read).toEqual(posted);
  });

  it('without a key, 20 concurrent requests are 20 charges (the concurrency is real)', async () => {
    // Proves the test above is not passing because requests were serialized anyway.
    const tag = newId('ch_');
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        post(h, '/api/v1/charges', m.key, cardCharge(m.token(), { metadata: { tag } })),
      ),
    );
    expect(answers.every((a) => a.statusCode === 201)).toBe(true);
    expect(
      Number(
        (
          await db.read((q) =>
            q('charges')
              .whereRaw('metadata_json like ?', [`%${tag}%`])
              .count<{ n: string }[]>({ n: '*' }),
          )
        )[0]!.n,
      ),
    ).toBe(20);
  });

  it('two concurrent refunds of the whole remaining amount: exactly one succeeds, every time', async () => {
    // Proves the charge row lock and the in-flight count under real concurrency.
    for (let round = 0; round < 5; round++) {
      const c = (await post(h, '/api/v1/charges', m.key, cardCharge(m.token()))).json();
      const answers = await Promise.all([
        post(h, `/api/v1/charges/${c.id}/refund`, m.key, {}),
        post(h, `/api/v1/charges/${c.id}/refund`, m.key, {}),
      ]);
      expect(answers.map((a) => a.statusCode).sort()).toEqual([201, 422]);
      expect(await count('refunds', { charge_id: c.id, status: 'succeeded' })).toBe(1);
      expect(h.acquirer.authorizations.get(c.id)!.refunded_amount_cents).toBe(10_000);
    }
  });

  it('ten concurrent refunds of 30 % each: three succeed, never more than the amount', async () => {
    // Proves the invariant sum(succeeded + in flight) ≤ amount with ten racers.
    const c = (await post(h, '/api/v1/charges', m.key, cardCharge(m.token()))).json();
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        post(h, `/api/v1/charges/${c.id}/refund`, m.key, { amount_cents: 3_000 }),
      ),
    );
    expect(answers.filter((a) => a.statusCode === 201)).toHaveLength(3);
    expect(
      answers
        .filter((a) => a.statusCode === 422)
        .every((a) => a.json().error.code === 'refund_amount_exceeds_remaining'),
    ).toBe(true);
  });

  it('concurrent captures of one charge: each answers from the final state (200 paid, or 422 once it read paid), one charge-paid', async () => {
    // Proves the capture's compare-and-set under concurrency: the acquirer captures once (idempotent by
    // transaction); a capture that read `authorized` and lost the race answers the paid charge (issue 16
    // §11), one that read it paid answers 422; the charge moves to paid exactly once.
    const c = (
      await post(h, '/api/v1/charges', m.key, cardCharge(m.token(), { capture_method: 'manual' }))
    ).json();
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => post(h, `/api/v1/charges/${c.id}/capture`, m.key)),
    );
    const ok = answers.filter((a) => a.statusCode === 200);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    expect(
      ok.length +
        answers.filter(
          (a) => a.statusCode === 422 && a.json().error.code === 'charge_not_capturable',
        ).length,
    ).toBe(6);
    for (const a of ok)
      expect(a.json()).toMatchObject({ id: c.id, status: 'paid', captured: true });
    expect(
      (await outboxEvents(h, c.id)).filter((e) => e.type === 'charges.charge-paid.v2'),
    ).toHaveLength(1);
  });

  it('two concurrent runs of a job never process a charge twice', async () => {
    // Proves the job lease: overlapping runs share the work without doubling it.
    const ids: string[] = [];
    for (let i = 0; i < 4; i++)
      ids.push(
        (
          await post(
            h,
            '/api/v1/charges',
            m.key,
            cardCharge(m.token(), { capture_method: 'manual' }),
          )
        ).json().id,
      );
    const asOf = addDays(clock.today(), 7);
    const runs = await Promise.all(
      [0, 1].map(() =>
        post(h, '/admin/v1/jobs/authorization-expiry', asOperator(), { as_of_date: asOf }),
      ),
    );
    expect(runs.reduce((sum, r) => sum + (r.json().processed as number), 0)).toBeGreaterThanOrEqual(
      ids.length,
    );
    for (const id of ids)
      expect(
        (await outboxEvents(h, id)).filter((e) => e.type === 'charges.charge-canceled.v1'),
      ).toHaveLength(1);
  });
});
