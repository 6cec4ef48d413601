// What must hold after every fault and at the end, read from the real tables of every service's schema,
// from Kafka's committed offsets and from the public API, never from the services' own counters alone.
import { Kafka, logLevel } from 'kafkajs';
import { createPgDb } from '@pgw/platform-db';
import {
  checkInvariants,
  type ChargeExpectation,
} from '../../apps/receivables/src/scenarios/invariants';
import type { Cluster, Seller } from '../bench/cluster';
import { json, sleep } from '../bench/load';
import { query } from './infra';
import { normalized, retryable, type Exchange } from './workload';

export interface Check {
  name: string;
  ok: boolean;
  detail?: string;
  after: string;
}

type Row = Record<string, unknown>;
const n = (v: unknown) => Number(v ?? 0);
const SCHEMAS_WITH_EVENTS = [
  'charges',
  'receivables',
  'ledger',
  'anticipation',
  'acquirer_sim',
  'vault',
  'gateway',
  'webhooks',
];

/** Schemas that have an outbox (and so an inbox): those that exist in this database. */
async function busSchemas(url: string): Promise<string[]> {
  const rows = await query<{ table_schema: string }>(
    url,
    `select table_schema from information_schema.tables where table_name = 'outbox' and table_schema = any($1)`,
    [SCHEMAS_WITH_EVENTS],
  );
  return rows.map((r) => r.table_schema).sort();
}

/** Unsent outbox rows over every schema, and the consumer groups' lag over every topic. */
export async function backlog(
  url: string,
  brokers: string,
): Promise<{ unsent: Record<string, number>; lag: Record<string, number> }> {
  const unsent: Record<string, number> = {};
  for (const schema of await busSchemas(url)) {
    const [row] = await query<{ c: string }>(
      url,
      `select count(*) as c from "${schema}".outbox where sent_at is null`,
    );
    if (n(row?.c) > 0) unsent[schema] = n(row?.c);
  }
  const kafka = new Kafka({
    clientId: 'chaos-checks',
    brokers: [brokers],
    logLevel: logLevel.NOTHING,
    retry: { retries: 2 },
  });
  const admin = kafka.admin();
  const lag: Record<string, number> = {};
  await admin.connect();
  try {
    const { groups } = await admin.listGroups();
    const topics = (await admin.listTopics()).filter((t) => !t.startsWith('__'));
    const ends = new Map<string, Map<number, number>>();
    for (const topic of topics)
      ends.set(
        topic,
        new Map((await admin.fetchTopicOffsets(topic)).map((p) => [p.partition, Number(p.high)])),
      );
    for (const { groupId } of groups) {
      for (const t of await admin.fetchOffsets({ groupId })) {
        let behind = 0;
        for (const p of t.partitions) {
          const end = ends.get(t.topic)?.get(p.partition) ?? 0;
          const committed = Number(p.offset) < 0 ? 0 : Number(p.offset);
          behind += Math.max(0, end - committed);
        }
        // A group that read nothing of a topic with messages has offset -1: behind by the whole topic.
        if (behind > 0) lag[`${groupId} ${t.topic}`] = behind;
      }
    }
    // Who is behind, and whether it still has members: a group with none has lost its consumer.
    const behindGroups = [...new Set(Object.keys(lag).map((k) => k.split(' ')[0] as string))];
    if (behindGroups.length > 0) {
      for (const g of (await admin.describeGroups(behindGroups)).groups) {
        for (const k of Object.keys(lag)) {
          if (!k.startsWith(`${g.groupId} `)) continue;
          lag[`${k} (${g.state}, ${g.members.length} members)`] = lag[k] as number;
          delete lag[k];
        }
      }
    }
  } finally {
    await admin.disconnect();
  }
  return { unsent, lag };
}

/** Waits until every outbox is drained and every consumer group has read to the end, twice in a row. */
export async function settle(
  url: string,
  brokers: string,
  timeoutMs: number,
): Promise<{ ms: number; last: string }> {
  const t0 = performance.now();
  let quiet = 0;
  let last = '';
  while (performance.now() - t0 < timeoutMs) {
    try {
      const b = await backlog(url, brokers);
      last = JSON.stringify(b);
      quiet = Object.keys(b.unsent).length === 0 && Object.keys(b.lag).length === 0 ? quiet + 1 : 0;
      if (quiet >= 2) return { ms: performance.now() - t0, last: '' };
    } catch (err) {
      quiet = 0;
      last = err instanceof Error ? err.message : String(err);
    }
    await sleep(500);
  }
  return { ms: performance.now() - t0, last };
}

