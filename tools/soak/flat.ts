// Is a series flat? The rule of the soak run, apart from the run so that it can be tested on made-up
// series. A Node process's RSS climbs while it warms up (JIT, V8 growing its heap to the working set,
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
  flat: boolean;
  /** Why it is not flat, or why there is nothing to judge. */
  reason: string;
}

/**
 * The soak run's thresholds. A full run (5 minutes or more): RSS may grow between the second and
 * the last quarter's medians by 16 MB or 10% of the mid value, whichever is larger (a service settles at
 * 150–370 MB here, with a GC saw-tooth of up to 150 MB); descriptors by 8 or 10% (sockets to PostgreSQL,
 * Kafka, peers and clients come and go with the pools and keep-alive). A short run (under 5 minutes, CI's)
 * lies inside the services' heap warm-up — in the full runs V8 grows the heaps for the first 2–5 minutes
 * at this load, the charges service from 130 to 340 MB in 2 — so its RSS limit is 64 MB or 50%: it only
 * catches a gross leak (tens of MB a minute, e.g. every request's body kept), not a slow one.
 * Descriptors have no such warm-up (the pools fill in seconds) and keep the same limits.
 */
export function limitsFor(minutes: number): { kind: 'full' | 'short'; rss: Limits; fds: Limits } {
  const fds = { growthFloor: 8, growthFraction: 0.1 };
  return minutes >= 5 ? { kind: 'full', rss: { growthFloor: 16, growthFraction: 0.1 }, fds } : { kind: 'short', rss: { growthFloor: 64, growthFraction: 0.5 }, fds };
}

export function median(values: number[]): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
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
  const inRange = (from: number, to: number) => samples.filter((s) => s.t >= from * runSeconds && s.t <= to * runSeconds).map((s) => s.v);
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
  if (a.length < 2 || b.length < 2 || lastHalf.length < 4) {
    return { ...base, flat: false, reason: `too few samples to judge (${a.length} in the first judged half, ${b.length} in the second)` };
  }
  const grows = growth > allowedGrowth && slope > allowedSlopePerMin;
  return {
    ...base,
    flat: !grows,
    reason: grows ? `grew ${fmt(growth)} (allowed ${fmt(allowedGrowth)}) at ${fmt(slope)}/min (allowed ${fmt(allowedSlopePerMin)}/min)` : '',
  };
}

function fmt(x: number): string {
  return Math.abs(x) >= 10 ? x.toFixed(0) : x.toFixed(1);
}
