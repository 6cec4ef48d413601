// npm run soak [-- --minutes 10 --rate 10 --sample 5 --report file.json --seed 1 --tsx --heap-snapshots charges,webhooks]
// The distributed mode (every service its own process, from its bundle as the images run it) under a
// steady open-loop load of a realistic mix (tools/soak/mix.ts) for --minutes, with a webhook endpoint
// pointing at a receiver in this process. Every service runs with --trace-gc: its live heap after each
// full GC is read from its log (tools/soak/gc-trace.ts). Every --sample seconds: each service's RSS, open
// file descriptors and threads (/proc/<pid>), and the requests' outcomes and latency in that window. Then
// verdicts per service — live heap flat (the memory verdict), RSS within a loose bound against a gross
// leak, fds flat (tools/soak/flat.ts: the rule and its thresholds) — a check that no
// request failed (5xx, timeout, or an answer the operation does not expect), and one that webhooks were
// still delivered at the end. Prints a table, writes a JSON report, ends with "N passed, N failed", exits
// non-zero on any failure. Loads 127.0.0.1 only; everything it starts it stops.
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import {
  APPS,
  provisionSeller,
  ROOT,
  startCluster,
  tokenize,
  type App,
  type Cluster,
} from '../bench/cluster';
import { flags, numberArg, toolArgs, UsageError } from '../bench/args';
import { arrivals, destroyAgents, json, percentile, round, sleep } from '../bench/load';
import { median } from '../bench/load';
import { heapCheckOutcome, judge, limitsFor, type Sample, type Verdict } from './flat';
import { forceFullGc } from './force-gc';
import {
  gcCounts,
  liveHeapSeries,
  processStartEpochMs,
  readGcLog,
  type Collector,
} from './gc-trace';
import { buildMix, picker, seeded, type Op, type Outcome } from './mix';

interface Options {
  minutes: number;
  rate: number;
  sampleSeconds: number;
  report: string;
  seed: number;
  runner: 'tsx' | 'bundle';
  /** Services that write a V8 heap snapshot at the end of the warm-up and at the end of the load (to find a leak). */
  heapSnapshots: App[];
}

const USAGE =
  'npm run soak [-- --minutes 10 --rate 10 --sample 5 --report file.json --seed 1 --tsx --heap-snapshots charges,webhooks]';

function parseOptions(): Options {
  const options = flags(['minutes', 'rate', 'sample', 'report', 'seed', 'heap-snapshots'], ['tsx']);
  const positive = (n: number) => Number.isFinite(n) && n > 0;
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  return toolArgs(USAGE, options, ({ values }): Options => ({
    minutes: numberArg('minutes', values.minutes, 10, positive),
    rate: numberArg('rate', values.rate, 10, positive),
    sampleSeconds: numberArg('sample', values.sample, 5, positive),
    report: values.report ?? join(ROOT, '.cache', 'soak', `soak-${stamp}.json`),
    seed: numberArg('seed', values.seed, 1, positive),
    runner: values.tsx === true ? 'tsx' : 'bundle',
    heapSnapshots: (values['heap-snapshots'] ?? '').split(',').filter((a): a is App => {
      if (a === '') return false;
      if (!(APPS as readonly string[]).includes(a))
        throw new UsageError(`--heap-snapshots: unknown service ${a}; services: ${APPS.join(',')}`);
      return true;
    }),
  }));
}

interface ProcSample {
  rssMb: number;
  fds: number;
  threads: number;
}

function readProc(pid: number): ProcSample | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name: string) =>
      Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? NaN);
    return {
      rssMb: round(field('VmRSS') / 1024, 1),
      threads: field('Threads'),
      fds: readdirSync(`/proc/${pid}/fd`).length,
    };
  } catch {
    return null; // the process is gone
  }
}

interface Window {
  t: number;
  load: number[];
  requests: number;
  statuses: Record<string, number>;
  p50_ms: number;
  p99_ms: number;
  webhooks: number;
  webhook_lag_p50_ms: number;
  webhook_lag_p99_ms: number;
  services: Partial<Record<App, (ProcSample & { pid: number }) | null>>;
}

