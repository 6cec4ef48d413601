import { AdaptiveLimit } from './adaptive-limit';
import { Admission } from './admission';

const SETTINGS = { limitMax: 64, limitMin: 1, latencyTargetMs: 100 };

describe('AdaptiveLimit: additive increase while answers are in time, multiplicative decrease when late', () => {
  it('starts at 20 and grows to the ceiling while answers come back within the target and the limit is in use', () => {
    // Proves a service that keeps up is soon not refused work it could do.
    const limit = new AdaptiveLimit(SETTINGS);
    expect(limit.limit).toBe(20);
    for (let n = 0; n < 2_000; n += 1)
      limit.onSample({ latencyMs: 20, inFlight: limit.limit, failed: false, nowMs: n });
    expect(limit.limit).toBe(64);
    expect(new AdaptiveLimit({ ...SETTINGS, limitMax: 3 }).limit).toBe(3);
  });

  it('shrinks on a late answer in proportion to how late, at most once per target period, never below the floor', () => {
    // Proves one burst of late answers (every request admitted while the queue built) is one decrease, not a collapse.
    const limit = new AdaptiveLimit({ ...SETTINGS, limitMax: 64 });
    for (let n = 0; n < 2_000; n += 1)
      limit.onSample({ latencyMs: 20, inFlight: limit.limit, failed: false, nowMs: n / 10 });
    expect(limit.limit).toBe(64);
    for (let n = 0; n < 50; n += 1)
      limit.onSample({ latencyMs: 400, inFlight: 64, failed: false, nowMs: 1_000 + n });
    expect(limit.limit).toBe(32); // ×0.5: 400 ms is four times the target
    limit.onSample({ latencyMs: 105, inFlight: 32, failed: false, nowMs: 1_200 });
    expect(limit.limit).toBe(28); // ×0.9: barely late (100/105 capped at 0.9), admitted after the decrease
    // Answers 1 s late, each of a request admitted after the decrease before it: ×0.5 each, to the floor.
    for (let n = 0; n < 10; n += 1)
      limit.onSample({
        latencyMs: 1_000,
        inFlight: limit.limit,
        failed: false,
        nowMs: 2_300 + n * 1_100,
      });
    expect(limit.limit).toBe(1);
  });

  it('decreases once per round trip: the late answers of requests admitted before a decrease do not decrease it again', () => {
    // Proves a stall is one decrease, not a collapse: at 10 requests/s a 1.5 s stall piles up 15 requests,
    // answered late one after another over the next second, and only those admitted after the decrease count.
    const limit = new AdaptiveLimit(SETTINGS);
    limit.onSample({ latencyMs: 20, inFlight: 1, failed: false, nowMs: 0 });
    for (let n = 0; n < 15; n += 1) {
      const admittedAtMs = 1_000 + n * 100;
      const answeredAtMs = 2_500 + n * 70; // worked off in order once the stall ends
      limit.onSample({
        latencyMs: answeredAtMs - admittedAtMs,
        inFlight: n + 1,
        failed: false,
        nowMs: answeredAtMs,
      });
    }
    expect(limit.limit).toBe(10); // 20 × 0.5 once, though answers kept coming back late for a second
    // A request admitted after that decrease, and late too: a queue that goes on, so it decreases again.
    limit.onSample({ latencyMs: 800, inFlight: 10, failed: false, nowMs: 4_500 });
    expect(limit.limit).toBe(5);
  });

  it('a late answer while the limit was far from used leaves it: a pause or a slow host is not a queue', () => {
    // Proves a GC pause at low traffic (a few requests in flight, each answered seconds late) does not take
    // the limit to its floor, which would refuse the requests that pile up behind the next pause.
    const limit = new AdaptiveLimit(SETTINGS);
    limit.onSample({ latencyMs: 20, inFlight: 1, failed: false, nowMs: 0 });
    for (let n = 1; n <= 20; n += 1)
      limit.onSample({ latencyMs: 2_000, inFlight: 3, failed: false, nowMs: n * 200 });
    expect(limit.limit).toBe(20);
    limit.onSample({ latencyMs: 2_000, inFlight: 10, failed: false, nowMs: 5_000 });
    expect(limit.limit).toBe(10); // half the limit in flight: a queue of ours, ×0.5
  });

  it('an exchange that failed (reset, unreachable, past the deadline) halves the limit', () => {
    // Proves a failing service is sent less, whatever its latency looked like.
    const limit = new AdaptiveLimit(SETTINGS);
    limit.onSample({ latencyMs: 1, inFlight: 1, failed: true, nowMs: 0 });
    expect(limit.limit).toBe(10);
  });

  it('grows back by about one per round of answers in time while in use, to its initial limit at once when it has room, and an idle one no further', () => {
    // Proves a recovered service gets its capacity back, and an idle one does not climb to the ceiling unearned.
    const limit = new AdaptiveLimit(SETTINGS);
    limit.onSample({ latencyMs: 20, inFlight: 1, failed: false, nowMs: 0 });
    for (let n = 1; n <= 2; n += 1)
      limit.onSample({ latencyMs: 1_000, inFlight: 64, failed: false, nowMs: n * 1_000 });
    expect(limit.limit).toBe(5); // 20 → 10 → 5
    let nowMs = 10_000;
    for (let n = 0; n < 20; n += 1)
      limit.onSample({ latencyMs: 20, inFlight: limit.limit, failed: false, nowMs: (nowMs += 1) });
    expect(limit.limit).toBe(8); // in use: +1 a round of answers
    for (let n = 0; n < 5; n += 1)
      limit.onSample({ latencyMs: 20, inFlight: 2, failed: false, nowMs: (nowMs += 1) });
    expect(limit.limit).toBe(13); // room to spare below the initial 20: +1 an answer
    for (let n = 0; n < 100; n += 1)
      limit.onSample({ latencyMs: 20, inFlight: 2, failed: false, nowMs: (nowMs += 1) });
    expect(limit.limit).toBe(20); // back to the initial limit, and no further while not in use
  });

  it('a service slow by nature is measured against twice its fastest recent answer, not the fixed target', () => {
    // Proves a slow acquirer (every answer 300 ms even when idle) is not read as a queue and starved to the floor.
    const limit = new AdaptiveLimit(SETTINGS);
    for (let n = 0; n < 200; n += 1)
      limit.onSample({ latencyMs: 300 + (n % 5) * 50, inFlight: 64, failed: false, nowMs: n * 50 });
    expect(limit.targetMs()).toBe(600);
    const grown = limit.limit;
    expect(grown).toBeGreaterThan(20); // never decreased, grew while in use
    // Past both windows the fastest answer is forgotten: 700 ms answers are late again.
    limit.onSample({ latencyMs: 700, inFlight: 64, failed: false, nowMs: 60_000 });
    limit.onSample({ latencyMs: 1_400, inFlight: 64, failed: false, nowMs: 61_000 });
    expect(limit.limit).toBeLessThan(grown);
  });
});

