// Load generation for the benchmarks, on node:http alone, against 127.0.0.1 only. Every run is bounded in
// count and in time and stops by itself.
//  - closedLoop: N workers, each sending its next request when the previous one answered: the throughput.
//  - openLoop: requests scheduled at a fixed arrival rate whatever the answers do; each latency is measured
//    from the request's scheduled send time (no coordinated omission), so a saturated server shows as
//    growing latency rather than a politely lower rate.
import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';

export interface Answer {
  status: number;
  body: string;
  headers: IncomingHttpHeaders;
}

export interface Req {
  method: 'GET' | 'POST' | 'PATCH';
  url: string;
  headers?: Record<string, string>;
  body?: string;
}

const agents = new Map<number, Agent>();
function agentFor(maxSockets: number): Agent {
  let agent = agents.get(maxSockets);
  if (agent === undefined) {
    agent = new Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets });
    agents.set(maxSockets, agent);
  }
  return agent;
}

export function destroyAgents(): void {
  for (const agent of agents.values()) agent.destroy();
  agents.clear();
}

function assertLocal(url: URL): void {
  if (url.hostname !== '127.0.0.1')
    throw new Error(`benchmarks only load 127.0.0.1, not ${url.hostname}`);
}

/** One request; rejects on a network error or after timeoutMs. */
export function send(
  req: Req,
  options: { maxSockets?: number; timeoutMs?: number } = {},
): Promise<Answer> {
  const url = new URL(req.url);
  assertLocal(url);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...(req.headers ?? {}) };
    if (req.body !== undefined) {
      headers['content-type'] ??= 'application/json';
      headers['content-length'] = String(Buffer.byteLength(req.body));
    }
    const r = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: req.method,
        headers,
        agent: agentFor(options.maxSockets ?? 64),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8'),
            headers: res.headers,
          }),
        );
        res.on('error', reject);
      },
    );
    r.setTimeout(options.timeoutMs ?? 10_000, () => r.destroy(new Error('timeout')));
    r.on('error', reject);
    if (req.body !== undefined) r.write(req.body);
    r.end();
  });
}

export async function json<T = Record<string, unknown>>(
  req: Req,
  expectStatus?: number,
): Promise<T> {
  const a = await send(req);
  if (expectStatus !== undefined && a.status !== expectStatus)
    throw new Error(`${req.method} ${req.url}: ${a.status} ${a.body.slice(0, 300)}`);
  return JSON.parse(a.body) as T;
}

/** The middle value (the mean of the middle two for an even count); NaN for none. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i] as number;
}

export interface LatencySummary {
  count: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
  max_ms: number;
}

export function summarize(latenciesMs: number[]): LatencySummary {
  const s = [...latenciesMs].sort((a, b) => a - b);
  const r = (x: number) => Math.round(x * 100) / 100;
  return {
    count: s.length,
    p50_ms: r(percentile(s, 50)),
    p95_ms: r(percentile(s, 95)),
    p99_ms: r(percentile(s, 99)),
    max_ms: r(s[s.length - 1] ?? NaN),
  };
}

export interface LoadResult extends LatencySummary {
  ok: number;
  failed: number;
  statuses: Record<string, number>;
  duration_s: number;
  rate_per_s: number;
}

function tally(statuses: Record<string, number>, key: string): void {
  statuses[key] = (statuses[key] ?? 0) + 1;
}

/** The wait a 503 asks for (`Retry-After`, in seconds), in ms; null for any other answer. */
export function retryAfterMs(a: Answer): number | null {
  const seconds = Number(a.headers['retry-after']);
  return a.status === 503 && seconds > 0 ? seconds * 1000 : null;
}