/** The endpoint the webhooks service delivers to: answers 200, and 503 to every 40th POST (so retries run too). */
async function startReceiver(): Promise<{
  server: Server;
  url: string;
  take(): { count: number; lags: number[]; types: Record<string, number> };
}> {
  let count = 0;
  let seen = 0;
  let lags: number[] = [];
  const types: Record<string, number> = {};
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen++;
      if (seen % 40 === 0) {
        res.writeHead(503).end();
        return;
      }
      try {
        const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          type?: string;
          created_at?: string;
        };
        types[event.type ?? '?'] = (types[event.type ?? '?'] ?? 0) + 1;
        if (event.created_at !== undefined) lags.push(Date.now() - Date.parse(event.created_at));
      } catch {
        types['(not JSON)'] = (types['(not JSON)'] ?? 0) + 1;
      }
      count++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('receiver: no port');
  return {
    server,
    url: `http://127.0.0.1:${address.port}/webhooks`,
    take() {
      const out = { count, lags, types };
      count = 0;
      lags = [];
      return out;
    },
  };
}

/**
 * Consumer groups of this cluster's services that have more than one member: another distributed-mode
 * run (bench, chaos) on the same Kafka shares the services' group names, so the groups' partitions are
 * split between the two clusters and each applies some of the other's events. A soak run during such
 * a collision is not a run of one cluster; it is reported as a warning.
 */
async function sharedGroups(brokers: string[]): Promise<Record<string, number>> {
  const admin = new Kafka({
    clientId: 'soak-inspector',
    brokers,
    logLevel: logLevel.NOTHING,
  }).admin();
  await admin.connect();
  try {
    const { groups } = await admin.listGroups();
    const ours = groups
      .map((g) => g.groupId)
      .filter((id) => APPS.some((app) => id.startsWith(`${app}.`)));
    if (ours.length === 0) return {};
    const described = await admin.describeGroups(ours);
    const out: Record<string, number> = {};
    for (const g of described.groups) if (g.members.length > 1) out[g.groupId] = g.members.length;
    return out;
  } finally {
    await admin.disconnect();
  }
}

async function provision(
  cluster: Cluster,
  receiverUrl: string,
): Promise<{ key: string; tokens: string[]; refusedToken: string }> {
  const admin = { authorization: `Bearer ${cluster.adminToken}` };
  const g = cluster.gatewayUrl;
  // A treasury and an anticipation limit large enough that executions are never refused for them.
  const tenant = await json<{ id: string }>(
    {
      method: 'POST',
      url: `${g}/admin/v1/tenants`,
      headers: admin,
      body: JSON.stringify({ name: 'Soak tenant', treasury_available_cash_cents: 1e12 }),
    },
    201,
  );
  const seller = await provisionSeller(cluster, tenant.id);
  await json(
    {
      method: 'PATCH',
      url: `${g}/admin/v1/sellers/${seller.sellerId}`,
      headers: admin,
      body: JSON.stringify({ anticipation_limit_cents: 1e12 }),
    },
    200,
  );
  await json(
    {
      method: 'POST',
      url: `${g}/admin/v1/tenants/${tenant.id}/webhook-endpoints`,
      headers: admin,
      body: JSON.stringify({ url: receiverUrl }),
    },
    201,
  );
  // The first waits for the seller to reach the vault; a consumer group that is rebalancing (services that
  // just started, or another cluster's that just left) can take up to 90 s to get its partitions.
  const tokens = [
    await tokenize(cluster, seller, { waitMs: 90_000 }),
    await tokenize(cluster, seller, { number: '5555 5555 5555 4444' }),
  ];
  const refusedToken = await tokenize(cluster, seller, { number: '4000 0000 0000 0002' });
  return { key: seller.key, tokens, refusedToken };
}

/** Waits (up to 2 min) until `count` snapshots are in dir and none has grown for 2 s: the services are stopped after. */
async function snapshotsWritten(dir: string, count: number): Promise<void> {
  if (count === 0) return;
  const sizes = () =>
    readdirSync(dir)
      .filter((f) => f.endsWith('.heapsnapshot'))
      .map((f) => statSync(join(dir, f)).size);
  const deadline = Date.now() + 120_000;
  let last = '';
  while (Date.now() < deadline) {
    const now = sizes();
    const key = now.join(',');
    if (now.length >= count && key === last) return;
    last = key;
    await sleep(2000);
  }
  process.stdout.write(`  heap snapshots: fewer than ${count} complete after 2 min\n`);
}