describe('Admission under overload: the admitted requests stay fast, the rest are refused at once', () => {
  /**
   * A service that answers one request at a time in 10 ms (100/s), offered 500/s for 10 s of simulated
   * time (one arrival every 2 ms), behind an Admission whose clock the simulation steps. Returns the
   * admitted requests' latencies and the count refused.
   */
  type Enter = (clock: { nowMs: number }) => ((o?: { failed: boolean }) => void) | null;
  function overload(enter: Enter): { latenciesMs: number[]; refused: number } {
    const clock = { nowMs: 0 };
    const queue: { arrivedAtMs: number; release: (o?: { failed: boolean }) => void }[] = [];
    let busyUntilMs = -1;
    let current: (typeof queue)[number] | undefined;
    const latenciesMs: number[] = [];
    let refused = 0;
    for (; clock.nowMs < 10_000; clock.nowMs += 1) {
      const nowMs = clock.nowMs;
      if (current !== undefined && nowMs >= busyUntilMs) {
        latenciesMs.push(nowMs - current.arrivedAtMs);
        current.release();
        current = undefined;
      }
      if (nowMs % 2 === 0) {
        const release = enter(clock);
        if (release === null) refused += 1;
        else queue.push({ arrivedAtMs: nowMs, release });
      }
      if (current === undefined && queue.length > 0) {
        current = queue.shift();
        busyUntilMs = nowMs + 10;
      }
    }
    return { latenciesMs, refused };
  }

  const p99 = (values: number[]) =>
    [...values].sort((a, b) => a - b)[Math.ceil(values.length * 0.99) - 1]!;

  it('keeps the p99 of the admitted requests near the latency target at 5× capacity, where a fixed bound of 64 queues for 640 ms', () => {
    // Proves issue 18's overload figure by construction: what is admitted is answered within the target's order, the rest refused.
    let admission: Admission | undefined;
    const adaptive = overload((clock) => {
      admission ??= new Admission({
        inFlightMax: 64,
        latencyTargetMs: 100,
        nowMs: () => clock.nowMs,
      });
      return admission.tryEnter('charges');
    });
    expect(p99(adaptive.latenciesMs)).toBeLessThanOrEqual(250);
    // The service stays busy: ~100/s of 500/s answered, the rest refused at once.
    expect(adaptive.latenciesMs.length).toBeGreaterThan(950);
    expect(adaptive.refused).toBeGreaterThan(3_900);

    // The same load behind the fixed bound of 64 the gateway had before: the queue fills it.
    let inFlight = 0;
    const fixed = overload(() => {
      if (inFlight >= 64) return null;
      inFlight += 1;
      return () => {
        inFlight -= 1;
      };
    });
    expect(p99(fixed.latenciesMs)).toBeGreaterThanOrEqual(630);
  });
});
