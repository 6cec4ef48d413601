import { assert } from '@pgw/domain';
import { deliveryTransition, type DeliveryTrigger } from './delivery-states';
// When to try a failed delivery again: exponential back-off (base, 2 × base, 4 × base, … capped), with
// jitter so that the deliveries that failed together during a receiver's outage do not all come back in
// the same second. Pure: the random source is an argument.

/** How long a delivery is tried before it fails for good (contract §7: 24 hours). */
export const RETRY_WINDOW_MS = 24 * 3_600_000;

export interface BackoffPolicy {
  baseMs: number;
  capMs: number;
}

/** The delay after the `failedAttempts`-th failed attempt in a row (1, 2, …): ±20 % around min(cap, base × 2^(n-1)). */
export function retryDelayMs(
  failedAttempts: number,
  policy: BackoffPolicy,
  random: () => number = Math.random,
): number {
  const positive = Number.isSafeInteger(failedAttempts) && failedAttempts >= 1;
  assert(positive, 'backoff.failed-attempts-positive-integer', { failed_attempts: failedAttempts });
  // 2^40 × base is beyond any cap; clamping the exponent keeps the arithmetic finite.
  const exponential = Math.min(policy.capMs, policy.baseMs * 2 ** Math.min(failedAttempts - 1, 40));
  const jitter = 0.8 + 0.4 * random();
  return Math.max(1, Math.round(exponential * jitter));
}

export type NextState =
  | { status: 'succeeded' | 'failed'; nextAttemptAt: null }
  | { status: 'pending'; nextAttemptAt: Date };

/**
 * What a delivery becomes after an attempt: succeeded on a 2xx; else retried after the back-off, until an
 * attempt fails at or after `giveUpAt` (created + 24 h): retries go on for at least the whole window.
 */
export function afterAttempt(
  input: { succeeded: boolean; now: Date; giveUpAt: Date; failedInARow: number },
  policy: BackoffPolicy,
  random: () => number = Math.random,
): NextState {
  // Only a pending delivery is attempted; the table of delivery-states.ts says where each outcome takes it.
  const trigger: DeliveryTrigger = input.succeeded
    ? 'attempt_succeeded'
    : input.now.getTime() >= input.giveUpAt.getTime()
      ? 'attempt_failed_after_window'
      : 'attempt_failed';
  const next = deliveryTransition('pending', trigger);
  assert(next !== null, 'delivery.attempt-has-transition', { trigger });
  if (next !== 'pending') return { status: next, nextAttemptAt: null };
  const delayMs = retryDelayMs(input.failedInARow, policy, random);
  return { status: next, nextAttemptAt: new Date(input.now.getTime() + delayMs) };
}
