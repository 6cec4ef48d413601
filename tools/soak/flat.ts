// Is a series flat? The rule of the soak run, apart from the run so that it can be tested on made-up
// series. It judges three series per service: the live heap after each full GC (the memory verdict, with
// tight limits: no saw-tooth there), RSS (a loose bound against a gross leak) and descriptors. What
// follows was written for RSS, the hardest of the three. A Node process's RSS climbs while it warms up (JIT, V8 growing its heap to the working set,
// pools filling); V8 grows the heap in steps, sometimes minutes into a steady load; and RSS moves with
// the garbage collector in a saw-tooth (here up to 130 MB deep, one tooth every 2–5 minutes). A leak
// differs from all three: its troughs and its peaks keep rising, to the end. So:
//  - warm-up: the first quarter of the run is not judged (only shown as `start`);
//  - the judged part is cut in two halves, A (25–62.5% of the run) and B (62.5–100%), each longer than
//    one tooth of the saw-tooth in a 10-minute run: mid = median of A, end = median of B;
//  - growth = the smaller of (median B − median A) and (peak B − peak A): a saw-tooth has the same peaks
//    in both halves whatever its phase, a leak raises both its median and its peaks;
//  - slope = least-squares slope per minute over the second half of the run ("still rising at the end?");
//  - the series GROWS (fails) when growth > allowed growth AND slope > allowed slope. Both must agree: a
//    one-time step (the heap grown once, then a plateau) moves the growth, not the slope at the end; a
//    late spike or a tooth's rising edge moves the slope, not the peaks.
// The allowed growth is max(absolute floor, fraction of mid); the allowed slope is that growth spread over
// the distance between the halves' centres (37.5% of the run): one figure said twice. A short run
// therefore tolerates a steeper slope. What the rule cannot see is a leak smaller than the noise: on a
// 10-minute run, about the allowed growth / 3.75 per minute on a smooth series (4–10 MB/min here), and
// under a 125 MB saw-tooth with 3-minute teeth one of 10 MB/min can hide, one of 20 cannot (the spec).
import { median } from '../bench/load';

export interface Sample {
  /** Seconds since the load started. */
  t: number;
  v: number;
}

export interface Limits {
  /** Allowed growth mid → end, at least this many units (MB for RSS, descriptors for fds). */
  growthFloor: number;
  /** …or this fraction of mid, whichever is larger. */
  growthFraction: number;
  /**
   * Fewest samples to judge: in each judged half, and in the second half of the run (for the slope).
   * Default 2 and 4 (periodic samples of RSS and fds). The live heap is sampled by the full GCs, which are
   * sparse (V8 runs one when the old generation reaches its limit) but each a trough, without the
   * saw-tooth: one in each judged half and two in the second half of the run are enough there.
   */
  minPerHalf?: number;
  minLastHalf?: number;
}

export interface Verdict {
  start: number;
  mid: number;
  end: number;
  max: number;
  growth: number;
  slopePerMin: number;
  allowedGrowth: number;
  allowedSlopePerMin: number;
  samples: number;
  /** False when there were too few samples: no verdict (and not flat). */
  judged: boolean;
  flat: boolean;
  /** Why it is not flat, or why there is nothing to judge. */
  reason: string;
}

/**
 * The soak run's thresholds.
 *  - heap (the memory verdict): the live heap after each full GC (tools/soak/gc-trace.ts), 33–45 MB per
 *    service here, moving by 1–2 MB between full GCs with nothing leaking. A full run (5 minutes or more)
 *    allows 4 MB or 10% of mid, whichever is larger; a short run (under 5 minutes, CI's) lies partly in the
 *    services' warm-up, when caches and pools still fill the heap, and allows 8 MB or 25%. The full GCs are
 *    sparse: one in each judged half and two in the second half of the run are enough (each is a trough).
 *  - rss: a loose bound against a gross leak, 64 MB or 50% in either run. The live heap is the measure of a
 *    leak; RSS adds V8's sizing of its heap (a saw-tooth up to 130 MB deep, new high-water marks minutes
 *    into a steady load) and memory outside the heap (Buffers, native handles), which only RSS sees: this
 *    bound catches a leak there of tens of MB a minute, not a slow one.
 *  - fds: 8 or 10% of mid (sockets to PostgreSQL, Kafka, peers and clients come and go with the pools and
 *    keep-alive); the pools fill in seconds, so a short run keeps the same limits.
 */