/** The load run before the measured one, uncounted (see the warm-up). */
const WARM_LOAD_MS = 15_000;

interface Completed {
  op: string;
  done: number;
  latencyMs: number;
  outcome: Outcome | { status: string; unexpected: string };
}

/** The mix at a fixed arrival rate (load.ts's open loop): each operation checks its own answer. */
async function steadyLoad(
  nextOp: () => Op,
  ratePerSecond: number,
  durationMs: number,
  drainMs: number,
  onDone: (c: Completed) => void,
): Promise<{ sent: number; unfinished: number }> {
  const { sent, unfinished } = await arrivals(
    { ratePerSecond, durationMs, drainMs },
    (_i, scheduled) => {
      const op = nextOp();
      return op.run().then(
        (outcome) =>
          onDone({
            op: op.name,
            done: performance.now(),
            latencyMs: performance.now() - scheduled,
            outcome,
          }),
        (err: unknown) => {
          const message = err instanceof Error ? err.message : String(err);
          onDone({
            op: op.name,
            done: performance.now(),
            latencyMs: performance.now() - scheduled,
            outcome: { status: message, unexpected: message },
          });
        },
      );
    },
  );
  return { sent, unfinished };
}

interface Check {
  name: string;
  passed: boolean;
  /** A check that judged nothing (too few samples): counted apart, never as passed. */
  skipped?: true;
  detail: string;
}

/** The services' inspectors (loopback only), one port per app in APPS order, apart from the soak cluster (18300) and the fault run (18400). */
const INSPECTOR_PORT_BASE = 18_600;

const fmt = (x: number, digits = 1) => (Number.isFinite(x) ? x.toFixed(digits) : '—');