export interface CheckContext {
  cluster: Cluster;
  url: string;
  brokers: string;
  tenantId: string;
  sellers: Seller[];
  exchanges: Exchange[];
  /** The end of the run: nothing may be left waiting on the acquirer. */
  final: boolean;
  /** When PostgreSQL was restarting (epoch ms), with the pools' reconnection. */
  databaseDown: { from: number; to: number }[];
}

/** Runs every check; each pushes one line. */
export async function runChecks(ctx: CheckContext, after: string): Promise<Check[]> {
  const checks: Check[] = [];
  const add = (name: string, problems: unknown[], extra = '') => {
    const ok = problems.length === 0;
    checks.push({
      name,
      ok,
      after,
      ...(ok
        ? extra
          ? { detail: extra }
          : {}
        : {
            detail: `${JSON.stringify(problems.slice(0, 5))}${problems.length > 5 ? ` … ${problems.length} in all` : ''}`,
          }),
    });
  };
  const guarded = async (name: string, fn: () => Promise<void>) => {
    try {
      await fn();
    } catch (err) {
      checks.push({
        name,
        ok: false,
        after,
        detail: err instanceof Error ? err.message.slice(0, 2000) : String(err),
      });
    }
  };
  const { url, tenantId } = ctx;
  const done = ctx.exchanges.filter((e) => e.done);
  const charges = await query<Row>(
    url,
    `select id, seller_id, status, amount_cents, installments, refunded_cents, acquirer_transaction_id from charges.charges where tenant_id = $1`,
    [tenantId],
  );
  const byId = new Map(charges.map((c) => [String(c.id), c]));

  await guarded('every request got a definitive answer, never a 500', async () => {
    const unanswered = done
      .filter((e) => e.final === null || e.replay === null)
      .map((e) => `${e.key}: ${e.attempts.slice(-1)[0]?.status}`);
    const attempts = done.flatMap((e) => e.attempts);
    // A database that goes away under a request is 503 service_unavailable with Retry-After (the client
    // retries: 5xx answers are not kept); a 500 is a bug, wherever it happens.
    const fiveHundreds = attempts
      .filter((a) => a.status === 500)
      .map((a) => `${new Date(a.at).toISOString()} ${a.body.slice(0, 200)}`);
    const unavailableDuringRestart = attempts.filter(
      (a) => a.status === 503 && ctx.databaseDown.some((w) => a.at >= w.from && a.at <= w.to),
    ).length;
    const retried = done.filter((e) => e.attempts.length > 1).length;
    add(
      'every request got a definitive answer, never a 500',
      [...unanswered, ...fiveHundreds],
      `${done.length} exchanges, ${retried} retried, ${attempts.length} attempts, ${unavailableDuringRestart} answered 503 while PostgreSQL restarted`,
    );
  });

  await guarded(
    'every retry and the replay of a key answered the same, replays marked Idempotent-Replayed',
    async () => {
      const differing = done.flatMap((e) => {
        const kept = [...e.attempts.filter((a) => !retryable(a)), ...(e.replay ? [e.replay] : [])];
        const distinct = [...new Set(kept.map(normalized))];
        const unmarked =
          e.replay !== null &&
          typeof e.replay.status === 'number' &&
          e.replay.status < 300 &&
          !e.replay.replayed;
        return distinct.length > 1 || unmarked
          ? [{ key: e.key, answers: distinct.map((a) => a.slice(0, 160)), unmarked }]
          : [];
      });
      add(
        'every retry and the replay of a key answered the same, replays marked Idempotent-Replayed',
        differing,
      );
    },
  );

  const told = done
    .filter((e) => e.kind === 'charge' && e.final?.status === 201)
    .map((e) => ({
      key: e.key,
      charge: JSON.parse((e.final as { body: string }).body) as {
        id: string;
        amount_cents: number;
      },
    }));
  await guarded('no charge lost, none made twice', async () => {
    const problems: string[] = [];
    const ids = told.map((t) => t.charge.id);
    if (new Set(ids).size !== ids.length) problems.push('one charge id answered for two keys');
    for (const t of told) {
      const row = byId.get(t.charge.id);
      if (row === undefined) problems.push(`${t.key}: told ${t.charge.id}, no such row`);
      else if (n(row.amount_cents) !== t.charge.amount_cents)
        problems.push(`${t.key}: told ${t.charge.amount_cents}, row ${String(row.amount_cents)}`);
    }
    // Every charge row is one the client was told of: a retry that made a second charge would show here.
    const known = new Set(ids);
    const inFlight = new Set(
      ctx.exchanges.filter((e) => !e.done && e.kind === 'charge').map((e) => e.key),
    );
    const keyRows = await query<Row>(
      url,
      `select key, resource_id from charges.idempotency_keys where tenant_id = $1 and path = '/api/v1/charges'`,
      [tenantId],
    );
    const keyOf = new Map(keyRows.map((k) => [String(k.resource_id), String(k.key)]));
    for (const c of charges)
      if (!known.has(String(c.id)) && !inFlight.has(keyOf.get(String(c.id)) ?? ''))
        problems.push(
          `charge ${String(c.id)} (key ${keyOf.get(String(c.id))}) the client was never told of`,
        );
    // One key, one charge.
    const perKey = new Map<string, number>();
    for (const k of keyRows)
      if (k.resource_id !== null) perKey.set(String(k.key), (perKey.get(String(k.key)) ?? 0) + 1);
    for (const [key, count] of perKey) if (count > 1) problems.push(`key ${key}: ${count} charges`);
    for (const t of told)
      if (keyOf.get(t.charge.id) !== t.key)
        problems.push(`${t.key}: the stored key of ${t.charge.id} is ${keyOf.get(t.charge.id)}`);
    // One authorization at the acquirer per charge, and every authorization is of a charge of ours.
    const auths = await query<Row>(
      url,
      `select reference, count(*) as c from acquirer_sim.authorizations group by reference`,
    );
    for (const a of auths) {
      if (n(a.c) > 1) problems.push(`${String(a.reference)}: ${String(a.c)} authorizations`);
      if (!byId.has(String(a.reference)))
        problems.push(`authorization for ${String(a.reference)}, not a charge of the tenant`);
    }
    const authorized = new Set(auths.map((a) => String(a.reference)));
    for (const c of charges)
      if (c.acquirer_transaction_id !== null && !authorized.has(String(c.id)))
        problems.push(`${String(c.id)}: a transaction id, no authorization`);
    if (ctx.final)
      for (const c of charges)
        if (c.status === 'pending') problems.push(`${String(c.id)} still pending`);
    add(
      'no charge lost, none made twice',
      problems,
      `${told.length} charges told, ${charges.length} rows, ${auths.length} authorizations`,
    );
  });

  await guarded(
    "refunds: succeeded ≤ amount, = the charge's refunded, = what the acquirer refunded",
    async () => {
      const ours = await query<Row>(
        url,
        `select charge_id, coalesce(sum(amount_cents) filter (where status = 'succeeded'), 0) as ok, count(*) filter (where status = 'processing') as processing from charges.refunds group by charge_id`,
      );
      const theirs = await query<Row>(
        url,
        `select transaction_id, coalesce(sum(amount_cents) filter (where status = 'succeeded'), 0) as ok from acquirer_sim.refunds group by transaction_id`,
      );
      const oursBy = new Map(ours.map((r) => [String(r.charge_id), r]));
      const theirsBy = new Map(theirs.map((r) => [String(r.transaction_id), n(r.ok)]));
      const problems: unknown[] = [];
      let refunded = 0;
      for (const c of charges) {
        const o = oursBy.get(String(c.id));
        const a = theirsBy.get(String(c.acquirer_transaction_id)) ?? 0;
        const mine = n(o?.ok);
        refunded += mine;
        if (mine > n(c.amount_cents) || mine !== n(c.refunded_cents) || mine !== a)
          problems.push({
            id: c.id,
            amount: n(c.amount_cents),
            refunded: n(c.refunded_cents),
            refunds: mine,
            acquirer: a,
          });
        if (ctx.final && n(o?.processing) > 0)
          problems.push({ id: c.id, processing: n(o?.processing) });
      }
      add(
        "refunds: succeeded ≤ amount, = the charge's refunded, = what the acquirer refunded",
        problems,
        `${ours.length} charges refunded, ${refunded} cents`,
      );
    },
  );

  await guarded('anticipations: one per key, as told', async () => {
    const toldA = done
      .filter((e) => e.kind === 'anticipation' && e.final?.status === 201)
      .map(
        (e) =>
          JSON.parse((e.final as { body: string }).body) as {
            id: string;
            net_amount_cents: number;
          },
      );
    const rows = await query<Row>(
      url,
      `select id, net_amount_cents from anticipation.anticipations where tenant_id = $1`,
      [tenantId],
    );
    const rowBy = new Map(rows.map((r) => [String(r.id), r]));
    const problems: string[] = [];
    for (const a of toldA)
      if (
        rowBy.get(a.id) === undefined ||
        n(rowBy.get(a.id)?.net_amount_cents) !== a.net_amount_cents
      )
        problems.push(`${a.id}: told, row ${JSON.stringify(rowBy.get(a.id))}`);
    const inFlight = ctx.exchanges.some((e) => !e.done && e.kind === 'anticipation');
    if (!inFlight && rows.length !== toldA.length)
      problems.push(`${rows.length} anticipations, ${toldA.length} told`);
    add('anticipations: one per key, as told', problems, `${toldA.length} anticipations`);
  });

  await guarded('every event applied once: receivables, ledger entries, inboxes', async () => {
    const problems: string[] = [];
    // Receivables: every captured card charge has one original per installment, and no more.
    const originals = await query<Row>(
      url,
      `select charge_id, installment, count(*) as c from receivables.receivables where tenant_id = $1 and not (anticipation_id is not null and status <> 'anticipated') group by charge_id, installment`,
      [tenantId],
    );
    const per = new Map<string, number[]>();
    for (const r of originals) {
      if (n(r.c) !== 1)
        problems.push(
          `${String(r.charge_id)} installment ${String(r.installment)}: ${String(r.c)} receivables`,
        );
      per.set(String(r.charge_id), [...(per.get(String(r.charge_id)) ?? []), n(r.installment)]);
    }
    const captured = charges.filter((c) =>
      ['paid', 'partially_refunded', 'refunded'].includes(String(c.status)),
    );
    for (const c of captured)
      if ((per.get(String(c.id)) ?? []).length !== n(c.installments))
        problems.push(
          `${String(c.id)}: ${(per.get(String(c.id)) ?? []).length} receivables for ${String(c.installments)} installments`,
        );
    for (const id of per.keys())
      if (!captured.some((c) => c.id === id))
        problems.push(
          `receivables for ${id}, not a captured charge (${String(byId.get(id)?.status)})`,
        );
    // Anticipations: one new receivable per item, and each original anticipated by it, unless a refund
    // reached the original first (then it stays as the refund left it, and the difference is debt).
    const items = await query<Row>(
      url,
      `select i.receivable_id, i.anticipation_id from anticipation.anticipation_items i join anticipation.anticipations a on a.id = i.anticipation_id where a.tenant_id = $1`,
      [tenantId],
    );
    const touched = await query<Row>(
      url,
      `select id, status, anticipation_id from receivables.receivables where tenant_id = $1 and (anticipation_id is not null or id = any($2))`,
      [tenantId, items.map((i) => String(i.receivable_id))],
    );
    const rowOf = new Map(touched.map((r) => [String(r.id), r]));
    const itemsOf = new Map<string, string[]>();
    for (const i of items)
      itemsOf.set(String(i.anticipation_id), [
        ...(itemsOf.get(String(i.anticipation_id)) ?? []),
        String(i.receivable_id),
      ]);
    let movedFirst = 0;
    for (const [id, receivableIds] of itemsOf) {
      const outputs = touched.filter(
        (r) => r.anticipation_id === id && !receivableIds.includes(String(r.id)),
      ).length;
      if (outputs !== receivableIds.length)
        problems.push(`${id}: ${receivableIds.length} items, ${outputs} receivables created`);
      for (const rid of receivableIds) {
        const r = rowOf.get(rid);
        if (r?.anticipation_id === id && r.status === 'anticipated') continue;
        if (r !== undefined && r.anticipation_id === null && r.status !== 'pending') movedFirst++;
        else
          problems.push(
            `${id}: original ${rid} is ${r === undefined ? 'missing' : `${String(r.status)} (anticipation ${String(r.anticipation_id)})`}`,
          );
      }
    }
    for (const r of touched)
      if (r.anticipation_id !== null && !itemsOf.has(String(r.anticipation_id)))
        problems.push(
          `${String(r.id)}: anticipation ${String(r.anticipation_id)} unknown to the anticipation service`,
        );
    // The ledger: one entry per balance movement the receivables published, none of another.
    const moved = await query<Row>(
      url,
      `select event_id from receivables.outbox where event_type = 'receivables.balance-moved.v1'`,
    );
    const entries = await query<Row>(url, `select source_event_id from ledger.journal_entries`);
    const entrySet = new Set(entries.map((e) => String(e.source_event_id)));
    const movedSet = new Set(moved.map((m) => String(m.event_id)));
    const missing = [...movedSet].filter((id) => !entrySet.has(id));
    const foreign = [...entrySet].filter((id) => !movedSet.has(id));
    if (missing.length > 0)
      problems.push(
        `${missing.length} balance movements not in the ledger (${missing.slice(0, 3).join(', ')})`,
      );
    if (foreign.length > 0) problems.push(`${foreign.length} ledger entries of no movement`);
    // Every consumer saw every event of the topics it reads: its inbox holds each outbox row of them.
    const schemas = await busSchemas(url);
    const events = await query<Row>(
      url,
      schemas.map((s) => `select topic, event_id from "${s}".outbox`).join(' union all '),
    );
    const topicOf = new Map(events.map((e) => [String(e.event_id), String(e.topic)]));
    const byTopic = new Map<string, string[]>();
    for (const e of events)
      byTopic.set(String(e.topic), [...(byTopic.get(String(e.topic)) ?? []), String(e.event_id)]);
    let consumers = 0;
    for (const s of schemas) {
      const inbox = await query<Row>(url, `select consumer, event_id from "${s}".inbox`);
      const seen = new Map<string, Set<string>>();
      for (const r of inbox)
        seen.set(
          String(r.consumer),
          (seen.get(String(r.consumer)) ?? new Set()).add(String(r.event_id)),
        );
      for (const [consumer, ids] of seen) {
        consumers++;
        const topics = new Set(
          [...ids].map((id) => topicOf.get(id)).filter((t): t is string => t !== undefined),
        );
        for (const t of topics) {
          const unseen = (byTopic.get(t) ?? []).filter((id) => !ids.has(id));
          if (unseen.length > 0)
            problems.push(`${s}.${consumer}: ${unseen.length} events of ${t} never applied`);
        }
      }
    }
    add(
      'every event applied once: receivables, ledger entries, inboxes',
      problems,
      `${originals.length} receivables, ${itemsOf.size} anticipations (${movedFirst} originals a refund reached first), ${entries.length} ledger entries, ${events.length} events, ${consumers} consumers`,
    );
  });

  await guarded('outboxes drained, consumers at the end of every topic', async () => {
    const b = await backlog(url, ctx.brokers);
    add('outboxes drained, consumers at the end of every topic', [
      ...Object.entries(b.unsent).map(([s, c]) => `${s}: ${c} unsent`),
      ...Object.entries(b.lag).map(([g, l]) => `${g}: ${l} behind`),
    ]);
  });

  await guarded('ledger invariants (checkInvariants)', async () => {
    const receivablesDb = createPgDb({ url, schema: 'receivables', poolMax: 2 });
    const ledgerDb = createPgDb({ url, schema: 'ledger', poolMax: 2 });
    try {
      const expectations = new Map<string, ChargeExpectation>();
      for (const c of charges)
        if (['paid', 'partially_refunded', 'refunded'].includes(String(c.status)))
          expectations.set(String(c.id), { grossCents: n(c.amount_cents) - n(c.refunded_cents) });
      const keyOf = new Map(ctx.sellers.map((s) => [s.sellerId, s.key]));
      await checkInvariants(
        {
          tenantId,
          receivablesDb,
          ledgerDb,
          settle: async () => undefined, // settled before the checks
          balance: (sellerId) =>
            json(
              {
                method: 'GET',
                url: `${ctx.cluster.gatewayUrl}/api/v1/balance`,
                headers: { authorization: `Bearer ${keyOf.get(sellerId)}` },
              },
              200,
            ),
        },
        expectations,
      );
      add('ledger invariants (checkInvariants)', [], `${expectations.size} captured charges`);
    } finally {
      await receivablesDb.close();
      await ledgerDb.close();
    }
  });
  return checks;
}
