import { assert } from '@pgw/domain';

// An adaptive concurrency limit (issue 18): how many requests one gateway replica lets a service hold at
// once, moved by the latency the gateway measures — additive increase, multiplicative decrease, as TCP and
// Netflix's concurrency-limits do. A fixed bound is either too high (the admitted requests queue inside the
// service: at 5× capacity a bound of 64 kept p99 at seconds) or too low (a fast service is refused work it
// could do). This one grows while answers come back within the target and the bound is in use, and shrinks
// as soon as they come back late, so the queue in front of a service stays a target's worth long whatever
// is offered; the rest is answered 503 with Retry-After at once.

export interface AdaptiveLimitSettings {
  /** The ceiling (UPSTREAM_IN_FLIGHT_MAX). */
  limitMax: number;
  /** The floor: a service always has this many requests in flight at most, however late it answers. */
  limitMin: number;
  /** An answer later than this (UPSTREAM_LATENCY_TARGET_MS) is a sign of a queue; see targetMs(). */
  latencyTargetMs: number;
}

/**
 * How long the fastest answer is remembered: the baseline of a service whose work is slow by nature (a
 * slow acquirer, a long report) so that its normal latency is not read as a queue. Two windows are kept,
 * so the baseline is the fastest answer of the last 10–20 s.
 */
const BASELINE_WINDOW_MS = 10_000;
/**
 * The limit a service starts with (or the ceiling, if lower), as Netflix's limits do: high enough for a
 * service that answers in 20 ms to take 1,000 requests/s at once, low enough that a first burst beyond
 * what it can do queues 20 requests, not the ceiling's 64. It grows from there while it is in use.
 */
const LIMIT_INITIAL = 20;
/** A sample may exceed the fastest recent answer this many times before it counts as queued. */
const BASELINE_TOLERANCE = 2;
/** The most one late answer takes off the limit (×0.5), and the least (×0.9, Netflix's backoff ratio). */
const DECREASE_FACTOR_MIN = 0.5;
const DECREASE_FACTOR_MAX = 0.9;

export class AdaptiveLimit {
  private readonly initialLimit: number;
  private limitValue: number;
  private lastDecreaseAtMs = Number.NEGATIVE_INFINITY;
  private windowStartMs = Number.NEGATIVE_INFINITY;
  private windowFastestMs = Number.POSITIVE_INFINITY;
  private previousWindowFastestMs = Number.POSITIVE_INFINITY;

  constructor(private readonly settings: AdaptiveLimitSettings) {
    const { limitMin, limitMax, latencyTargetMs } = settings;
    assert(
      Number.isSafeInteger(limitMin) && limitMin >= 1 && limitMin <= limitMax,
      'adaptive-limit.bounds-ordered',
      { limitMin, limitMax },
    );
    assert(latencyTargetMs > 0, 'adaptive-limit.target-positive', { latencyTargetMs });
    this.initialLimit = Math.min(limitMax, Math.max(limitMin, LIMIT_INITIAL));
    this.limitValue = this.initialLimit;
  }

  /** Requests the service may have in flight now. */
  get limit(): number {
    return Math.floor(this.limitValue);
  }

  /**
   * The latency above which an answer counts as queued: the configured target, or twice the fastest
   * recent answer when the service is slower than the target even when idle.
   */
  targetMs(): number {
    const fastestMs = Math.min(this.windowFastestMs, this.previousWindowFastestMs);
    return Math.max(this.settings.latencyTargetMs, fastestMs * BASELINE_TOLERANCE);
  }

  /**
   * One answered request: `latencyMs` from admission to the answer's headers, `inFlight` the requests
   * still in flight when it was admitted (itself included), `failed` when no answer came (reset,
   * unreachable, past the deadline), which counts as late.
   */
  onSample(sample: { latencyMs: number; inFlight: number; failed: boolean; nowMs: number }): void {
    const { latencyMs, inFlight, failed, nowMs } = sample;
    const admittedAtMs = nowMs - latencyMs;
    const targetMs = this.targetMs();
    if (!failed) this.rememberFastest(latencyMs, nowMs);
    if (failed || latencyMs > targetMs) {
      // A late answer while the limit was far from used is not our queue (a GC pause, a busy host, a slow
      // dependency at low traffic): shrinking the limit would shed traffic the service has room for, and
      // a pause then refuses the requests that piled up behind it. Only a failure counts regardless.
      if (!failed && !this.inUse(inFlight)) return;
      // One decrease per round trip, as TCP takes one per window: a request admitted before the last
      // decrease says how the old limit did, not the new one. Every request admitted while a queue built up
      // (or while the host stalled) comes back late, over as long as the service takes to work the backlog
      // off; judged one by one they would take the limit to its floor (at 10 requests/s, CI's soak saw
      // 503s after a 1 s stall). And at most one a target's worth of time.
      if (admittedAtMs < this.lastDecreaseAtMs) return;
      if (nowMs - this.lastDecreaseAtMs < targetMs) return;
      this.lastDecreaseAtMs = nowMs;
      const factor = failed
        ? DECREASE_FACTOR_MIN
        : Math.min(DECREASE_FACTOR_MAX, Math.max(DECREASE_FACTOR_MIN, targetMs / latencyMs));
      this.limitValue = Math.max(this.settings.limitMin, this.limitValue * factor);
      return;
    }
    // Grows while the limit is in use: +1/limit a sample is +1 a round of `limit` answers. A quiet service
    // keeps the limit it earned, not the ceiling, but one below the initial limit that answers in time
    // with room to spare gets it back at once (+1 an answer): after a slow start or a burst it would
    // otherwise stay low, and refuse the few requests that pile up behind a pause.
    if (this.inUse(inFlight))
      this.limitValue = Math.min(this.settings.limitMax, this.limitValue + 1 / this.limitValue);
    else if (this.limitValue < this.initialLimit)
      this.limitValue = Math.min(this.initialLimit, this.limitValue + 1);
  }

  /** The limit is in use when at least half of it was in flight as the request was admitted. */
  private inUse(inFlight: number): boolean {
    return inFlight * 2 >= this.limit;
  }

  private rememberFastest(latencyMs: number, nowMs: number): void {
    if (nowMs - this.windowStartMs >= BASELINE_WINDOW_MS) {
      this.previousWindowFastestMs =
        nowMs - this.windowStartMs >= 2 * BASELINE_WINDOW_MS
          ? Number.POSITIVE_INFINITY
          : this.windowFastestMs;
      this.windowStartMs = nowMs;
      this.windowFastestMs = Number.POSITIVE_INFINITY;
    }
    this.windowFastestMs = Math.min(this.windowFastestMs, latencyMs);
  }
}