/** N concurrent workers for durationMs (after warmupMs not counted): completed requests per second. */
export async function closedLoop(
  make: (i: number) => Req,
  options: {
    concurrency: number;
    durationMs: number;
    warmupMs?: number;
    okStatus?: number;
    onOk?: (a: Answer, i: number) => void;
  },
): Promise<LoadResult> {
  const statuses: Record<string, number> = {};
  const latencies: number[] = [];
  let ok = 0;
  let failed = 0;
  let n = 0;
  const warmupEnd = performance.now() + (options.warmupMs ?? 0);
  const end = warmupEnd + options.durationMs;
  let measuredStart = 0;
  const worker = async () => {
    while (performance.now() < end) {
      const i = n++;
      const t0 = performance.now();
      const counted = t0 >= warmupEnd;
      try {
        const a = await send(make(i), { maxSockets: options.concurrency });
        // A client told to come back later does, after Retry-After with jitter (½–1½ of it, so that
        // the clients refused together do not all come back together), as well-behaved clients do. One
        // that sent again at once or after a few ms (tried: 50–150 ms gave 20 charges/s instead of 33)
        // measures how fast the gateway refuses, and takes the services' CPU for its refusals.
        const retryAfter = retryAfterMs(a);
        if (retryAfter !== null) {
          const waitMs = retryAfter * (0.5 + Math.random());
          await sleep(Math.min(waitMs, Math.max(0, end - performance.now())));
        }
        if (!counted) continue;
        tally(statuses, String(a.status));
        if (a.status === (options.okStatus ?? 200)) {
          ok++;
          latencies.push(performance.now() - t0);
          options.onOk?.(a, i);
        } else failed++;
      } catch (err) {
        if (counted) {
          failed++;
          tally(statuses, err instanceof Error ? err.message : 'error');
        }
      }
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  measuredStart = Math.max(started, warmupEnd);
  const duration = (performance.now() - measuredStart) / 1000;
  return {
    ...summarize(latencies),
    ok,
    failed,
    statuses,
    duration_s: round(duration),
    rate_per_s: round(ok / duration),
  };
}

/**
 * Requests at a fixed arrival rate for durationMs; latency from each request's scheduled time. Waits for
 * the stragglers up to drainMs, then counts what is still outstanding as failed ("unfinished").
 */
/**
 * Fires `fire(i, scheduledMs)` at a fixed arrival rate whatever the answers do, then waits (at most
 * `drainMs`) for what is still pending: the open loop of openLoop and of the soak's mixed load.
 */
export async function arrivals(
  options: { ratePerSecond: number; durationMs: number; drainMs: number },
  fire: (i: number, scheduledMs: number) => Promise<void>,
): Promise<{ sent: number; unfinished: number; startMs: number; sendEndMs: number }> {
  const total = Math.floor((options.ratePerSecond * options.durationMs) / 1000);
  const interval = 1000 / options.ratePerSecond;
  const start = performance.now();
  const pending = new Set<Promise<void>>();
  let sent = 0;
  while (sent < total) {
    const due = Math.min(total, Math.floor((performance.now() - start) / interval) + 1);
    while (sent < due) {
      const i = sent++;
      const p = fire(i, start + i * interval);
      pending.add(p);
      void p.finally(() => pending.delete(p));
    }
    const next = start + sent * interval;
    await new Promise((r) => setTimeout(r, Math.max(0, Math.min(5, next - performance.now()))));
  }
  const sendEndMs = performance.now();
  let drainTimer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.all(pending),
    new Promise((r) => (drainTimer = setTimeout(r, options.drainMs))),
  ]);
  clearTimeout(drainTimer);
  return { sent, unfinished: pending.size, startMs: start, sendEndMs };
}

export async function openLoop(
  make: (i: number) => Req,
  options: {
    ratePerSecond: number;
    durationMs: number;
    okStatus?: number;
    maxSockets?: number;
    drainMs?: number;
    onOk?: (a: Answer, i: number, scheduledMs: number, doneMs: number) => void;
  },
): Promise<LoadResult & { offered_per_s: number; sent: number; over_time: TimeSlice[] }> {
  const statuses: Record<string, number> = {};
  const answered: Array<{ scheduledMs: number; latencyMs: number }> = [];
  let ok = 0;
  let failed = 0;
  const { sent, unfinished, startMs, sendEndMs } = await arrivals(
    { ...options, drainMs: options.drainMs ?? 15_000 },
    (i, scheduled) =>
      send(make(i), { maxSockets: options.maxSockets ?? 512, timeoutMs: 15_000 }).then(
        (a) => {
          const done = performance.now();
          tally(statuses, String(a.status));
          if (a.status === (options.okStatus ?? 200)) {
            ok++;
            answered.push({ scheduledMs: scheduled, latencyMs: done - scheduled });
            options.onOk?.(a, i, scheduled, done);
          } else failed++;
        },
        (err: unknown) => {
          failed++;
          tally(statuses, err instanceof Error ? err.message : 'error');
        },
      ),
  );
  if (unfinished > 0) {
    failed += unfinished;
    statuses.unfinished = unfinished;
  }
  const duration = (performance.now() - startMs) / 1000;
  return {
    ...summarize(answered.map((a) => a.latencyMs)),
    ok,
    failed,
    statuses: { ...statuses },
    sent,
    offered_per_s: round(sent / ((sendEndMs - startMs) / 1000)),
    duration_s: round(duration),
    rate_per_s: round(ok / duration),
    over_time: overTime(
      answered.map((a) => ({ atMs: a.scheduledMs - startMs, latencyMs: a.latencyMs })),
      TIME_SLICE_MS,
    ),
  };
}

/** The open loop's answers by when they were sent, so that a tail says whether it is a moment or all along. */
const TIME_SLICE_MS = 500;

export interface TimeSlice {
  /** Seconds from the first send to the slice's start. */
  from_s: number;
  count: number;
  p50_ms: number;
  max_ms: number;
}

/** The answers of `samples` (sent `atMs` after the start) in slices of `sliceMs`, in order; empty slices left out. */
export function overTime(
  samples: ReadonlyArray<{ atMs: number; latencyMs: number }>,
  sliceMs: number,
): TimeSlice[] {
  const bySlice = new Map<number, number[]>();
  for (const { atMs, latencyMs } of samples) {
    const slice = Math.floor(atMs / sliceMs);
    const inSlice = bySlice.get(slice) ?? [];
    inSlice.push(latencyMs);
    bySlice.set(slice, inSlice);
  }
  return [...bySlice]
    .sort(([a], [b]) => a - b)
    .map(([slice, values]) => {
      const { count, p50_ms, max_ms } = summarize(values);
      return { from_s: round((slice * sliceMs) / 1000, 2), count, p50_ms, max_ms };
    });
}

export function round(x: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
