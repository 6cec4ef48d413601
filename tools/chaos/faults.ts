// `npm run chaos [-- --short] [--report <file>]`: the distributed mode on a PostgreSQL and a Kafka broker
// of its own, a steady load of idempotent charges, refunds and anticipations, and faults in turn under that
// load: kill -9 and restart of services, the broker stopped and started again with its data, PostgreSQL
// restarted as after a crash, the acquirer unavailable and then timing out. After each fault, once the
// system has settled, and at the end: the checks of checks.ts, one line each; then `N passed, N failed`.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { toolArgs } from '../bench/args';
import {
  APPS,
  ROOT,
  provisionSeller,
  startCluster,
  tokenize,
  type App,
  type Cluster,
  type Seller,
} from '../bench/cluster';
import { destroyAgents, json, round, sleep } from '../bench/load';
import { runChecks, settle, type Check } from './checks';
import { privateKafka, query, startPostgres, type PrivatePostgres } from './infra';
import { Workload } from './workload';

const PG_PORT = 15433;
const KAFKA_PORT = 19092;
const PORT_BASE = 18400;
const SETTLE_TIMEOUT_MS = 120_000;
/** After PostgreSQL answers again, the pools' broken connections may still fail a request for this long. */
const DATABASE_RECONNECT_MS = 5_000;

interface FaultRecord {
  name: string;
  started_at: string;
  /** From the fault's start to the service (or server) answering again. */
  outage_ms: number;
  /** What the fault itself measured (restart times). */
  timings: Record<string, number>;
  /** From the end of the fault to every outbox drained and every consumer at the end of its topics. */
  settle_ms: number;
  checks_failed: number;
}

interface Fault {
  name: string;
  inject(): Promise<Record<string, number>>;
}

function parseOptions(): { short: boolean; report: string } {
  return toolArgs(
    'npm run chaos [-- --short] [--report <file>]',
    { short: { type: 'boolean' }, report: { type: 'string' } },
    ({ values }) => ({
      short: values.short === true,
      report:
        values.report !== undefined
          ? resolve(values.report)
          : join(ROOT, '.cache', 'chaos', 'report.json'),
    }),
  );
}

const ms = (t0: number) => round(performance.now() - t0, 0);

/**
 * The last warnings (pino level ≥ 40) of each service's log, printed when a fault run does not settle: CI keeps
 * the run's output, not its logs, and a relay or consumer stuck on an error says which one there.
 */
function lastWarnings(logDir: string, count = 3): string {
  const lines: string[] = [];
  for (const file of readdirSync(logDir).filter((f) => f.endsWith('.log'))) {
    const warnings = readFileSync(join(logDir, file), 'utf8')
      .split('\n')
      .flatMap((line) => {
        try {
          const entry = JSON.parse(line) as {
            level?: number;
            msg?: string;
            err?: { message?: string };
          };
          if ((entry.level ?? 0) < 40) return [];
          const cause =
            entry.err?.message === undefined ? '' : `: ${entry.err.message.slice(0, 200)}`;
          return [`${entry.msg}${cause}`];
        } catch {
          return [];
        }
      });
    for (const w of warnings.slice(-count)) lines.push(`  ${file.replace(/\.log$/, '')}: ${w}`);
  }
  return lines.join('\n');
}