export function limitsFor(minutes: number): {
  kind: 'full' | 'short';
  heap: Limits;
  rss: Limits;
  fds: Limits;
} {
  const fds = { growthFloor: 8, growthFraction: 0.1 };
  const rss = { growthFloor: 64, growthFraction: 0.5 };
  const sparse = { minPerHalf: 1, minLastHalf: 2 };
  return minutes >= 5
    ? { kind: 'full', heap: { growthFloor: 4, growthFraction: 0.1, ...sparse }, rss, fds }
    : { kind: 'short', heap: { growthFloor: 8, growthFraction: 0.25, ...sparse }, rss, fds };
}

/** Least-squares slope of v over t, per minute (t in seconds). */
export function slopePerMinute(samples: Sample[]): number {
  const n = samples.length;
  if (n < 2) return NaN;
  const mt = samples.reduce((a, s) => a + s.t, 0) / n;
  const mv = samples.reduce((a, s) => a + s.v, 0) / n;
  let num = 0;
  let den = 0;
  for (const s of samples) {
    num += (s.t - mt) * (s.v - mv);
    den += (s.t - mt) ** 2;
  }
  return den === 0 ? 0 : (num / den) * 60;
}

export function judge(samples: Sample[], runSeconds: number, limits: Limits): Verdict {
  const inRange = (from: number, to: number) =>
    samples.filter((s) => s.t >= from * runSeconds && s.t <= to * runSeconds).map((s) => s.v);
  const a = inRange(0.25, 0.625);
  const b = inRange(0.625, 1);
  const lastHalf = samples.filter((s) => s.t >= 0.5 * runSeconds);
  const peak = (values: number[]) => values.reduce((m, v) => Math.max(m, v), -Infinity);
  const mid = median(a);
  const end = median(b);
  const growth = Math.min(end - mid, peak(b) - peak(a));
  const slope = slopePerMinute(lastHalf);
  const allowedGrowth = Math.max(limits.growthFloor, limits.growthFraction * mid);
  const allowedSlopePerMin = allowedGrowth / ((0.375 * runSeconds) / 60);
  const base = {
    start: samples[0]?.v ?? NaN,
    mid,
    end,
    max: peak(samples.map((s) => s.v)),
    growth,
    slopePerMin: slope,
    allowedGrowth,
    allowedSlopePerMin,
    samples: samples.length,
  };
  const minPerHalf = limits.minPerHalf ?? 2;
  const minLastHalf = limits.minLastHalf ?? 4;
  if (a.length < minPerHalf || b.length < minPerHalf || lastHalf.length < minLastHalf) {
    return {
      ...base,
      judged: false,
      flat: false,
      reason: `no verdict: too few samples to judge (${a.length} in the first judged half, ${b.length} in the second, ${lastHalf.length} in the second half of the run; needs ${minPerHalf}, ${minPerHalf}, ${minLastHalf})`,
    };
  }
  const grows = growth > allowedGrowth && slope > allowedSlopePerMin;
  return {
    ...base,
    judged: true,
    flat: !grows,
    reason: grows
      ? `grew ${fmt(growth)} (allowed ${fmt(allowedGrowth)}) at ${fmt(slope)}/min (allowed ${fmt(allowedSlopePerMin)}/min)`
      : '',
  };
}

function fmt(x: number): string {
  return Math.abs(x) >= 10 ? x.toFixed(0) : x.toFixed(1);
}

/** A check's outcome: a verdict that judged nothing is skipped, never passed. */
export type CheckOutcome = 'passed' | 'failed' | 'skipped';

/**
 * The live-heap check of one service: flat passes, growing fails, a process that died fails; too few
 * samples fails a full run (10 minutes must judge) and is skipped in a short one (its RSS bound stands).
 */
export function heapCheckOutcome(
  heap: Verdict,
  died: boolean,
  kind: 'full' | 'short',
): CheckOutcome {
  if (died) return 'failed';
  if (heap.judged) return heap.flat ? 'passed' : 'failed';
  return kind === 'short' ? 'skipped' : 'failed';
}
