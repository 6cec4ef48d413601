import { median } from '../bench/load';
import {
  heapCheckOutcome,
  judge,
  limitsFor,
  slopePerMinute,
  type Limits,
  type Sample,
} from './flat';

// The soak run's rule on made-up series: a warm-up ramp and GC noise pass, a steady leak fails, and a
// run too short to have two quarters of samples is not called flat.

const RSS: Limits = { growthFloor: 16, growthFraction: 0.1 };
const RUN_S = 600;

function series(f: (t: number) => number, everyS = 5, runS = RUN_S): Sample[] {
  const out: Sample[] = [];
  for (let t = 0; t <= runS; t += everyS) out.push({ t, v: f(t) });
  return out;
}

// Deterministic noise in [-1, 1).
function noise(t: number): number {
  const x = Math.sin(t * 12.9898) * 43758.5453;
  return (x - Math.floor(x)) * 2 - 1;
}

describe('the soak run flat rule', () => {
  it('median and least-squares slope', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(
      slopePerMinute([
        { t: 0, v: 10 },
        { t: 60, v: 12 },
        { t: 120, v: 14 },
      ]),
    ).toBeCloseTo(2);
  });

  it('a warm-up ramp then a plateau with GC noise of ±10 MB is flat', () => {
    const v = judge(
      series((t) => (t < 90 ? 100 + t : 190) + 10 * noise(t)),
      RUN_S,
      RSS,
    );
    expect(v.flat).toBe(true);
    expect(Math.abs(v.growth)).toBeLessThan(5);
  });

  it('a saw-tooth (the heap grows, a major GC returns it) is flat', () => {
    const v = judge(
      series((t) => 150 + (t % 100) * 0.6),
      RUN_S,
      RSS,
    );
    expect(v.flat).toBe(true);
  });

  it('a steady leak of 5 MB/min is growing, with its growth and slope', () => {
    const v = judge(
      series((t) => 120 + (5 * t) / 60 + 3 * noise(t)),
      RUN_S,
      RSS,
    );
    expect(v.flat).toBe(false);
    expect(v.slopePerMin).toBeCloseTo(5, 0);
    expect(v.growth).toBeGreaterThan(v.allowedGrowth);
    expect(v.reason).toMatch(/grew/);
  });

  it('one step up in the middle (V8 grew the heap once), then a plateau, is flat', () => {
    // The gateway in the first full run: 185 MB until 4 min, 233–235 MB from 5 min to the end.
    const v = judge(
      series((t) => (t < 240 ? 185 : t < 300 ? 185 + (t - 240) * 0.8 : 233 + noise(t))),
      RUN_S,
      RSS,
    );
    expect(v.growth).toBeLessThan(v.allowedGrowth);
    expect(v.flat).toBe(true);
  });

  it('steps that go on to the end are growing', () => {
    const v = judge(
      series((t) => 150 + 25 * Math.floor(t / 120)),
      RUN_S,
      RSS,
    );
    expect(v.flat).toBe(false);
  });

  it('a deep saw-tooth with a 3-minute tooth, ending on a rising edge, is flat', () => {
    // The receivables service in the second full run: 130 → 265, GC to 144, 265, GC to 142, 235 at the end.
    const v = judge(
      series((t) => 140 + ((t % 180) / 180) * 125),
      RUN_S,
      RSS,
    );
    expect(v.flat).toBe(true);
  });

  it('a leak of 20 MB/min under that saw-tooth is growing (one of 10 can hide in it: the rule’s resolution)', () => {
    const v = judge(
      series((t) => 140 + ((t % 180) / 180) * 125 + (20 * t) / 60),
      RUN_S,
      RSS,
    );
    expect(v.flat).toBe(false);
  });

  it('one late spike moves the slope but not the medians: flat', () => {
    const v = judge(
      series((t) => (t >= 590 ? 400 : 150)),
      RUN_S,
      RSS,
    );
    expect(v.slopePerMin).toBeGreaterThan(v.allowedSlopePerMin);
    expect(v.growth).toBeLessThan(v.allowedGrowth);
    expect(v.flat).toBe(true);
  });

  it('descriptors: one leaked per minute over 10 minutes stays within 8; ten per minute does not', () => {
    const fds: Limits = { growthFloor: 8, growthFraction: 0.1 };
    expect(
      judge(
        series((t) => 30 + Math.floor(t / 60)),
        RUN_S,
        fds,
      ).flat,
    ).toBe(true);
    expect(
      judge(
        series((t) => 30 + Math.floor((10 * t) / 60)),
        RUN_S,
        fds,
      ).flat,
    ).toBe(false);
  });

  it('the allowed slope is the allowed growth over half the run: a short run allows a steeper one', () => {
    const long = judge(
      series(() => 100),
      600,
      RSS,
    );
    const short = judge(
      series(() => 100, 5, 120),
      120,
      RSS,
    );
    expect(long.allowedSlopePerMin).toBeCloseTo(16 / 3.75);
    expect(short.allowedSlopePerMin).toBeCloseTo(16 / 0.75);
  });

  it('too few samples is no verdict, and not flat', () => {
    const v = judge(
      [
        { t: 0, v: 1 },
        { t: 60, v: 1 },
      ],
      RUN_S,
      RSS,
    );
    expect(v.flat).toBe(false);
    expect(v.judged).toBe(false);
    expect(v.reason).toMatch(/too few samples/);
  });

  // Proves issue 16 item 12: a check that judged nothing is never counted as passed, and a leak fails a short run.
  it('the live-heap check: a leak fails, flat passes, no verdict is skipped in a short run and fails a full one', () => {
    const minutes = 2;
    const { heap } = limitsFor(minutes);
    const every5s = (f: (t: number) => number) =>
      Array.from({ length: (minutes * 60) / 5 + 1 }, (_, i) => ({ t: i * 5, v: f(i * 5) }));
    const leaking = judge(
      every5s((t) => 40 + (t / 60) * 30),
      minutes * 60,
      heap,
    );
    const flat = judge(
      every5s((t) => 40 + (t % 15 === 0 ? 1 : 0)),
      minutes * 60,
      heap,
    );
    const unjudged = judge([{ t: 100, v: 40 }], minutes * 60, heap);
    expect(heapCheckOutcome(leaking, false, 'short')).toBe('failed');
    expect(heapCheckOutcome(flat, false, 'short')).toBe('passed');
    expect(heapCheckOutcome(unjudged, false, 'short')).toBe('skipped');
    expect(heapCheckOutcome(unjudged, false, 'full')).toBe('failed');
    expect(heapCheckOutcome(flat, true, 'short')).toBe('failed');
  });
});