async function main(): Promise<number> {
  const { short, report } = parseOptions();
  const runStart = performance.now();
  const dir = mkdtempSync(join(tmpdir(), 'pgw-chaos-'));
  const logDir = join(ROOT, '.cache', 'chaos', 'logs');
  rmSync(logDir, { recursive: true, force: true });
  mkdirSync(logDir, { recursive: true });
  const say = (line: string) =>
    process.stdout.write(`[chaos ${round((performance.now() - runStart) / 1000, 0)}s] ${line}\n`);
  /** A run that did not settle (`unsettled` is what it still waits for) prints the services' last warnings. */
  const sayWarningsUnlessSettled = (unsettled: string) => {
    if (unsettled !== '') say(`last warnings in the services' logs:\n${lastWarnings(logDir)}`);
  };

  let pg: PrivatePostgres | null = null;
  const kafka = privateKafka(dir, KAFKA_PORT);
  let cluster: Cluster | null = null;
  let cleaning: Promise<void> | null = null;
  const cleanup = () =>
    (cleaning ??= (async () => {
      await cluster?.stop().catch(() => undefined);
      await kafka.stop().catch(() => undefined);
      await pg?.stop().catch(() => undefined);
      destroyAgents();
      rmSync(dir, { recursive: true, force: true });
    })());
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      say(`${signal}: stopping everything this run started`);
      void cleanup().finally(() => process.exit(130));
    });
  }

  const checks: Check[] = [];
  const faults: FaultRecord[] = [];
  const print = (list: Check[]) => {
    for (const c of list)
      process.stdout.write(
        `${c.ok ? 'ok' : 'FAILED'} — ${c.name} (after ${c.after})${c.detail ? `: ${c.detail}` : ''}\n`,
      );
    checks.push(...list);
  };
  let workload: Workload | null = null;
  try {
    say(
      `private PostgreSQL on ${PG_PORT}, Kafka on ${KAFKA_PORT}, services from ${PORT_BASE}; logs in ${logDir}`,
    );
    pg = await startPostgres(dir, PG_PORT);
    await kafka.start(false);
    say('PostgreSQL and Kafka up; bundling and starting the services');
    const t0 = performance.now();
    cluster = await startCluster({
      logDir,
      kafkaBrokers: kafka.brokers,
      pgAdminUrl: pg.adminUrl,
      database: 'gateway_chaos',
      portBase: PORT_BASE,
      apps: APPS,
      runner: 'bundle',
      bundleDir: join(ROOT, '.cache', 'chaos', 'bundles'),
      env: {
        // Short acquirer deadlines so that the timeout fault and its recovery fit in the run.
        ACQUIRER_TIMEOUT_MS: '2000',
        ACQUIRER_SIM_TIMEOUT_DELAY_MS: '4000',
        CHARGES_RECOVERY_INTERVAL_MS: '2000',
        CHARGES_RECOVERY_MIN_AGE_MS: '5000',
      },
    });
    say(`cluster up in ${ms(t0)} ms`);
    const c = cluster;
    const admin = { authorization: `Bearer ${c.adminToken}` };
    // A treasury and limits large enough that anticipations are refused only for what the faults do.
    const tenant = await json<{ id: string }>(
      {
        method: 'POST',
        url: `${c.gatewayUrl}/admin/v1/tenants`,
        headers: admin,
        body: JSON.stringify({
          name: 'Chaos tenant',
          treasury_available_cash_cents: 10_000_000_000,
        }),
      },
      201,
    );
    const first = await provisionSeller(c, tenant.id);
    const second = await provisionSeller(c, tenant.id);
    for (const s of [first, second]) {
      await json(
        {
          method: 'PATCH',
          url: `${c.gatewayUrl}/admin/v1/sellers/${s.sellerId}`,
          headers: admin,
          body: JSON.stringify({ anticipation_limit_cents: 10_000_000_000 }),
        },
        200,
      );
    }
    const sellers: { seller: Seller; tokens: string[] }[] = [];
    for (const seller of [first, second])
      sellers.push({ seller, tokens: [await tokenize(c, seller), await tokenize(c, seller)] });
    const url = c.databaseUrl;
    const provider = (mode: string) =>
      json(
        {
          method: 'POST',
          url: `${c.gatewayUrl}/admin/v1/simulations/provider`,
          headers: admin,
          body: JSON.stringify({ mode }),
        },
        200,
      );
    const reconcile = () =>
      json(
        {
          method: 'POST',
          url: `${c.gatewayUrl}/admin/v1/jobs/refund-reconciliation`,
          headers: admin,
          body: '{}',
        },
        200,
      );
    // The checks read a quiet system: a card charge left pending by a fault is resolved by the charges'
    // recovery (every 2 s, once 5 s old) and a refund left processing by the reconciliation job, as in
    // production; either one, finished during the checks, would publish events under them. Then every
    // outbox drained and every consumer at the end of its topics.
    const settleQuiet = async () => {
      for (let i = 0; i < 30; i++) {
        await reconcile().catch(() => undefined);
        const [row] = await query<{ c: string }>(
          url,
          `select (select count(*) from charges.charges where status = 'pending' and payment_method in ('credit_card', 'debit_card')) + (select count(*) from charges.refunds where status = 'processing') as c`,
        );
        if (Number(row?.c) === 0) break;
        await sleep(2_000);
      }
      return settle(url, kafka.brokers, SETTLE_TIMEOUT_MS);
    };

    workload = new Workload(c, sellers, { workers: 3, thinkMs: short ? 150 : 250 });
    const w = workload;
    const databaseDown: { from: number; to: number }[] = [];
    const ctx = (final: boolean) => ({
      cluster: c,
      url,
      brokers: kafka.brokers,
      tenantId: first.tenantId,
      sellers: sellers.map((s) => s.seller),
      exchanges: w.exchanges,
      final,
      databaseDown,
    });

    const kill = (app: App): Fault => ({
      name: `kill -9 ${app}`,
      async inject() {
        const service = c.services[app];
        if (service === undefined) throw new Error(`${app} is not running`);
        const pid = service.pid();
        await service.kill('SIGKILL');
        await sleep(2_000); // down for a while, under load
        const restart = await service.start();
        return { pid: pid ?? 0, down_ms: 2_000, restart_ms: round(restart, 0) };
      },
    });
    const kafkaStop = (downMs: number): Fault => ({
      name: `Kafka broker stopped for ${downMs / 1000} s`,
      async inject() {
        const stop = await kafka.stop();
        await sleep(downMs);
        const start = await kafka.start(true);
        return { stop_ms: round(stop, 0), down_ms: downMs, start_ms: round(start, 0) };
      },
    });
    const pgRestart = (mode: 'immediate' | 'fast'): Fault => ({
      name: `PostgreSQL restarted (-m ${mode})`,
      async inject() {
        const from = Date.now();
        const restart = await (pg as PrivatePostgres).restart(mode);
        databaseDown.push({ from, to: Date.now() + DATABASE_RECONNECT_MS });
        return { restart_ms: round(restart, 0) };
      },
    });
    const acquirer = (unavailableMs: number, timeoutMs: number): Fault => ({
      name: `acquirer unavailable ${unavailableMs / 1000} s, then timing out ${timeoutMs / 1000} s`,
      async inject() {
        await provider('unavailable');
        await sleep(unavailableMs);
        await provider('timeout');
        await sleep(timeoutMs);
        await provider('normal');
        return { unavailable_ms: unavailableMs, timeout_ms: timeoutMs };
      },
    });

    // Not a fault: the receivables jobs run while charges, refunds and anticipations go on, as a nightly
    // CronJob meets daytime traffic (issue 16); anticipated receivables are available and get settled.
    const jobsUnderLoad: Fault = {
      name: 'receivables-release and settlement-run under load',
      async inject() {
        const job = (name: string) =>
          json<{ processed: number }>(
            {
              method: 'POST',
              url: `${c.gatewayUrl}/admin/v1/jobs/${name}`,
              headers: admin,
              body: '{}',
            },
            200,
          );
        const released = await job('receivables-release');
        const settled = await job('settlement-run');
        return { released: released.processed, settlements: settled.processed };
      },
    };
    const plan: Fault[] = short
      ? [
          kill('charges'),
          kafkaStop(10_000),
          jobsUnderLoad,
          pgRestart('immediate'),
          acquirer(5_000, 6_000),
        ]
      : [
          ...APPS.map(kill),
          kafkaStop(30_000),
          jobsUnderLoad,
          pgRestart('immediate'),
          pgRestart('fast'),
          acquirer(10_000, 12_000),
        ];
    const loadAround = short ? 3_000 : 6_000;

    w.start();
    await sleep(loadAround);
    for (const fault of plan) {
      say(`fault: ${fault.name}`);
      const started = new Date().toISOString();
      const f0 = performance.now();
      let timings: Record<string, number> = {};
      try {
        timings = await fault.inject();
      } catch (err) {
        print([
          {
            name: `fault injected: ${fault.name}`,
            ok: false,
            after: fault.name,
            detail: err instanceof Error ? err.message : String(err),
          },
        ]);
      }
      const outage = ms(f0);
      await sleep(loadAround); // the load goes on against the recovered system
      await w.pause();
      const s0 = performance.now();
      const settled = await settleQuiet();
      const settleMs = ms(s0);
      const list: Check[] = [
        {
          name: 'settled: outboxes drained, consumers caught up',
          ok: settled.last === '',
          after: fault.name,
          detail:
            settled.last === ''
              ? `${settleMs} ms`
              : `not after ${settleMs} ms: ${settled.last.slice(0, 500)}`,
        },
      ];
      sayWarningsUnlessSettled(settled.last);
      list.push(...(await runChecks(ctx(false), fault.name)));
      print(list);
      faults.push({
        name: fault.name,
        started_at: started,
        outage_ms: outage,
        timings,
        settle_ms: settleMs,
        checks_failed: list.filter((x) => !x.ok).length,
      });
      say(`${fault.name}: ${JSON.stringify(timings)}, settled in ${settleMs} ms`);
      w.resume();
    }
    await sleep(loadAround);
    await w.stop();
    say('load stopped; final checks');
    const f0 = performance.now();
    const settled = await settleQuiet();
    print([
      {
        name: 'settled: outboxes drained, consumers caught up',
        ok: settled.last === '',
        after: 'the load stopped',
        detail: settled.last === '' ? `${ms(f0)} ms` : settled.last.slice(0, 500),
      },
    ]);
    sayWarningsUnlessSettled(settled.last);
    print(await runChecks(ctx(true), 'the load stopped'));
    const statuses: Record<string, number> = {};
    for (const e of w.exchanges) {
      for (const a of e.attempts) {
        const code = /"code":"([a-z_]+)"/.exec(a.body)?.[1];
        const key = `${e.kind} ${a.status}${code !== undefined ? ` ${code}` : ''}`;
        statuses[key] = (statuses[key] ?? 0) + 1;
      }
    }
    say(
      `load: ${w.exchanges.length} exchanges, answers ${JSON.stringify(statuses)}, ${w.skipped} anticipation turns with nothing to anticipate`,
    );
    writeReport(report, {
      short,
      checks,
      faults,
      duration_s: round((performance.now() - runStart) / 1000),
      exchanges: w.exchanges.length,
      statuses,
      anticipation_turns_skipped: w.skipped,
    });
  } catch (err) {
    print([
      {
        name: 'the run completed',
        ok: false,
        after: 'setup or run',
        detail: err instanceof Error ? (err.stack ?? err.message) : String(err),
      },
    ]);
    writeReport(report, {
      short,
      checks,
      faults,
      duration_s: round((performance.now() - runStart) / 1000),
    });
  } finally {
    if (workload !== null) await Promise.race([workload.stop(), sleep(5_000)]);
    await cleanup();
  }
  const failed = checks.filter((c) => !c.ok).length;
  process.stdout.write(`${checks.length - failed} passed, ${failed} failed\n`);
  return failed === 0 ? 0 : 1;
}

function writeReport(
  file: string,
  data: { short: boolean; checks: Check[]; faults: FaultRecord[]; duration_s: number } & Record<
    string,
    unknown
  >,
): void {
  mkdirSync(dirname(file), { recursive: true });
  const failed = data.checks.filter((c) => !c.ok).length;
  writeFileSync(
    file,
    `${JSON.stringify({ passed: data.checks.length - failed, failed, ...data }, null, 2)}\n`,
  );
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
