// The counted figures of a charge: work that does not depend on the machine's speed (PostgreSQL commits, SQL
// statements, internal HTTP calls, Kafka messages), per charge and per service. CI asserts them against
// tools/bench/budget.json (budget.ts); rates and latencies are never asserted.
//
// How each is counted (no pg_stat_statements here: it needs shared_preload_libraries, i.e. a server restart):
// - every service runs with count-preload.cjs, which counts its pg queries (statements, transactions) and its
//   HTTP requests out (undici's and node:http's diagnostics channels) and in;
// - PostgreSQL's own view: pg_stat_database of the bench's database (every service shares it, one schema each);
// - Kafka: the requests each service's kafkajs sends to the broker (Fetch, Produce, OffsetCommit, …), and the rows each service's outbox gained (one row = one message, exact and per service), and the
//   topics' end offsets (the broker's view; on a broker that other runs share, theirs are counted too).
// The charges are sent at a fixed, low rate (the machine keeps up, batches stay small: the per-charge cost
// without batching's discount). What the services do when idle (relay polls, lease renewals, jobs) is
// measured in an idle window just before and subtracted, pro rata of time, from the load window.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { Pool } from 'pg';
import { chargeBody, SCHEMA_REGISTRY_URL, type App, type Cluster, type Seller } from './cluster';
import { openLoop, round, sleep, type LoadResult, type Req } from './load';

/** What count-preload.cjs writes for one process. */
export interface ProcessCounters {
  pid: number;
  at: number;
  sql: {
    statements: number;
    commits: number;
    rollbacks: number;
    autocommit: number;
    by_keyword: Record<string, number>;
  };
  http_out: Record<string, number>;
  http_in: number;
  tcp_out?: number;
  /** kafkajs's requests to the brokers, by API name. */
  kafka?: Record<string, number>;
}

/** The flat counters of one moment: `<figure>` → running total (per service and in total). */
export type Snapshot = { atMs: number; values: Record<string, number> };

export const PRELOAD = `${__dirname}/count-preload.cjs`;

/** The flat counters of every service's process, named by app (`sql.statements.charges`, `http.charges->vault`, …). */
export function flattenProcesses(
  byApp: Partial<Record<App, ProcessCounters>>,
  appOfHost: (host: string) => string,
): Record<string, number> {
  const out: Record<string, number> = {};
  const add = (key: string, n: number) => (out[key] = (out[key] ?? 0) + n);
  for (const [app, c] of Object.entries(byApp)) {
    if (c === undefined) continue;
    add(`sql_statements.${app}`, c.sql.statements);
    add('sql_statements.total', c.sql.statements);
    for (const [keyword, n] of Object.entries(c.sql.by_keyword)) add(`sql_keyword.${keyword}`, n);
    const tx = c.sql.commits + c.sql.autocommit + c.sql.rollbacks;
    add(`sql_transactions.${app}`, tx);
    add('sql_transactions.total', tx);
    for (const [host, n] of Object.entries(c.http_out)) {
      const to = appOfHost(host);
      add(`http_calls.${app}->${to}`, n);
      add('http_calls.total', n);
    }
    add(`http_received.${app}`, c.http_in);
    add(`tcp_connections.${app}`, c.tcp_out ?? 0);
    add('tcp_connections.total', c.tcp_out ?? 0);
    for (const [api, n] of Object.entries(c.kafka ?? {})) {
      add(`kafka_requests.${app}`, n);
      add('kafka_requests.total', n);
      add(`kafka_api.${api}`, n);
    }
  }
  return out;
}

/**
 * Per charge: the load window's deltas less what the idle window's rates would have done in the same time.
 * Pure: `idle` and `load` are [before, after] snapshots; keys missing before count from 0.
 */
