// Is a series flat? The rule of the soak run, apart from the run so that it can be tested on made-up
// series. A process's RSS climbs while it warms up (JIT, V8 growing its heap to the working set, pools
// filling) and then moves with the garbage collector, so the rule ignores the warm-up, compares medians
// (not single samples) and asks the least-squares slope for the same answer:
//  - warm-up: the first `warmupFraction` of the run (default 20%) is ignored;
//  - mid = median of the second quarter of the run, end = median of the last quarter;
//  - growth = end − mid; slope = least-squares slope per minute over the samples after the warm-up;
//  - the series GROWS (fails) when growth > allowed growth AND slope > allowed slope. Both must agree:
//    a leak moves both, while one GC spike or one step moves the medians or the slope, rarely both.
// The allowed growth is max(absolute floor, fraction of mid); the allowed slope is that growth spread
// over the time between the two quarters' centres (half the run): one figure, "this much growth over the
// measured part of the run", said twice. A short run therefore tolerates a steeper slope: it can only
// catch gross leaks, and says so in its thresholds.

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
  warmupFraction: number;
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
  const q2 = inRange(0.25, 0.5);
  const q4 = inRange(0.75, 1);
  const measured = samples.filter((s) => s.t >= limits.warmupFraction * runSeconds);
  const mid = median(q2);
  const end = median(q4);
  const growth = end - mid;
  const slope = slopePerMinute(measured);
  const allowedGrowth = Math.max(limits.growthFloor, limits.growthFraction * mid);
  const allowedSlopePerMin = allowedGrowth / (runSeconds / 2 / 60);
  const base = {
    start: samples[0]?.v ?? NaN,
    mid,
    end,
    max: samples.reduce((m, s) => Math.max(m, s.v), -Infinity),
    growth,
    slopePerMin: slope,
    allowedGrowth,
    allowedSlopePerMin,
    samples: samples.length,
  };
  if (q2.length < 2 || q4.length < 2 || measured.length < 4) {
    return { ...base, flat: false, reason: `too few samples to judge (${q2.length} in the second quarter, ${q4.length} in the last)` };
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