async function main(): Promise<number> {
  const options = parseOptions();
  const brokers = (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');
  const logDir = join(ROOT, '.cache', 'soak', 'logs');
  rmSync(logDir, { recursive: true, force: true });
  const durationMs = options.minutes * 60_000;
  const limits = limitsFor(options.minutes);
  const timeoutMs = 10_000;
  const machine = {
    cpus: cpus().length,
    cpu_model: cpus()[0]?.model ?? '?',
    memory_gb: round(totalmem() / 2 ** 30, 1),
    node: process.version,
  };
  process.stdout.write(
    `soak: ${options.minutes} min at ${options.rate} req/s, samples every ${options.sampleSeconds} s, ${options.runner} runner, ${limits.kind}-run limits; ${machine.cpus} cpus, load ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}\n`,
  );

  const receiver = await startReceiver();
  let cluster: Cluster | null = null;
  const t0 = Date.now();
  try {
    // A snapshot blocks the service for seconds and doubles its memory while written: only when asked.
    const heapDir = join(ROOT, '.cache', 'soak', 'heap');
    // --trace-gc: one line per GC in the service's log, the live heap after each full GC (gc-trace.ts).
    // --inspect on loopback: a full GC is forced at every sample point (force-gc.ts), so that even a short run
    // has enough live-heap samples to judge.
    const inspectorPort = (app: App) => INSPECTOR_PORT_BASE + APPS.indexOf(app);
    const nodeArgs: Partial<Record<App, string[]>> = {};
    for (const app of APPS)
      nodeArgs[app] = ['--trace-gc', `--inspect=127.0.0.1:${inspectorPort(app)}`];
    for (const app of options.heapSnapshots)
      nodeArgs[app]?.push('--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${heapDir}`);
    if (options.heapSnapshots.length > 0) {
      rmSync(heapDir, { recursive: true, force: true });
      mkdirSync(heapDir, { recursive: true });
    }
    cluster = await startCluster({
      logDir,
      kafkaBrokers: brokers.join(','),
      database: 'gateway_soak',
      portBase: 18300,
      apps: APPS,
      runner: options.runner,
      nodeArgs,
    });
    process.stdout.write(
      `cluster up in ${round((Date.now() - t0) / 1000)} s: ${APPS.map((a) => `${a} ${cluster?.services[a]?.pid() ?? '—'}`).join(', ')}\n`,
    );
    // Each process's start on the wall clock: V8's --trace-gc times are milliseconds since then.
    const started: Partial<Record<App, { pid: number; epochMs: number }>> = {};
    for (const app of APPS) {
      const pid = cluster.services[app]?.pid();
      const epochMs = pid === undefined ? null : processStartEpochMs(pid);
      if (pid !== undefined && epochMs !== null) started[app] = { pid, epochMs };
    }
    const setup = await provision(cluster, receiver.url);
    process.stdout.write(`provisioned in ${round((Date.now() - t0) / 1000)} s\n`);
    const random = seeded(options.seed);
    let sentAgainAfterRetryAfter = 0;
    const ops = buildMix({
      cluster,
      key: setup.key,
      tokens: setup.tokens,
      refusedToken: setup.refusedToken,
      random,
      timeoutMs,
      onRetryAfter: () => sentAgainAfterRetryAfter++,
    });
    const nextOp = picker(ops, random);
    // Warm-up, not measured: every kind of request twice, one at a time, so that the load meets services
    // whose code, connections and schema ids are warm. A cold cluster answered its first seconds at 10/s in
    // 1–3 s, and the gateway's adaptive limit refused what piled up (503 at capacity; CI, 27 Nov): a cold
    // start, which this run is not about.
    // Then the load itself for WARM_LOAD_MS, not counted either: in CI the run starts right after the fault
    // run, on a host still busy from it (load 3.8 on 2 cores, p50 150–200 ms for 20 s), and what it is
    // about is the steady state.
    const warm0 = Date.now();
    for (let pass = 0; pass < 2; pass++)
      for (const op of ops) await op.run().catch(() => undefined);
    await steadyLoad(nextOp, options.rate, WARM_LOAD_MS, 15_000, () => undefined);
    process.stdout.write(
      `warmed up in ${round((Date.now() - warm0) / 1000)} s (every kind of request twice, then ${WARM_LOAD_MS / 1000} s of the load; not counted)\n`,
    );
    const groupsAtStart = await sharedGroups(brokers);

    // ——— the run ———
    const windows: Window[] = [];
    let current: Completed[] = [];
    const byOp: Record<string, Record<string, number>> = {};
    const failures: { op: string; t: number; what: string }[] = [];
    let failureCount = 0;
    const loadStart = performance.now();
    const loadStartEpochMs = Date.now();
    let forcedGcFailures = 0;
    // One service's full GC after another's, never two at once, and a round only when the last one is done:
    // all eight at once stalled every service together for up to ~1.5 s on two cores (the p99 of every
    // window), and in CI for long enough that the gateway's adaptive limit refused charges (503, 27 Nov).
    let gcRound: Promise<void> | null = null;
    const forceFullGcs = async (): Promise<void> => {
      for (const app of APPS) {
        await forceFullGc(inspectorPort(app)).catch((err: unknown) => {
          // Counted and printed: a sample without its full GC only thins the series (fewer samples: no verdict).
          forcedGcFailures++;
          if (forcedGcFailures <= 3)
            process.stdout.write(
              `  forced GC of ${app} failed: ${err instanceof Error ? err.message : String(err)}\n`,
            );
        });
      }
      gcRound = null;
    };
    const sample = (): void => {
      gcRound ??= forceFullGcs();
      const done = current;
      current = [];
      const lat = done.map((c) => c.latencyMs).sort((a, b) => a - b);
      const statuses: Record<string, number> = {};
      for (const c of done)
        statuses[String(c.outcome.status)] = (statuses[String(c.outcome.status)] ?? 0) + 1;
      const hooks = receiver.take();
      const lags = [...hooks.lags].sort((a, b) => a - b);
      const services: Window['services'] = {};
      for (const app of APPS) {
        const pid = cluster?.services[app]?.pid();
        const proc = pid === undefined ? null : readProc(pid);
        services[app] = proc === null || pid === undefined ? null : { pid, ...proc };
      }
      windows.push({
        t: round((performance.now() - loadStart) / 1000, 1),
        load: loadavg().map((x) => round(x, 2)),
        requests: done.length,
        statuses,
        p50_ms: round(percentile(lat, 50)),
        p99_ms: round(percentile(lat, 99)),
        webhooks: hooks.count,
        webhook_lag_p50_ms: round(percentile(lags, 50)),
        webhook_lag_p99_ms: round(percentile(lags, 99)),
        services,
      });
      const w = windows[windows.length - 1] as Window;
      const rss = APPS.map((a) => fmt(w.services[a]?.rssMb ?? NaN, 0)).join('/');
      process.stdout.write(
        `  t=${fmt(w.t, 0)}s  ${w.requests} req  ${Object.entries(statuses)
          .map(([s, n]) => `${s}:${n}`)
          .join(
            ' ',
          )}  p50 ${fmt(w.p50_ms, 0)} p99 ${fmt(w.p99_ms, 0)} ms  webhooks ${w.webhooks}  rss ${rss} MB  load ${w.load[0]}\n`,
      );
    };
    sample(); // t = 0: before the first request
    const sampler = setInterval(sample, options.sampleSeconds * 1000);
    const snapshot = (when: string) => {
      for (const app of options.heapSnapshots) {
        const pid = cluster?.services[app]?.pid();
        if (pid === undefined) continue;
        process.kill(pid, 'SIGUSR2');
        process.stdout.write(`  heap snapshot of ${app} (pid ${pid}) ${when}, in ${heapDir}\n`);
      }
    };
    const firstSnapshot = setTimeout(
      () => snapshot('at the end of the warm-up'),
      0.25 * durationMs,
    );
    const midGroups = setTimeout(() => {
      sharedGroups(brokers).then(
        (g) => Object.assign(groupsAtStart, g),
        () => undefined,
      );
    }, durationMs / 2);
    const result = await steadyLoad(nextOp, options.rate, durationMs, 15_000, (c) => {
      current.push(c);
      const s = String(c.outcome.status);
      (byOp[c.op] ??= {})[s] = (byOp[c.op]?.[s] ?? 0) + 1;
      const numeric = typeof c.outcome.status === 'number';
      const failed =
        !numeric || (c.outcome.status as number) >= 500 || c.outcome.unexpected !== undefined;
      if (failed) {
        failureCount++;
        if (failures.length < 20)
          failures.push({
            op: c.op,
            t: round((c.done - loadStart) / 1000),
            what: c.outcome.unexpected ?? s,
          });
      }
    });
    clearInterval(sampler);
    clearTimeout(midGroups);
    clearTimeout(firstSnapshot);
    snapshot('at the end of the load');
    await snapshotsWritten(heapDir, options.heapSnapshots.length * 2);
    // The samples judged are those of the load: the last one at its end (before the drain is counted).
    const runSeconds = durationMs / 1000;
    if (current.length > 0 || windows[windows.length - 1]?.t !== runSeconds) sample();
    await gcRound; // the last round's full GCs are samples too, and the services must not stop under it
    const groupsAtEnd = await sharedGroups(brokers).catch(() => ({}));
    const shared = { ...groupsAtStart, ...groupsAtEnd };

    // ——— verdicts ———
    const checks: Check[] = [];
    const verdicts: Record<
      string,
      {
        heap: Verdict;
        rss: Verdict;
        fds: Verdict;
        gc: Record<Collector, number>;
        live_heap_mb: Sample[];
        threads: { start: number; end: number; max: number };
        died: boolean;
      }
    > = {};
    for (const app of APPS) {
      const present = windows.filter((w) => w.services[app] != null);
      const died = present.length < windows.length;
      const series = (f: (s: ProcSample) => number): Sample[] =>
        windows.flatMap((w) => {
          const s = w.services[app];
          return s == null ? [] : [{ t: Math.min(w.t, runSeconds), v: f(s) }];
        });
      const proc = started[app];
      const events = proc === undefined ? [] : readGcLog(join(logDir, `${app}.log`), proc.pid);
      const live =
        proc === undefined
          ? []
          : liveHeapSeries(events, proc.epochMs, loadStartEpochMs, runSeconds);
      const gc =
        proc === undefined
          ? { Scavenge: 0, 'Mark-Compact': 0, 'Minor Mark-Sweep': 0 }
          : gcCounts(events, proc.epochMs, loadStartEpochMs, runSeconds);
      const heap = judge(live, runSeconds, limits.heap);
      const rss = judge(
        series((s) => s.rssMb),
        runSeconds,
        limits.rss,
      );
      const fds = judge(
        series((s) => s.fds),
        runSeconds,
        limits.fds,
      );
      const threads = series((s) => s.threads).map((s) => s.v);
      verdicts[app] = {
        heap,
        rss,
        fds,
        gc,
        live_heap_mb: live,
        threads: {
          start: threads[0] ?? NaN,
          end: threads[threads.length - 1] ?? NaN,
          max: Math.max(...threads),
        },
        died,
      };
      const diedNote = died
        ? `process gone in ${windows.length - present.length} of ${windows.length} samples`
        : '';
      // Too few full GCs to judge (a full GC is forced at every sample, so only when those failed): a full run
      // fails; a short run reports the check as skipped, never as passed.
      const heapOutcome = heapCheckOutcome(heap, died, limits.kind);
      const heapSkipped = heapOutcome === 'skipped';
      checks.push({
        name: `${app} live heap flat`,
        passed: heapOutcome === 'passed',
        ...(heapSkipped ? { skipped: true as const } : {}),
        detail:
          diedNote ||
          (heap.flat
            ? ''
            : heapSkipped
              ? `${heap.reason} (short run: skipped; the RSS bound stands)`
              : heap.reason),
      });
      checks.push({
        name: `${app} rss within bound`,
        passed: rss.flat && !died,
        detail: diedNote || rss.reason,
      });
      checks.push({
        name: `${app} fds flat`,
        passed: fds.flat && !died,
        detail: diedNote || fds.reason,
      });
    }
    const errorDetail =
      failureCount === 0 && result.unfinished === 0
        ? ''
        : `${failureCount} failed, ${result.unfinished} unfinished after the 15 s drain; first: ${failures.map((f) => `${f.op}@${f.t}s ${f.what}`).join(' | ')}`;
    // A 503 + Retry-After (the gateway at capacity) was sent again after it, as the SDK does; counted here.
    checks.push({
      name: 'no 5xx, timeout or unexpected answer (a 503 with Retry-After is sent again once, after it)',
      passed: failureCount === 0 && result.unfinished === 0,
      detail: `${errorDetail}${errorDetail === '' ? '' : '; '}${sentAgainAfterRetryAfter} sent again after a 503 with Retry-After (warm-up included)`,
    });
    const lastQuarter = windows.filter((w) => w.t > 0.75 * runSeconds);
    const lastHooks = lastQuarter.reduce((s, w) => s + w.webhooks, 0);
    checks.push({
      name: 'webhooks delivered in the last quarter',
      passed: lastHooks > 0,
      detail: lastHooks > 0 ? '' : 'the receiver got nothing in the last quarter of the run',
    });

    // ——— table ———
    const pad = (s: string, n: number) => s.padStart(n);
    process.stdout.write(
      `\n${'service'.padEnd(14)}${pad('metric', 8)}${pad('start', 9)}${pad('mid', 9)}${pad('end', 9)}${pad('max', 9)}${pad('slope/min', 11)}${pad('allowed', 16)}  verdict\n`,
    );
    for (const app of APPS) {
      const v = verdicts[app];
      if (v === undefined) continue;
      for (const [metric, j, unit] of [
        ['heap MB', v.heap, 'MB'],
        ['rss MB', v.rss, 'MB'],
        ['fds', v.fds, ''],
      ] as const) {
        const ok =
          (j.flat || (metric === 'heap MB' && !j.judged && limits.kind === 'short')) && !v.died;
        const word =
          !j.judged && !v.died
            ? 'NO VERDICT'
            : ok
              ? metric === 'rss MB'
                ? 'within'
                : 'flat'
              : v.died
                ? 'FAILED'
                : 'GROWS';
        const count =
          metric === 'heap MB'
            ? `  (${v.gc['Mark-Compact']} full GCs, ${v.gc.Scavenge} scavenges)`
            : '';
        process.stdout.write(
          `${app.padEnd(14)}${pad(metric, 8)}${pad(fmt(j.start), 9)}${pad(fmt(j.mid), 9)}${pad(fmt(j.end), 9)}${pad(fmt(j.max), 9)}${pad(fmt(j.slopePerMin, 2), 11)}${pad(`+${fmt(j.allowedGrowth, 0)}${unit}|${fmt(j.allowedSlopePerMin, 1)}/m`, 16)}  ${word}${ok && j.judged ? '' : ` (${v.died ? 'process died' : j.reason})`}${count}\n`,
        );
      }
      process.stdout.write(
        `${app.padEnd(14)}${pad('threads', 8)}${pad(String(v.threads.start), 9)}${pad('', 9)}${pad(String(v.threads.end), 9)}${pad(String(v.threads.max), 9)}\n`,
      );
    }
    const all = windows.flatMap((w) => Object.entries(w.statuses));
    const totals: Record<string, number> = {};
    for (const [s, n] of all) totals[s] = (totals[s] ?? 0) + n;
    const p99s = windows.filter((w) => w.requests > 0).map((w) => w.p99_ms);
    const hooksTotal = windows.reduce((s, w) => s + w.webhooks, 0);
    process.stdout.write(
      `\nrequests: ${result.sent} sent at ${options.rate}/s; ${Object.entries(totals)
        .map(([s, n]) => `${s}: ${n}`)
        .join(
          ', ',
        )}; window p99 median ${fmt(median(p99s), 0)} ms, max ${fmt(Math.max(...p99s), 0)} ms; webhooks received ${hooksTotal}\n`,
    );
    if (Object.keys(shared).length > 0) {
      process.stdout.write(
        `WARNING: consumer groups shared with another cluster on the same Kafka (members): ${JSON.stringify(shared)}; the figures are not of this cluster alone\n`,
      );
    }
    for (const c of checks) if (c.skipped) process.stdout.write(`SKIPPED ${c.name}: ${c.detail}\n`);
    for (const c of checks)
      if (!c.passed && !c.skipped) process.stdout.write(`FAILED ${c.name}: ${c.detail}\n`);
    if (forcedGcFailures > 0)
      process.stdout.write(`forced full GCs that failed: ${forcedGcFailures}\n`);

    const skipped = checks.filter((c) => c.skipped).length;
    const passed = checks.filter((c) => c.passed && !c.skipped).length;
    const failed = checks.length - passed - skipped;
    const report = {
      started_at: new Date(t0).toISOString(),
      options: { ...options, report: undefined },
      machine,
      limits,
      thresholds_rule:
        'tools/soak/flat.ts: the first quarter is warm-up; halves A (25–62.5%) and B (62.5–100%); grows iff min(median B − median A, peak B − peak A) > max(floor, fraction × median A) AND the least-squares slope over the second half of the run > that growth / (37.5% of the run); too few samples (limits.*.minPerHalf/minLastHalf, default 2 and 4) is no verdict: it fails a full run and is skipped (never passed) in a short one. A full GC is forced through the inspector of each service at every sample point (force-gc.ts). Memory: the live heap after each full GC (--trace-gc Mark-Compact lines, tools/soak/gc-trace.ts) must be flat; RSS stays within a loose bound (a gross leak, or one outside the heap); fds flat.',
      requests: {
        sent: result.sent,
        unfinished: result.unfinished,
        statuses: totals,
        by_op: byOp,
        failures,
      },
      webhooks_received: hooksTotal,
      kafka_groups_shared: shared,
      verdicts,
      checks,
      windows,
      passed,
      failed,
      skipped,
    };
    mkdirSync(dirname(options.report), { recursive: true });
    writeFileSync(options.report, JSON.stringify(report, null, 2));
    process.stdout.write(
      `report: ${options.report}; service logs: ${logDir}\n\n${passed} passed, ${failed} failed, ${skipped} skipped\n`,
    );
    return failed === 0 ? 0 : 1;
  } finally {
    if (cluster !== null) await cluster.stop();
    receiver.server.closeAllConnections();
    await new Promise<void>((r) => receiver.server.close(() => r()));
    destroyAgents();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(
      `soak: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n0 passed, 1 failed\n`,
    );
    process.exit(1);
  },
);