export function perCharge(
  idle: [Snapshot, Snapshot],
  load: [Snapshot, Snapshot],
  charges: number,
): Record<string, { per_charge: number; gross_per_charge: number; idle_per_s: number }> {
  const idleS = Math.max(0.001, (idle[1].atMs - idle[0].atMs) / 1000);
  const loadS = (load[1].atMs - load[0].atMs) / 1000;
  const out: Record<string, { per_charge: number; gross_per_charge: number; idle_per_s: number }> =
    {};
  const keys = new Set([...Object.keys(load[1].values), ...Object.keys(idle[1].values)]);
  for (const key of [...keys].sort()) {
    const idleRate = ((idle[1].values[key] ?? 0) - (idle[0].values[key] ?? 0)) / idleS;
    const delta = (load[1].values[key] ?? 0) - (load[0].values[key] ?? 0);
    const n = Math.max(1, charges);
    out[key] = {
      per_charge: round(Math.max(0, delta - idleRate * loadS) / n, 2),
      gross_per_charge: round(delta / n, 2),
      idle_per_s: round(idleRate, 2),
    };
  }
  return out;
}

function readCounters(dir: string): Map<number, ProcessCounters> {
  const byPid = new Map<number, ProcessCounters>();
  if (!existsSync(dir)) return byPid;
  for (const f of readdirSync(dir)) {
    if (!f.endsWith('.json')) continue;
    try {
      const c = JSON.parse(readFileSync(`${dir}/${f}`, 'utf8')) as ProcessCounters;
      byPid.set(c.pid, c);
    } catch {
      // Being replaced (written to .tmp, then renamed): the next read has it.
    }
  }
  return byPid;
}

async function databaseCounters(pool: Pool): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  const s = (
    await pool.query(
      `select xact_commit::float8 as xact_commit, xact_rollback::float8 as xact_rollback, tup_inserted::float8 as tup_inserted, tup_updated::float8 as tup_updated,
              tup_deleted::float8 as tup_deleted, tup_returned::float8 as tup_returned, tup_fetched::float8 as tup_fetched
       from pg_stat_database where datname = current_database()`,
    )
  ).rows[0] as Record<string, number>;
  for (const [k, v] of Object.entries(s)) out[`pg.${k}`] = v;
  const schemas = (
    await pool.query(
      `select table_schema from information_schema.tables where table_name = 'outbox' order by 1`,
    )
  ).rows as Array<{ table_schema: string }>;
  for (const { table_schema: schema } of schemas) {
    const n = Number(
      (await pool.query(`select count(*)::int as n from "${schema}".outbox`)).rows[0].n,
    );
    out[`kafka_messages.${schema}`] = n;
    out['kafka_messages.total'] = (out['kafka_messages.total'] ?? 0) + n;
  }
  out.charges = Number(
    (await pool.query(`select count(*)::int as n from charges.charges`)).rows[0].n,
  );
  return out;
}

async function topicEndOffsets(kafka: Kafka): Promise<Record<string, number>> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    // The services' topics (libs/contracts TOPICS: `<producer>.<name>`), not the integration tests' suffixed copies.
    const topics = (await admin.listTopics()).filter((t) =>
      /^(gateway|charges|receivables|anticipation|webhooks|ledger|vault|acquirer[-_]sim)\.[a-z-]+$/.test(
        t,
      ),
    );
    const out: Record<string, number> = {};
    for (const topic of topics) {
      const n = (await admin.fetchTopicOffsets(topic)).reduce((sum, p) => sum + Number(p.high), 0);
      out[`kafka_end_offsets.${topic}`] = n;
      out['kafka_end_offsets.total'] = (out['kafka_end_offsets.total'] ?? 0) + n;
    }
    return out;
  } finally {
    await admin.disconnect();
  }
}

/** Waits (bounded) until no outbox has an unsent row and no consumer's inbox grew for a second. */
async function waitSettled(pool: Pool, maxMs: number): Promise<void> {
  const t0 = performance.now();
  const tables = async (name: string) =>
    (
      (
        await pool.query(
          `select table_schema from information_schema.tables where table_name = $1`,
          [name],
        )
      ).rows as Array<{ table_schema: string }>
    ).map((r) => r.table_schema);
  const outboxes = await tables('outbox');
  const inboxes = await tables('inbox');
  let last = -1;
  while (performance.now() - t0 < maxMs) {
    let unsent = 0;
    for (const s of outboxes)
      unsent += Number(
        (await pool.query(`select count(*)::int as n from "${s}".outbox where sent_at is null`))
          .rows[0].n,
      );
    let handled = 0;
    for (const s of inboxes)
      handled += Number(
        (await pool.query(`select count(*)::int as n from "${s}".inbox`)).rows[0].n,
      );
    if (unsent === 0 && handled === last) return;
    last = handled;
    await sleep(1000);
  }
}

