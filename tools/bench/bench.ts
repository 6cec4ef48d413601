// npm run bench [-- --quick] [--only counts,gateway,charges,lag,ledger,simulate,coldstart] [--compare <results.json>] [--budget <budget.json> [--report <file>]]
// Every figure beside the limit or target measured in the same run, with the machine's load at the time.
// Prints a table and writes bench-results/<timestamp>.json. Loads 127.0.0.1 only; everything bounded.
import { execFileSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { cpuPer, cpuSnapshot } from './cpu';
import { basename, join } from 'node:path';
import { Pool } from 'pg';
import { createPrivateKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import {
  APPS,
  BENCH_DB,
  PG_ADMIN_URL,
  chargeBody,
  provisionSeller,
  ROOT,
  SCHEMA_REGISTRY_URL,
  spawnLogged,
  startCluster,
  stopChild,
  tokenize,
  type App,
  type Cluster,
  type Seller,
} from './cluster';
import { budgetFrom, checkBudget, countedFigures, type Budget } from './budget';
import { compareResults, formatComparison } from './compare';
import { BUDGETED, countersDirFor, measureCounts, PRELOAD } from './counts';
import { monotonicUs, summarizeProfiles, type ProfileSummary, type Window } from './profile';
import {
  closedLoop,
  destroyAgents,
  json,
  openLoop,
  round,
  send,
  sleep,
  summarize,
  type Req,
  type TimeSlice,
} from './load';
import { flags, numberArg, toolArgs, UsageError } from './args';

const SECTIONS = [
  'counts',
  'gateway',
  'charges',
  'lag',
  'ledger',
  'simulate',
  'coldstart',
  'allinone',
] as const;
type Section = (typeof SECTIONS)[number];

interface Row {
  section: Section;
  metric: string;
  value: number | string;
  unit: string;
  limit: string;
  target: string;
  verdict: 'met' | 'MISSED' | 'n/a';
  load: string;
}

interface Args {
  quick: boolean;
  only: Set<Section>;
  profile: string[];
  runner: 'tsx' | 'bundle';
  /** A saved results JSON to print every figure's change against. */
  compare?: string;
  /** The counted figures' budget (budget.ts): the run fails when one rose above it. */
  budget?: string;
  /** Where the budget's verdicts go as {passed, failed} (.ci/run's report_suite). */
  report?: string;
  /** Writes this run's counted figures as the budget (tools/bench/README.md says when). */
  recordBudget?: string;
  /** The counts section's rate of charges per second (2: one event per batch, the budget's rate). */
  countsRate: number;
}

/** The counts section's rate, and the budget's: one charge per two relay rounds (tools/bench/README.md). */
const COUNTS_RATE = 2;

const USAGE =
  'npm run bench [-- --quick] [--tsx] [--profile app,...|all-in-one] [--only counts,gateway,charges,lag,ledger,simulate,coldstart,allinone] [--compare <results.json>] [--budget <budget.json> [--report <file>]] [--record-budget <budget.json>] [--counts-rate <charges/s>]';

function args(): Args {
  const options = flags(
    ['profile', 'only', 'compare', 'budget', 'report', 'record-budget', 'counts-rate'],
    ['quick', 'tsx'],
  );
  return toolArgs(USAGE, options, ({ values }): Args => {
    // The services run from their esbuild bundles, as the images run them; --tsx runs the sources instead.
    const runner = values.tsx === true ? 'tsx' : 'bundle';
    const profile = (values.profile ?? '').split(',').filter((x) => x !== '');
    const only = new Set<Section>(
      values.only !== undefined
        ? (values.only.split(',').filter((s) => s !== '') as Section[])
        : SECTIONS,
    );
    for (const s of only)
      if (!SECTIONS.includes(s))
        throw new UsageError(`unknown section ${s}; sections: ${SECTIONS.join(',')}`);
    const { compare, budget, report } = values;
    const recordBudget = values['record-budget'];
    if ((budget !== undefined || recordBudget !== undefined) && !only.has('counts'))
      throw new UsageError(
        '--budget and --record-budget need the counts section: run it (--only counts, or no --only)',
      );
    const countsRate = numberArg('counts-rate', values['counts-rate'], COUNTS_RATE, (n) => n > 0);
    if ((budget !== undefined || recordBudget !== undefined) && countsRate !== COUNTS_RATE)
      throw new UsageError(
        `the budget is counted at ${COUNTS_RATE}/s: --counts-rate goes without it`,
      );
    return {
      countsRate,
      quick: values.quick === true,
      only,
      profile,
      runner,
      ...(compare !== undefined ? { compare } : {}),
      ...(budget !== undefined ? { budget } : {}),
      ...(report !== undefined ? { report } : {}),
      ...(recordBudget !== undefined ? { recordBudget } : {}),
    };
  });
}

const load1 = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
const rows: Row[] = [];
const details: Record<string, unknown> = {};
/** Each profiled process's closed loop on the monotonic clock: what --profile summarises of it. */
const profileWindows: Record<string, Window> = {};

function row(
  section: Section,
  metric: string,
  value: number | string,
  unit: string,
  limit: string,
  target: string,
  met: boolean | null,
): void {
  rows.push({
    section,
    metric,
    value,
    unit,
    limit,
    target,
    verdict: met === null ? 'n/a' : met ? 'met' : 'MISSED',
    load: load1(),
  });
  process.stdout.write(
    `  ${metric}: ${value} ${unit}  [${limit}] ${target} ${met === null ? '' : met ? 'met' : 'MISSED'}  (load ${load1()})\n`,
  );
}

/**
 * The gateway's signed principal for one GET, as libs/platform/http/src/principal.ts makes it (a tool
 * tagged type:testing may not import that library): base64url(JSON, bound to the method, the canonical
 * path and query) "." base64url(Ed25519 signature). The bench's paths are plain ASCII: canonical as written.
 */
function signPrincipal(
  principal: Record<string, unknown>,
  url: string,
  privateKey: KeyObject,
): string {
  const mark = url.indexOf('?');
  const request = {
    method: 'GET',
    path: mark === -1 ? url : url.slice(0, mark),
    query: mark === -1 ? '' : new URLSearchParams(url.slice(mark + 1)).toString(),
  };
  const data = Buffer.from(JSON.stringify({ ...principal, request })).toString('base64url');
  return `${data}.${sign(null, Buffer.from(data), privateKey).toString('base64url')}`;
}

/** A principal per path (the service refuses one signed for another request), signed again every second. */
function principalFor(
  cluster: Cluster,
  seller: Seller,
  permissions: string[],
): (url: string) => string {
  const privateKey = createPrivateKey(cluster.principalPrivateKeyPem);
  const cached = new Map<string, { token: string; untilMs: number }>();
  return (url) => {
    const now = Date.now();
    const hit = cached.get(url);
    if (hit !== undefined && now <= hit.untilMs) return hit.token;
    const token = signPrincipal(
      {
        kind: 'api_key',
        tenantId: seller.tenantId,
        sellerId: seller.sellerId,
        keyId: seller.keyId,
        permissions,
        livemode: false,
        requestId: `req_bench${now}`,
        expiresAtMs: now + 50_000,
      },
      url,
      privateKey,
    );
    cached.set(url, { token, untilMs: now + 1000 });
    return token;
  };
}

// ——— Counted figures per charge (counts.ts): what CI holds to tools/bench/budget.json ———
async function benchCounts(
  cluster: Cluster,
  seller: Seller,
  cardToken: string,
  countersDir: string,
  { quick, rate }: { quick: boolean; rate: number },
): Promise<void> {
  const r = await measureCounts(cluster, seller, cardToken, countersDir, {
    charges: rate * (quick ? 20 : 60),
    rate,
    idleMs: 10_000,
  });
  details.counts = r;
  process.stdout.write(
    `  ${r.charges} charges at ${r.rate_per_s}/s (${r.load.ok} answered 201, ${r.load.failed} not); idle work of a ${r.idle_window_s} s window subtracted pro rata from the ${r.load_window_s} s load window\n`,
  );
  row(
    'counts',
    'charges counted (201)',
    r.charges,
    '',
    `${r.load.sent} sent at ${r.rate_per_s}/s, ${r.load.failed} not 201`,
    `${r.load.sent}`,
    r.load.failed === 0 && r.charges === r.load.sent,
  );
  for (const [key, f] of Object.entries(r.figures)) {
    row(
      'counts',
      `${key} per charge`,
      f.per_charge,
      '',
      `gross ${f.gross_per_charge}, idle ${f.idle_per_s}/s`,
      '',
      null,
    );
  }
}

// ——— Gateway overhead ———
async function benchGateway(cluster: Cluster, seller: Seller, quick: boolean): Promise<void> {
  const principal = principalFor(cluster, seller, ['balance:read']);
  const direct = (): Req => ({
    method: 'GET',
    url: `${cluster.urls.ledger}/api/v1/balance`,
    headers: { 'x-gateway-principal': principal('/api/v1/balance') },
  });
  const viaGateway = (): Req => ({
    method: 'GET',
    url: `${cluster.gatewayUrl}/api/v1/balance`,
    headers: { authorization: `Bearer ${seller.key}` },
  });
  const durationMs = quick ? 3000 : 10_000;
  const concurrency = 32;
  const d = await closedLoop(direct, { concurrency, durationMs, warmupMs: 1000 });
  const g = await closedLoop(viaGateway, { concurrency, durationMs, warmupMs: 1000 });
  // Latency is compared below saturation: at most half the gateway's closed-loop throughput of this run.
  const rate = Math.max(10, Math.min(quick ? 100 : 200, Math.floor(g.rate_per_s / 2)));
  const od = await openLoop(direct, { ratePerSecond: rate, durationMs: quick ? 3000 : 8000 });
  const og = await openLoop(viaGateway, { ratePerSecond: rate, durationMs: quick ? 3000 : 8000 });
  details.gateway = {
    closed_loop_concurrency: concurrency,
    direct_closed: d,
    gateway_closed: g,
    open_rate_per_s: rate,
    direct_open: od,
    gateway_open: og,
  };
  const ratio = g.rate_per_s / d.rate_per_s;
  row('gateway', 'GET /balance direct to ledger', d.rate_per_s, 'req/s', 'the limit', '', null);
  row(
    'gateway',
    'GET /balance through gateway',
    g.rate_per_s,
    'req/s',
    `${d.rate_per_s} direct`,
    '',
    null,
  );
  row(
    'gateway',
    'gateway throughput / direct',
    `${round(ratio * 100)}%`,
    '',
    `${g.failed + d.failed} errors`,
    '≥ 50%',
    ratio >= 0.5,
  );
  for (const p of ['p50', 'p99'] as const) {
    const [direct, gateway] = [od[`${p}_ms`], og[`${p}_ms`]];
    row(
      'gateway',
      `added ${p} at ${rate}/s open loop`,
      round(gateway - direct, 2),
      'ms',
      `direct ${p} ${direct} ms, gw ${gateway} ms`,
      '',
      null,
    );
  }
}

const capacity: { chargesPerSecond?: number } = {};

async function dbStats(databaseUrl: string): Promise<Record<string, number>> {
  const pool = new Pool({ connectionString: databaseUrl, max: 1 });
  try {
    const stats = await pool.query(
      `select xact_commit::float8 as xact_commit, tup_inserted::float8 as tup_inserted, tup_updated::float8 as tup_updated, tup_deleted::float8 as tup_deleted,
              tup_returned::float8 as tup_returned, tup_fetched::float8 as tup_fetched, blks_hit::float8 as blks_hit
       from pg_stat_database where datname = current_database()`,
    );
    const charges = await pool.query('select count(*)::float8 as n from charges.charges');
    return {
      ...(stats.rows[0] as Record<string, number>),
      charges: (charges.rows[0] as { n: number }).n,
    };
  } finally {
    await pool.end();
  }
}

/** Sends one request at a time until one answers within okMs; the seconds it took (bounded). */
async function drain(make: () => Req, okMs: number, maxMs: number): Promise<number> {
  const t0 = performance.now();
  while (performance.now() - t0 < maxMs) {
    const t = performance.now();
    try {
      await send(make(), { timeoutMs: 30_000 });
      if (performance.now() - t <= okMs) break;
    } catch {
      /* still saturated */
    }
    await sleep(500);
  }
  return round((performance.now() - t0) / 1000);
}

// ——— Card charges end to end, and the PostgreSQL limit of the same transaction ———
async function pgLimit(
  databaseUrl: string,
  quick: boolean,
): Promise<{
  rate_per_s: number;
  p50_ms: number;
  p99_ms: number;
  count: number;
  pool: number;
  concurrency: number;
}> {
  // The equivalent transaction with pg alone, on copies of the charges service's tables (same columns,
  // keys and indexes) in a schema of its own: charge row + idempotency row + outbox row, one commit.
  const pool = new Pool({ connectionString: databaseUrl, max: 10 });
  const schema = 'bench_pglimit';
  await pool.query(`drop schema if exists ${schema} cascade`);
  await pool.query(`create schema ${schema}`);
  await pool.query(`create table ${schema}.charges (like charges.charges including all)`);
  await pool.query(
    `create table ${schema}.idempotency_keys (like charges.idempotency_keys including all)`,
  );
  await pool.query(`create table ${schema}.outbox (like charges.outbox including all)`);
  const payload = Buffer.alloc(900, 7);
  const buyer = JSON.stringify({ name: 'Ana Souza', email: 'ana@example.com' });
  const concurrency = 64;
  const end = performance.now() + (quick ? 4000 : 10_000);
  const latencies: number[] = [];
  let n = 0;
  const worker = async () => {
    while (performance.now() < end) {
      const id = `ch_${randomUUID().replace(/-/g, '')}`;
      const t0 = performance.now();
      const c = await pool.connect();
      try {
        await c.query('begin');
        await c.query(
          `insert into ${schema}.charges (id, tenant_id, livemode, seller_id, status, amount_cents, currency, payment_method, capture_method, installments, card_token, card_ref, buyer_json, split_json, acquirer_code, acquirer_transaction_id, authorization_code, outcome_known, paid_at, created_at, updated_at)
           values ($1, 'ten_bench', false, 'seller_bench', 'paid', 10000, 'BRL', 'CREDIT_CARD', 'automatic', 1, 'tok_bench', 'cref_bench', $2, '[]', 'sim', $3, '123456', true, now(), now(), now())`,
          [id, buyer, `tx_${n}`],
        );
        await c.query(
          `insert into ${schema}.idempotency_keys (tenant_id, livemode, seller_scope, method, path, key, request_hash, state, response_status, response_json, resource_id, lease_owner, locked_at, created_at)
           values ('ten_bench', false, 'seller_bench', 'POST', '/api/v1/charges', $1, 'h', 'done', 201, $2, $3, 'bench', now(), now())`,
          [id, buyer, id],
        );
        await c.query(
          `insert into ${schema}.outbox (topic, key, event_id, event_type, payload) values ('charges.charge', $1, $2, 'charges.charge-paid.v1', $3)`,
          [id, `evt_${id}`, payload],
        );
        await c.query('commit');
      } finally {
        c.release();
      }
      latencies.push(performance.now() - t0);
      n++;
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - t0) / 1000;
  await pool.query(`drop schema ${schema} cascade`);
  await pool.end();
  const s = summarize(latencies);
  return {
    rate_per_s: round(n / seconds),
    p50_ms: s.p50_ms,
    p99_ms: s.p99_ms,
    count: n,
    pool: 10,
    concurrency,
  };
}

/** CPU milliseconds by process as `name ms`, the largest first. */
function largestFirst(byProcessMs: Record<string, number>): string {
  return Object.entries(byProcessMs)
    .sort(([, a], [, b]) => b - a)
    .map(([name, ms]) => `${name} ${ms}`)
    .join(', ');
}

/** The two slices of an open loop with the slowest answer: whether its tail is a moment (a start, a stall) or all along. */
function slowestSlices(slices: readonly TimeSlice[]): string {
  return (
    [...slices]
      .sort((a, b) => b.max_ms - a.max_ms)
      .slice(0, 2)
      .map((t) => `from ${t.from_s} s: max ${t.max_ms} ms, p50 ${t.p50_ms} (${t.count})`)
      .join('; ') || 'none (no answer 201)'
  );
}

async function benchCharges(
  cluster: Cluster,
  seller: Seller,
  cardToken: string,
  quick: boolean,
): Promise<void> {
  const make = (): Req => ({
    method: 'POST',
    url: `${cluster.gatewayUrl}/api/v1/charges`,
    headers: { authorization: `Bearer ${seller.key}`, 'idempotency-key': randomUUID() },
    body: chargeBody(cardToken),
  });
  const concurrency = 64;
  const pids = () =>
    Object.fromEntries(
      Object.entries(cluster.services).map(([app, service]) => [app, service?.pid()]),
    );
  const before = await dbStats(cluster.databaseUrl);
  const cpuBefore = cpuSnapshot(pids());
  const startUs = monotonicUs();
  const e2e = await closedLoop(make, {
    concurrency,
    durationMs: quick ? 5000 : 15_000,
    warmupMs: 2000,
    okStatus: 201,
  });
  const cpuAfter = cpuSnapshot(pids());
  const loopWindow = { startUs, endUs: monotonicUs() };
  for (const app of APPS) profileWindows[app] = loopWindow;
  await sleep(1500); // PostgreSQL flushes its statistics about once a second
  const after = await dbStats(cluster.databaseUrl);
  const chargesMade = Math.max(1, (after.charges ?? 0) - (before.charges ?? 0));
  const cpu = cpuPer(cpuBefore, cpuAfter, chargesMade);
  // Everything the database did during the closed loop (every service, consumers and relays included), per
  // charge answered 201 (including the 2 s warm-up's charges, counted by the delta of charges rows).
  const perCharge = Object.fromEntries(
    Object.entries(after)
      .filter(([k]) => k !== 'charges')
      .map(([k, v]) => [
        k,
        round(
          (v - (before[k] ?? 0)) / Math.max(1, (after.charges ?? 0) - (before.charges ?? 0)),
          2,
        ),
      ]),
  );
  await sleep(2000);
  // Issue 18's overload figure: five times what the closed loop found the system carries.
  const offered = Math.max(50, Math.round(5 * e2e.rate_per_s));
  const openCpuBefore = cpuSnapshot(pids());
  const open = await openLoop(make, {
    ratePerSecond: offered,
    durationMs: quick ? 2000 : 10_000,
    okStatus: 201,
    drainMs: 20_000,
  });
  // Per request answered, 201 or 503: where the machine's two cores go while most of what is offered is refused.
  const openCpuAfter = cpuSnapshot(pids());
  const shed = open.statuses['503'] ?? 0;
  const openCpu = cpuPer(openCpuBefore, openCpuAfter, open.ok + shed);
  // What the client gave up on is still queued in the services: wait until a charge answers promptly
  // again, so the next section does not measure this one's backlog.
  const drainedIn = await drain(make, Math.max(1000, e2e.p50_ms / 4), 180_000);
  const limit = await pgLimit(cluster.databaseUrl, quick);
  details.charges = {
    closed_loop_concurrency: concurrency,
    end_to_end: e2e,
    open_loop_5x: open,
    open_loop_cpu_per_request: openCpu,
    drained_in_s: drainedIn,
    pg_limit: limit,
    database_work_per_charge: perCharge,
    cpu_per_charge: cpu,
  };
  capacity.chargesPerSecond = e2e.rate_per_s;
  const ratio = e2e.rate_per_s / limit.rate_per_s;
  row(
    'charges',
    'card charges/s end to end (gateway, PG, Kafka)',
    e2e.rate_per_s,
    '/s',
    `PG limit ${limit.rate_per_s}/s`,
    '≥ 250/s',
    e2e.rate_per_s >= 250,
  );
  row(
    'charges',
    'machine CPU per charge (every process, closed loop)',
    cpu.total_ms,
    'ms',
    largestFirst(cpu.by_process_ms),
    '≤ 8 ms',
    cpu.total_ms <= 8,
  );
  row(
    'charges',
    'raw PG charge+idempotency+outbox tx',
    limit.rate_per_s,
    'tx/s',
    'the limit (pool 10, 64 workers)',
    '',
    null,
  );
  row(
    'charges',
    'end to end / PG limit',
    `${round(ratio * 100)}%`,
    '',
    `${e2e.rate_per_s} / ${limit.rate_per_s}`,
    '≥ 25%',
    ratio >= 0.25,
  );
  row(
    'charges',
    'PG commits per charge (all services)',
    perCharge.xact_commit ?? NaN,
    'commits',
    `the limit's transaction: 1 commit, 3 inserts; here ${perCharge.tup_inserted} inserts, ${perCharge.tup_updated} updates`,
    '≤ 3',
    (perCharge.xact_commit ?? NaN) <= 3,
  );
  row(
    'charges',
    `closed-loop latency p50/p99 (c=${concurrency})`,
    `${e2e.p50_ms} / ${e2e.p99_ms}`,
    'ms',
    `PG tx p50/p99 ${limit.p50_ms} / ${limit.p99_ms} ms`,
    '',
    null,
  );
  // The gateway's admission control answers what is over its adaptive limit with 503 at once (shed, not
  // failed late): the latencies are those of the charges answered 201.
  const delivered = `${open.ok}/${open.sent} answered 201 at ${open.offered_per_s}/s offered; ${shed} shed with 503, ${open.failed - shed} failed otherwise`;
  row(
    'charges',
    'p50 at 5× capacity offered (open loop, 201s)',
    open.p50_ms,
    'ms',
    delivered,
    '',
    null,
  );
  row(
    'charges',
    'p99 at 5× capacity offered (open loop, 201s)',
    open.p99_ms,
    'ms',
    `${offered}/s offered (5 × ${e2e.rate_per_s}/s), completed ${open.rate_per_s}/s; slowest half-seconds ${slowestSlices(open.over_time)}`,
    '≤ 250 ms, the rest 503',
    open.p99_ms <= 250 && open.failed === shed,
  );
  // The gateway's cost of a refusal, from its CPU over the open loop less what the admitted charges cost it at
  // the closed loop's rate per charge: what shedding takes from the cores the admitted charges need.
  const gatewayOpenMs = (openCpuAfter.gateway ?? 0) - (openCpuBefore.gateway ?? 0);
  const gatewayPerRefusal =
    shed === 0
      ? NaN
      : round((gatewayOpenMs - open.ok * (cpu.by_process_ms.gateway ?? 0)) / shed, 3);
  row(
    'charges',
    'machine CPU per request at 5× offered (201s and 503s)',
    openCpu.total_ms,
    'ms',
    `${largestFirst(openCpu.by_process_ms)}; the gateway's per 503 ≈ ${gatewayPerRefusal} ms`,
    '',
    null,
  );
}

/** Waits (bounded) until no outbox holds an unsent row and the ledger's journal stops growing. */
async function waitEventsIdle(databaseUrl: string, maxMs: number): Promise<number> {
  const pool = new Pool({ connectionString: databaseUrl, max: 1 });
  const t0 = performance.now();
  try {
    const schemas = (
      await pool.query(
        `select table_schema from information_schema.tables where table_name = 'outbox'`,
      )
    ).rows.map((r: { table_schema: string }) => r.table_schema);
    let last = -1;
    while (performance.now() - t0 < maxMs) {
      let unsent = 0;
      for (const schema of schemas)
        unsent += Number(
          (await pool.query(`select count(*) as n from ${schema}.outbox where sent_at is null`))
            .rows[0].n,
        );
      const journal = Number(
        (await pool.query('select count(*) as n from ledger.journal_entries')).rows[0].n,
      );
      if (unsent === 0 && journal === last) break;
      last = journal;
      await sleep(2000);
    }
  } finally {
    await pool.end();
  }
  return round((performance.now() - t0) / 1000);
}

// ——— Event lag: a charge's 201 → its seller's pending balance shows it ———
async function benchLag(cluster: Cluster, quick: boolean): Promise<void> {
  // Start from an idle pipeline: the earlier sections' events must not be measured as this one's lag.
  const idleAfter = await waitEventsIdle(cluster.databaseUrl, 180_000);
  const seller = await provisionSeller(cluster);
  const cardToken = await tokenize(cluster, seller);
  const balanceReq: Req = {
    method: 'GET',
    url: `${cluster.gatewayUrl}/api/v1/balance`,
    headers: { authorization: `Bearer ${seller.key}` },
  };
  const pendingNow = async () =>
    (JSON.parse((await send(balanceReq)).body) as { pending_cents: number }).pending_cents;
  const baseline = await pendingNow();
  // The target is stated at 125 charges/s or more (issue 18); a system that cannot carry that would only
  // measure its queue, so the rate is capped at half the end-to-end capacity measured in this run (and
  // says so).
  const wanted = 125;
  const rate =
    capacity.chargesPerSecond !== undefined
      ? Math.max(5, Math.min(wanted, Math.floor(capacity.chargesPerSecond / 2)))
      : wanted;
  const samples: Array<{ t: number; pending: number }> = [];
  let polling = true;
  // One poll in flight at a time: the balance as the seller would see it, every few milliseconds.
  const poller = (async () => {
    while (polling) {
      try {
        const p = await pendingNow();
        samples.push({ t: performance.now(), pending: p - baseline });
      } catch {
        /* counted by the absence of samples */
      }
      await sleep(2);
    }
  })();
  const okTimes: number[] = [];
  const make = (): Req => ({
    method: 'POST',
    url: `${cluster.gatewayUrl}/api/v1/charges`,
    headers: { authorization: `Bearer ${seller.key}`, 'idempotency-key': randomUUID() },
    body: chargeBody(cardToken, 10_000),
  });
  const open = await openLoop(make, {
    ratePerSecond: rate,
    durationMs: quick ? 4000 : 10_000,
    okStatus: 201,
    onOk: (_a, _i, _s, done) => okTimes.push(done),
  });
  // Let the events land (at most 30 s), then stop polling.
  const deadline = performance.now() + 30_000;
  let final = 0;
  let stable = 0;
  while (performance.now() < deadline) {
    await sleep(250);
    const last = samples[samples.length - 1]?.pending ?? 0;
    if (last === final && last > 0) stable++;
    else stable = 0;
    final = last;
    if (stable >= 8) break;
  }
  polling = false;
  await poller;
  // Each charge moves pending by the same net amount; with N charges answered 201, the k-th 201 (in time
  // order) is visible once pending reaches k × net. Exact when events apply in order, close otherwise.
  okTimes.sort((a, b) => a - b);
  const net = final / okTimes.length;
  const signed: number[] = [];
  let j = 0;
  for (let k = 0; k < okTimes.length; k++) {
    const need = (k + 1) * net - 0.5;
    while (j < samples.length && (samples[j]?.pending ?? 0) < need) j++;
    if (j >= samples.length) break;
    signed.push((samples[j]?.t ?? 0) - (okTimes[k] ?? 0));
  }
  // Negative: the balance showed the charge before its 201 reached the client (the event outran the
  // response's last transaction and the trip back through the gateway); counted as 0 ms of lag.
  const lags = signed.map((x) => Math.max(0, x));
  const shownBefore201 = signed.filter((x) => x <= 0).length;
  const s = summarize(lags);
  const pollGap = summarize(samples.slice(1).map((x, i) => x.t - (samples[i]?.t ?? 0)));
  details.lag = {
    waited_for_idle_pipeline_s: idleAfter,
    rate_per_s: rate,
    charges: open,
    lag: s,
    signed_lag: summarize(signed),
    shown_before_201: shownBefore201,
    net_per_charge_cents: net,
    polls: samples.length,
    poll_interval: pollGap,
    unseen: okTimes.length - lags.length,
  };
  row(
    'lag',
    `event lag p50 at ${rate} charges/s (Kafka)`,
    s.p50_ms,
    'ms',
    `poll every ~${pollGap.p50_ms} ms; ${shownBefore201}/${signed.length} shown before their 201 arrived; charge p99 ${open.p99_ms} ms`,
    '',
    null,
  );
  const at = rate === wanted ? '' : ` (target's ${wanted}/s is over capacity)`;
  row(
    'lag',
    `event lag p99 at ${rate} charges/s (Kafka)${at}`,
    s.p99_ms,
    'ms',
    `${lags.length}/${okTimes.length} seen, ${open.failed} charges failed`,
    '≤ 250 ms at ≥ 125/s',
    rate >= 125 ? s.p99_ms <= 250 && lags.length === okTimes.length : false,
  );
}

// ——— Ledger reads with a million entries ———
async function benchLedger(cluster: Cluster, quick: boolean): Promise<void> {
  const seller = await provisionSeller(cluster);
  const entries = quick ? 100_000 : 1_000_000;
  const pool = new Pool({ connectionString: cluster.databaseUrl, max: 2 });
  const t0 = performance.now();
  const s = seller.sellerId;
  // Seeded straight into the ledger's tables: `entries` charge entries, each with its two postings.
  await pool.query(
    `insert into ledger.journal_entries (id, source_event_id, tenant_id, livemode, seller_id, type, charge_id, amount_cents, direction, created_at)
     select 'ldge' || md5($1 || g), 'evt_' || md5($1 || g), $2, false, $1, 'charge', 'ch_' || md5($1 || g), 1000 + (g % 9000), 'credit',
            now() - interval '400 days' + (g * interval '30 seconds')
     from generate_series(1, $3::int) g`,
    [s, seller.tenantId, entries],
  );
  await pool.query(
    `insert into ledger.postings (entry_seq, tenant_id, livemode, account, amount_cents)
     select seq, tenant_id, livemode, a.account, case when a.credit then amount_cents else -amount_cents end
     from ledger.journal_entries, (values ('seller:' || $1::text || ':pending', true), ('platform:cash', false)) a(account, credit)
     where seller_id = $1`,
    [s],
  );
  await pool.query(
    `insert into ledger.accounts (tenant_id, livemode, account, seller_id, balance_cents)
     select $2, false, 'seller:' || $1::text || ':pending', $1, sum(amount_cents) from ledger.journal_entries where seller_id = $1
     on conflict (tenant_id, livemode, account) do update set balance_cents = excluded.balance_cents`,
    [s, seller.tenantId],
  );
  // The history's length, as the ledger keeps it beside the entries it writes itself.
  await pool.query(
    `insert into ledger.history_counts (tenant_id, livemode, seller_id, entries)
     select $2, false, $1, count(*) from ledger.journal_entries where seller_id = $1 and amount_cents > 0
     on conflict (tenant_id, livemode, seller_id) do update set entries = excluded.entries`,
    [s, seller.tenantId],
  );
  await pool.query('analyze ledger.journal_entries');
  await pool.query('analyze ledger.postings');
  const seedSeconds = round((performance.now() - t0) / 1000);
  await pool.end();

  const principal = principalFor(cluster, seller, ['balance:read']);
  const n = quick ? 200 : 1000;
  const timed = async (req: () => Req, count: number) => {
    const lat: number[] = [];
    let failed = 0;
    for (let i = 0; i < count; i++) {
      const t = performance.now();
      const a = await send(req());
      if (a.status === 200) lat.push(performance.now() - t);
      else failed++;
    }
    return { ...summarize(lat), failed };
  };
  const direct = (path: string) => () => ({
    method: 'GET' as const,
    url: `${cluster.urls.ledger}${path}`,
    headers: { 'x-gateway-principal': principal(path) },
  });
  const via = (path: string) => () => ({
    method: 'GET' as const,
    url: `${cluster.gatewayUrl}${path}`,
    headers: { authorization: `Bearer ${seller.key}` },
  });
  await timed(direct('/api/v1/balance'), 50);
  const balD = await timed(direct('/api/v1/balance'), n);
  const balG = await timed(via('/api/v1/balance'), n);
  const hn = quick ? 20 : 100;
  const hist1 = await timed(direct('/api/v1/balance/history?limit=50'), hn);
  const histDeep = await timed(
    direct('/api/v1/balance/history?limit=50&page=1000'),
    Math.max(10, hn / 5),
  );
  const histG = await timed(via('/api/v1/balance/history?limit=50'), hn);
  // The page must also be right: its total is the seeded history's length.
  const page = JSON.parse(
    (await send(direct('/api/v1/balance/history?limit=50&page=1000')())).body,
  ) as { total?: number; data?: unknown[] };
  const pageRight = page.total === entries && page.data?.length === 50;
  details.ledger = {
    entries,
    postings: entries * 2,
    seed_seconds: seedSeconds,
    balance_direct: balD,
    balance_gateway: balG,
    history_page1_direct: hist1,
    history_page1000_direct: histDeep,
    history_page1_gateway: histG,
  };
  const e = `${entries.toLocaleString('en')} entries`;
  row(
    'ledger',
    `balance read p95, ledger direct (${e})`,
    balD.p95_ms,
    'ms',
    `p50 ${balD.p50_ms} ms, sequential`,
    '≤ 5 ms',
    balD.p95_ms <= 5,
  );
  row(
    'ledger',
    `balance read p95 through gateway`,
    balG.p95_ms,
    'ms',
    `p50 ${balG.p50_ms} ms`,
    '≤ 5 ms',
    balG.p95_ms <= 5,
  );
  row(
    'ledger',
    `history page 1 (50) p95, direct (${e})`,
    hist1.p95_ms,
    'ms',
    `p50 ${hist1.p50_ms} ms; via gateway p95 ${histG.p95_ms} ms`,
    '',
    null,
  );
  row(
    'ledger',
    `history page 1000 (50) p95, direct`,
    histDeep.p95_ms,
    'ms',
    `p50 ${histDeep.p50_ms} ms; total ${page.total} (${pageRight ? 'right' : `WRONG, expected ${entries}`})`,
    '',
    null,
  );
}

// ——— Anticipation simulate ———
async function benchSimulate(
  cluster: Cluster,
  seller: Seller | null,
  quick: boolean,
): Promise<void> {
  const script = join(ROOT, 'tools', 'bench', 'anticipation-simulate.ts');
  if (existsSync(script)) {
    // The other engineer's script: run as is, its output kept verbatim in the JSON.
    try {
      const out = execFileSync(
        process.execPath,
        [
          join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'),
          script,
          ...(quick ? ['--quick'] : []),
        ],
        {
          cwd: ROOT,
          env: {
            ...process.env,
            DATABASE_URL: cluster.databaseUrl,
            GATEWAY_URL: cluster.gatewayUrl,
          },
          timeout: 300_000,
          encoding: 'utf8',
        },
      );
      details.simulate_script = out;
      const m = /p95[^0-9]*([0-9.]+)\s*ms/i.exec(out);
      const n = /of ([0-9]+) receivables/.exec(out)?.[1] ?? '?';
      const p50 = /p50 ([0-9.]+) ms/.exec(out)?.[1] ?? '?';
      row(
        'simulate',
        `simulate ${n} receivables p95 (anticipation-simulate.ts, PGlite in-process)`,
        m ? Number(m[1]) : 'see JSON',
        'ms',
        `p50 ${p50} ms`,
        '≤ 30 ms',
        m ? Number(m[1]) <= 30 : null,
      );
    } catch (err) {
      details.simulate_script_error = String(err);
      row(
        'simulate',
        'anticipation-simulate.ts',
        'failed',
        '',
        String(err).slice(0, 80),
        '≤ 30 ms',
        null,
      );
    }
  }
  if (cluster.urls.anticipation === undefined) {
    row(
      'simulate',
      'POST /anticipations/simulate',
      'not run',
      '',
      `anticipation service did not start: ${cluster.skipped.anticipation ?? 'absent'}`.slice(
        0,
        100,
      ),
      '≤ 30 ms',
      null,
    );
    return;
  }
  if (seller === null) return;
  // The charges section's seller has thousands of card charges, hence receivables: simulate over all.
  const req = (): Req => ({
    method: 'POST',
    url: `${cluster.gatewayUrl}/api/v1/anticipations/simulate`,
    headers: { authorization: `Bearer ${seller.key}` },
  });
  const first = await send(req(), { timeoutMs: 60_000 });
  if (first.status !== 200) {
    row(
      'simulate',
      'POST /anticipations/simulate (all eligible)',
      `HTTP ${first.status}`,
      '',
      first.body.slice(0, 80),
      '≤ 30 ms',
      null,
    );
    details.simulate_first = first.body.slice(0, 2000);
    return;
  }
  const body = JSON.parse(first.body) as Record<string, unknown>;
  const items = Array.isArray(body.receivables)
    ? body.receivables.length
    : Array.isArray(body.items)
      ? body.items.length
      : '?';
  const lat: number[] = [];
  for (let i = 0; i < (quick ? 10 : 30); i++) {
    const t = performance.now();
    const a = await send(req(), { timeoutMs: 60_000 });
    if (a.status === 200) lat.push(performance.now() - t);
  }
  const s = summarize(lat);
  details.simulate = { receivables: items, latency: s, keys: Object.keys(body) };
  row(
    'simulate',
    `simulate all eligible (${items} receivables) p95`,
    s.p95_ms,
    'ms',
    `p50 ${s.p50_ms} ms`,
    '≤ 30 ms',
    s.p95_ms <= 30,
  );
}

// ——— All-in-one cold start ———
/**
 * Milliseconds from `started` until `url` answers 200 (asked every 25 ms, up to two minutes); NaN when the
 * child exits first or it never does.
 */
async function msUntilHealthy(child: ChildProcess, url: string, started: number): Promise<number> {
  while (performance.now() - started < 120_000 && child.exitCode === null) {
    try {
      const answer = await send({ method: 'GET', url }, { timeoutMs: 1000 });
      if (answer.status === 200) return performance.now() - started;
    } catch {
      /* not yet */
    }
    await sleep(25);
  }
  return NaN;
}

async function benchColdStart(quick: boolean): Promise<void> {
  const results: number[] = [];
  const runs = quick ? 1 : 3;
  for (let i = 0; i < runs; i++) {
    const dir = mkdtempSync(join(tmpdir(), 'pgw-bench-'));
    const port = 18290;
    const t0 = performance.now();
    const child = spawnLogged(
      [
        join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'),
        join('apps', 'all-in-one', 'src', 'main.ts'),
      ],
      {
        ...process.env,
        PORT: String(port),
        DATA_DIR: dir,
        DEMO: '1',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
      },
      join(dir, '..', `${dir.split('/').pop()}.log`),
    );
    const ms = await msUntilHealthy(child, `http://127.0.0.1:${port}/api/v1/health`, t0);
    destroyAgents();
    await stopChild(child);
    rmSync(dir, { recursive: true, force: true });
    results.push(ms);
  }
  const s = summarize(results.filter((x) => Number.isFinite(x)));
  details.coldstart = { runs: results };
  row(
    'coldstart',
    `npm start (tsx) empty DATA_DIR → health, median of ${runs}`,
    round(s.p50_ms / 1000, 2),
    's',
    `max ${round(s.max_ms / 1000, 2)} s`,
    '≤ 10 s',
    s.p50_ms <= 10_000,
  );
}

// ——— The all-in-one (`npm start`): card charges/s with 32 clients ———
/**
 * `npm start` as a developer runs it (one process, PGlite in a fresh DATA_DIR, its default log level), with
 * `node --import tsx` instead of the tsx CLI so that the process measured is the one that runs (the CLI
 * starts a child). A tenant, seller and key through the operator API, then the charges' closed loop.
 */
async function benchAllInOne(quick: boolean, profileDir: string | null): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'pgw-bench-aio-'));
  const port = 18293;
  const adminToken = `adm_bench_${randomUUID().replace(/-/g, '')}`;
  const gatewayUrl = `http://127.0.0.1:${port}`;
  const child = spawnLogged(
    [
      ...(profileDir !== null ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
      '--import',
      'tsx',
      join('apps', 'all-in-one', 'src', 'main.ts'),
    ],
    {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dir,
      DEMO: '0',
      ADMIN_TOKEN: adminToken,
      // As in the cluster: the figure is the charges' path, not a key's token bucket (100/s by default).
      RATE_LIMIT_PER_SECOND: '1000000',
    },
    join(ROOT, 'bench-results', 'logs', 'all-in-one.log'),
  );
  try {
    const startMs = await msUntilHealthy(child, `${gatewayUrl}/api/v1/health`, performance.now());
    if (!Number.isFinite(startMs))
      throw new Error(
        'the all-in-one did not answer /api/v1/health (bench-results/logs/all-in-one.log)',
      );
    const seller = await provisionSeller({ adminToken, gatewayUrl });
    const cardToken = await tokenize({ gatewayUrl }, seller);
    const make = (): Req => ({
      method: 'POST',
      url: `${gatewayUrl}/api/v1/charges`,
      headers: { authorization: `Bearer ${seller.key}`, 'idempotency-key': randomUUID() },
      body: chargeBody(cardToken),
    });
    for (let i = 0; i < 20; i++) await json(make(), 201); // JIT, caches
    const pid = child.pid;
    const cpuBefore = cpuSnapshot({ 'all-in-one': pid });
    const startUs = monotonicUs();
    const loop = await closedLoop(make, {
      concurrency: 32,
      durationMs: quick ? 5000 : 15_000,
      warmupMs: 1000,
      okStatus: 201,
    });
    profileWindows['all-in-one'] = { startUs, endUs: monotonicUs() };
    const cpu = cpuPer(cpuBefore, cpuSnapshot({ 'all-in-one': pid }), Math.max(1, loop.ok));
    details.allinone = { closed_loop: loop, cpu_per_charge: cpu, ready_ms: round(startMs) };
    row(
      'allinone',
      'all-in-one card charges/s (npm start, 32 clients)',
      loop.rate_per_s,
      '/s',
      `p50 ${loop.p50_ms} / p99 ${loop.p99_ms} ms; ${Object.entries(loop.statuses)
        .map(([k, v]) => `${v} × ${k}`)
        .join(', ')}`,
      '≥ 150/s',
      loop.rate_per_s >= 150,
    );
    row(
      'allinone',
      'all-in-one CPU per charge (its one process)',
      cpu.by_process_ms['all-in-one'] ?? NaN,
      'ms',
      `the load generator ${cpu.by_process_ms['bench (load)'] ?? 0} ms`,
      '',
      null,
    );
  } finally {
    destroyAgents();
    await stopChild(child);
    rmSync(dir, { recursive: true, force: true });
  }
}

// ——— One service's cold start, tsx against its esbuild bundle (tools/deploy/bundle.ts), each on a fresh database ———
async function serviceColdStart(app: string): Promise<void> {
  const tmp = mkdtempSync(join(tmpdir(), 'pgw-bundle-'));
  try {
    const t0 = performance.now();
    execFileSync(
      process.execPath,
      ['--import', 'tsx', join('tools', 'deploy', 'bundle.ts'), app, tmp],
      { cwd: ROOT, stdio: 'ignore', timeout: 300_000 },
    );
    const bundleS = round((performance.now() - t0) / 1000, 2);
    // The gateway signs principals, a service verifies them: each gets only its half of a fresh pair.
    const pair = generateKeyPairSync('ed25519');
    const coldStartKeys =
      app === 'gateway'
        ? {
            PRINCIPAL_PRIVATE_KEY: pair.privateKey
              .export({ type: 'pkcs8', format: 'pem' })
              .toString(),
          }
        : {
            PRINCIPAL_PUBLIC_KEY: pair.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
          };
    const startOnce = async (args: string[], label: string) => {
      const admin = new Pool({ connectionString: PG_ADMIN_URL, max: 1 });
      const dbName = 'gateway_bench_cold';
      await admin.query(`drop database if exists ${dbName} with (force)`);
      await admin.query(`create database ${dbName}`);
      await admin.end();
      const u = new URL(PG_ADMIN_URL);
      u.pathname = `/${dbName}`;
      const port = 18291;
      const started = performance.now();
      const child = spawnLogged(
        args,
        {
          ...process.env,
          DATABASE_URL: u.toString(),
          KAFKA_BROKERS: process.env.KAFKA_BROKERS ?? '127.0.0.1:9092',
          SCHEMA_REGISTRY_URL,
          ...coldStartKeys,
          PORT: String(port),
          HOST: '127.0.0.1',
          LOG_LEVEL: 'warn',
        },
        join(tmp, `${label}.log`),
      );
      const ms = await msUntilHealthy(child, `http://127.0.0.1:${port}/health`, started);
      destroyAgents();
      await stopChild(child);
      return ms;
    };
    const tsxMs = await startOnce(['--import', 'tsx', join('apps', app, 'src', 'main.ts')], 'tsx');
    const bundleMs = await startOnce([join(tmp, 'dist', 'main.js')], 'bundle');
    details.service_coldstart = {
      app,
      bundle_build_s: bundleS,
      tsx_ms: tsxMs,
      bundle_ms: bundleMs,
    };
    row(
      'coldstart',
      `${app} alone → /health, esbuild bundle (fresh DB, migrations)`,
      round(bundleMs / 1000, 2),
      's',
      `same with tsx ${round(tsxMs / 1000, 2)} s; bundling took ${bundleS} s`,
      '',
      null,
    );
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

function printTable(): void {
  const head = [
    'section',
    'metric',
    'value',
    'limit / same-run reference',
    'target',
    'verdict',
    'load 1/5/15',
  ];
  const body = rows.map((r) => [
    r.section,
    r.metric,
    `${r.value} ${r.unit}`.trim(),
    r.limit,
    r.target,
    r.verdict,
    r.load,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => String(b[i]).length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => c.padEnd(widths[i] as number)).join(' | ')} |`;
  process.stdout.write(
    `\n${line(head)}\n|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|\n${body.map(line).join('\n')}\n`,
  );
}

function machine(): Record<string, unknown> {
  const uptime = (() => {
    try {
      return execFileSync('uptime', { encoding: 'utf8' }).trim();
    } catch {
      return load1();
    }
  })();
  return {
    nproc: cpus().length,
    cpu: cpus()[0]?.model,
    memory_gib: round(totalmem() / 2 ** 30),
    node: process.version,
    uptime_at_start: uptime,
  };
}

async function main(): Promise<void> {
  const { quick, only, profile, runner, compare, budget, report, recordBudget, countsRate } =
    args();
  // Read first: a wrong path fails now, not after minutes of measuring.
  const baseline =
    compare !== undefined
      ? (JSON.parse(readFileSync(compare, 'utf8')) as Parameters<typeof compareResults>[0])
      : undefined;
  const budgetFile =
    budget !== undefined ? (JSON.parse(readFileSync(budget, 'utf8')) as Budget) : undefined;
  const startedAt = new Date();
  const m = machine();
  process.stdout.write(
    `bench ${quick ? '(quick) ' : ''}(${runner}) sections ${[...only].join(',')}\nmachine ${JSON.stringify(m)}\n`,
  );
  const logDir = join(ROOT, 'bench-results', 'logs');
  const needsCluster = ['counts', 'gateway', 'charges', 'lag', 'ledger', 'simulate'].some((s) =>
    only.has(s as Section),
  );
  let cluster: Cluster | null = null;
  const failures: Record<string, string> = {};
  const profileDir = join(
    ROOT,
    'bench-results',
    'profiles',
    startedAt.toISOString().replace(/[:.]/g, '-'),
  );
  if (profile.length > 0) details.profile_dir = profileDir;
  try {
    if (needsCluster) {
      process.stdout.write(
        `starting the distributed mode on database ${BENCH_DB} (logs in ${logDir})\n`,
      );
      const t = performance.now();
      // With the counts section, every service counts its queries and HTTP calls (count-preload.cjs). Only
      // then: its hooks and the file it writes every 200 ms would add to the other sections' CPU per charge.
      const counting = only.has('counts');
      const countersDir = join(ROOT, 'bench-results', 'counters');
      const nodeArgs: Partial<Record<App, string[]>> = {};
      if (counting) {
        countersDirFor(countersDir);
        for (const app of APPS) nodeArgs[app] = ['--require', PRELOAD];
      }
      for (const app of profile as App[])
        nodeArgs[app] = [
          ...(nodeArgs[app] ?? []),
          '--cpu-prof',
          `--cpu-prof-dir=${join(profileDir, app)}`,
        ];
      cluster = await startCluster({
        logDir,
        kafkaBrokers: process.env.KAFKA_BROKERS ?? '127.0.0.1:9092',
        nodeArgs,
        runner,
        env: counting ? { BENCH_COUNTERS_DIR: countersDir } : {},
      });
      details.runner = runner;
      details.cluster_start_s = round((performance.now() - t) / 1000);
      details.cluster_skipped = cluster.skipped;
      for (const [app, why] of Object.entries(cluster.skipped))
        process.stdout.write(`  ${app} did not start, running without it: ${why}\n`);
      const seller = await provisionSeller(cluster);
      const cardToken = await tokenize(cluster, seller);
      // Warm every path once (JIT, pools, the key cache).
      for (let i = 0; i < 20; i++) {
        await json(
          {
            method: 'POST',
            url: `${cluster.gatewayUrl}/api/v1/charges`,
            headers: { authorization: `Bearer ${seller.key}`, 'idempotency-key': randomUUID() },
            body: chargeBody(cardToken),
          },
          201,
        );
      }
      const run = async (name: Section, fn: () => Promise<void>) => {
        if (!only.has(name)) return;
        process.stdout.write(`— ${name} (load ${load1()})\n`);
        try {
          await fn();
        } catch (err) {
          failures[name] = err instanceof Error ? (err.stack ?? err.message) : String(err);
          process.stdout.write(`  ${name} failed: ${failures[name]}\n`);
        }
      };
      const c = cluster;
      await run('counts', () =>
        benchCounts(c, seller, cardToken, countersDir, { quick, rate: countsRate }),
      );
      await run('gateway', () => benchGateway(c, seller, quick));
      await run('charges', () => benchCharges(c, seller, cardToken, quick));
      await run('lag', () => benchLag(c, quick));
      await run('ledger', () => benchLedger(c, quick));
      await run('simulate', () => benchSimulate(c, only.has('charges') ? seller : null, quick));
    }
  } finally {
    destroyAgents();
    if (cluster !== null) await cluster.stop();
  }
  if (only.has('allinone')) {
    // After the cluster stopped: the all-in-one has the machine to itself, as on a developer's laptop.
    process.stdout.write(`— allinone (load ${load1()})\n`);
    try {
      await benchAllInOne(
        quick,
        profile.includes('all-in-one') ? join(profileDir, 'all-in-one') : null,
      );
    } catch (err) {
      failures.allinone = err instanceof Error ? (err.stack ?? err.message) : String(err);
      process.stdout.write(`  allinone failed: ${failures.allinone}\n`);
    }
  }
  if (typeof details.profile_dir === 'string') {
    // Summarised here (self time by function and by package), the .cpuprofile files kept for DevTools.
    // Only the samples of a process's closed loop (charges, or the all-in-one's) when that section ran:
    // start-up and idle time are left out.
    details.profiles = summarizeProfiles(details.profile_dir, profileWindows);
    details.profile_windows_us = profileWindows;
    for (const [app, top] of Object.entries(details.profiles as Record<string, ProfileSummary>)) {
      process.stdout.write(
        `profile ${app}: ${top.byPackage
          .slice(0, 8)
          .map((x) => `${x.name} ${x.percent}%`)
          .join(', ')}\n`,
      );
    }
  }
  if (only.has('coldstart')) {
    process.stdout.write(`— coldstart (load ${load1()})\n`);
    try {
      await benchColdStart(quick);
      await serviceColdStart('ledger');
    } catch (err) {
      failures.coldstart = String(err);
    }
  }
  printTable();
  const dir = join(ROOT, 'bench-results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${startedAt.toISOString().replace(/[:.]/g, '-')}.json`);
  const uptimeEnd = (() => {
    try {
      return execFileSync('uptime', { encoding: 'utf8' }).trim();
    } catch {
      return load1();
    }
  })();
  writeFileSync(
    file,
    `${JSON.stringify({ started_at: startedAt.toISOString(), quick, sections: [...only], machine: m, uptime_at_end: uptimeEnd, rows, details, failures }, null, 2)}\n`,
  );
  process.stdout.write(`\nwrote ${file}\n`);
  if (Object.keys(failures).length > 0) process.exitCode = 1;
  if (baseline !== undefined && compare !== undefined) {
    const current = JSON.parse(readFileSync(file, 'utf8')) as Parameters<typeof compareResults>[1];
    process.stdout.write(
      `\nchange against ${compare}\n${formatComparison(compareResults(baseline, current), basename(compare, '.json'), basename(file, '.json'))}\n`,
    );
  }
  if (budgetFile !== undefined) {
    // One verdict per budgeted figure; a section that failed outright is one more failure.
    const verdicts = checkBudget(countedFigures({ details }), budgetFile);
    process.stdout.write(
      `\nbudget ${budget}\n${verdicts.map((v) => `  ${v.ok ? 'ok  ' : 'FAIL'} ${v.figure}: ${v.why}`).join('\n')}\n`,
    );
    const failed = verdicts.filter((v) => !v.ok).length + (failures.counts !== undefined ? 1 : 0);
    if (report !== undefined)
      writeFileSync(
        report,
        `${JSON.stringify({ passed: verdicts.length - verdicts.filter((v) => !v.ok).length, failed, verdicts, failures }, null, 2)}\n`,
      );
    if (failed > 0) process.exitCode = 1;
  }
  if (recordBudget !== undefined) {
    // HTTP calls and Kafka messages per charge are exact (a retry may add one now and then): 0.1 above. SQL
    // counts move a little with the idle work subtracted (and batching, if any): 15 % above, at least 0.5.
    const figures = countedFigures({ details });
    const keys = Object.keys(figures).filter(
      (k) => BUDGETED.test(k) && (k.endsWith('.total') || (figures[k] ?? 0) > 0),
    );
    const exact = budgetFrom(
      figures,
      keys.filter((k) => /^(http_calls|kafka_messages)\./.test(k)),
      0,
      0.1,
    );
    const sql = budgetFrom(
      figures,
      keys.filter((k) => /^sql_/.test(k)),
      0.15,
      0.5,
    );
    const recorded = {
      about: `Counted figures per charge (tools/bench/counts.ts), recorded by npm run bench -- ${process.argv.slice(2).join(' ')} at ${startedAt.toISOString()}; .ci/run fails when one rises above its max.`,
      figures: { ...exact.figures, ...sql.figures },
    };
    writeFileSync(recordBudget, `${JSON.stringify(recorded, null, 2)}\n`);
    process.stdout.write(`\nwrote the budget ${recordBudget}\n`);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
