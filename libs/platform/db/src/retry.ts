// The one retry policy of the platform (issue 19 item 2): exponential back-off with full jitter, a bounded
// number of attempts and a bounded total wait. Every retry loop (a transaction on a serialization failure or a
// deadlock, a bus delivery, a topic's creation, a consumer's restart, the relay after a failed round) uses it,
// each with its own numbers and its own rule for which errors are worth another attempt.

export interface RetryPolicy {
  /** Attempts in all, the first included (Infinity: until it succeeds or is stopped, as a consumer's restart). */
  attemptsMax: number;
  /** Ceiling of the first wait; each later ceiling doubles. */
  baseMs: number;
  /** Ceiling of any one wait. */
  capMs: number;
  /** Bound on the waits added up: a retry whose wait would pass it is not made, and the last error stands. */
  totalMs: number;
}

export interface RetryOptions {
  /** Whether this error is worth another attempt; one that is not is thrown at once. */
  retryable(error: unknown, attempt: number): boolean;
  /** Told before each wait (to log or count it). */
  onRetry?(error: unknown, attempt: number, delayMs: number): void;
  /** Checked before each attempt after the first: true ends the retries with the last error. */
  stopped?(): boolean;
  /** The wait (tests pass one that records and returns at once); a timer by default. */
  sleep?(ms: number): Promise<void>;
  /** A number in [0, 1); Math.random by default. */
  random?(): number;
}

const timerSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The wait before retry number `retry` (0 for the first retry): full jitter, anywhere between 0 and
 * min(capMs, baseMs × 2^retry), so clients that failed together do not come back together.
 */
export function backoffMs(
  policy: Pick<RetryPolicy, 'baseMs' | 'capMs'>,
  retry: number,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** Math.min(retry, 52));
  return Math.floor(random() * ceiling);
}

/** Runs `fn` (given its attempt number, from 1) until it succeeds, its error is not retryable, or the policy's bounds are spent. */
export async function retry<T>(
  policy: RetryPolicy,
  fn: (attempt: number) => Promise<T>,
  options: RetryOptions,
): Promise<T> {
  const sleep = options.sleep ?? timerSleep;
  const random = options.random ?? Math.random;
  let waitedMs = 0;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (error) {
      if (attempt >= policy.attemptsMax || !options.retryable(error, attempt)) throw error;
      const delayMs = backoffMs(policy, attempt - 1, random);
      if (waitedMs + delayMs > policy.totalMs) throw error;
      options.onRetry?.(error, attempt, delayMs);
      if (delayMs > 0) await sleep(delayMs);
      waitedMs += delayMs;
      if (options.stopped?.()) throw error;
    }
  }
}