export interface CountsResult {
  charges: number;
  rate_per_s: number;
  load: LoadResult & { offered_per_s: number; sent: number };
  idle_window_s: number;
  load_window_s: number;
  figures: ReturnType<typeof perCharge>;
}

/**
 * Sends `n` card charges at `rate`/s and returns every counted figure per charge. The cluster's services must
 * have been started with PRELOAD and BENCH_COUNTERS_DIR = `countersDir`.
 */
export async function measureCounts(
  cluster: Cluster,
  seller: Seller,
  cardToken: string,
  countersDir: string,
  options: { charges: number; rate: number; idleMs: number },
): Promise<CountsResult> {
  const pool = new Pool({ connectionString: cluster.databaseUrl, max: 1 });
  const kafka = new Kafka({
    clientId: 'bench-counts',
    brokers: (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(','),
    logLevel: logLevel.NOTHING,
  });
  const portToApp = new Map(
    Object.entries(cluster.urls).map(([app, url]) => [new URL(url).host, app]),
  );
  portToApp.set(new URL(SCHEMA_REGISTRY_URL).host, 'schema-registry');
  const appOfHost = (host: string) => portToApp.get(host) ?? host;
  const pids = () => {
    const m = new Map<number, App>();
    for (const [app, s] of Object.entries(cluster.services)) {
      const pid = s?.pid();
      if (pid !== undefined) m.set(pid, app as App);
    }
    return m;
  };
  // One moment: every process's file written after `t`, then the database's and the broker's view.
  const snapshot = async (): Promise<Snapshot> => {
    const t = Date.now();
    await sleep(1200); // the preload writes every 200 ms; PostgreSQL flushes its statistics about once a second
    const byPid = readCounters(countersDir);
    const byApp: Partial<Record<App, ProcessCounters>> = {};
    for (const [pid, app] of pids()) {
      const c = byPid.get(pid);
      if (c === undefined || c.at < t)
        throw new Error(
          `no fresh counters from ${app} (pid ${pid}) in ${countersDir}: was it started with ${PRELOAD}?`,
        );
      byApp[app] = c;
    }
    const values = {
      ...flattenProcesses(byApp, appOfHost),
      ...(await databaseCounters(pool)),
      ...(await topicEndOffsets(kafka)),
    };
    return { atMs: t, values };
  };
  try {
    await waitSettled(pool, 60_000);
    const idle0 = await snapshot();
    await sleep(options.idleMs);
    const idle1 = await snapshot();
    const make = (): Req => ({
      method: 'POST',
      url: `${cluster.gatewayUrl}/api/v1/charges`,
      headers: { authorization: `Bearer ${seller.key}`, 'idempotency-key': randomUUID() },
      body: chargeBody(cardToken),
    });
    const load = await openLoop(make, {
      ratePerSecond: options.rate,
      durationMs: (options.charges / options.rate) * 1000,
      okStatus: 201,
      drainMs: 30_000,
    });
    await waitSettled(pool, 120_000);
    const load1 = await snapshot();
    const charges = (load1.values.charges ?? 0) - (idle1.values.charges ?? 0);
    const figures = perCharge([idle0, idle1], [idle1, load1], charges);
    delete figures.charges;
    return {
      charges,
      rate_per_s: options.rate,
      load,
      idle_window_s: round((idle1.atMs - idle0.atMs) / 1000, 2),
      load_window_s: round((load1.atMs - idle1.atMs) / 1000, 2),
      figures,
    };
  } finally {
    await pool.end();
  }
}

/** The figures CI budgets: every service's and the total of each kind, but not the keywords or PostgreSQL's own view. */
export const BUDGETED = /^(sql_transactions|sql_statements|http_calls|kafka_messages)\./;

/** A fresh directory for the counters of one run. */
export function countersDirFor(dir: string): string {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return dir;
}
