import { isRetryableConflict, TX_RETRY } from './db';
import { backoffMs, retry, type RetryPolicy } from './retry';

/** Records the waits instead of waiting; random() returns the values given, in turn. */
function testClock(randoms: number[] = [0.5]) {
  const waits: number[] = [];
  let i = 0;
  return {
    waits,
    sleep: async (ms: number) => void waits.push(ms),
    random: () => randoms[Math.min(i++, randoms.length - 1)]!,
  };
}

const POLICY: RetryPolicy = { attemptsMax: 6, baseMs: 100, capMs: 1_000, totalMs: 10_000 };

class Flaky extends Error {}

/** Fails `failures` times with a Flaky error, then answers `ok`. */
function failing(failures: number) {
  const attempts: number[] = [];
  return {
    attempts,
    fn: async (attempt: number) => {
      attempts.push(attempt);
      if (attempts.length <= failures) throw new Flaky(`failure ${attempts.length}`);
      return 'ok';
    },
  };
}

describe('backoffMs', () => {
  it('is full jitter under a ceiling that doubles from baseMs up to capMs', () => {
    expect([0, 1, 2, 3, 4, 5].map((r) => backoffMs(POLICY, r, () => 0.999_999))).toEqual([
      99, 199, 399, 799, 999, 999,
    ]);
    expect([0, 1, 2, 3, 4].map((r) => backoffMs(POLICY, r, () => 0))).toEqual([0, 0, 0, 0, 0]);
    expect(backoffMs(POLICY, 2, () => 0.5)).toBe(200);
    // No overflow however long a consumer keeps restarting.
    expect(backoffMs(POLICY, 10_000, () => 0.5)).toBe(500);
  });
});

describe('retry', () => {
  it('retries a retryable error after jittered, growing waits and returns the first success', async () => {
    const clock = testClock([0.5]);
    const flaky = failing(3);
    const retried: Array<[number, number]> = [];
    const answer = await retry(POLICY, flaky.fn, {
      retryable: (e) => e instanceof Flaky,
      onRetry: (_e, attempt, delayMs) => retried.push([attempt, delayMs]),
      ...clock,
    });
    expect(answer).toBe('ok');
    expect(flaky.attempts).toEqual([1, 2, 3, 4]);
    expect(clock.waits).toEqual([50, 100, 200]);
    expect(retried).toEqual([
      [1, 50],
      [2, 100],
      [3, 200],
    ]);
  });

  it('throws at once an error that is not retryable', async () => {
    const clock = testClock();
    const attempts: number[] = [];
    const refused = async (attempt: number): Promise<string> => {
      attempts.push(attempt);
      throw new Error('bad input');
    };
    await expect(
      retry(POLICY, refused, { retryable: (e) => e instanceof Flaky, ...clock }),
    ).rejects.toThrow('bad input');
    expect(attempts).toEqual([1]);
    expect(clock.waits).toEqual([]);
  });

  it('stops after attemptsMax attempts with the last error', async () => {
    const clock = testClock([0.5]);
    const flaky = failing(100);
    await expect(
      retry({ ...POLICY, attemptsMax: 3 }, flaky.fn, { retryable: () => true, ...clock }),
    ).rejects.toThrow('failure 3');
    expect(flaky.attempts).toEqual([1, 2, 3]);
    expect(clock.waits).toHaveLength(2);
  });

  it('makes no retry whose wait would take the waits past totalMs', async () => {
    const clock = testClock([0.999_999]);
    const flaky = failing(100);
    // Waits of 99, 199, 399 add up to 697; the next (799) would pass 1,000.
    await expect(
      retry({ ...POLICY, attemptsMax: Infinity, totalMs: 1_000 }, flaky.fn, {
        retryable: () => true,
        ...clock,
      }),
    ).rejects.toThrow('failure 4');
    expect(clock.waits).toEqual([99, 199, 399]);
  });

  it('ends with the last error once stopped', async () => {
    const clock = testClock();
    const flaky = failing(100);
    let stopped = false;
    await expect(
      retry(POLICY, flaky.fn, {
        retryable: () => true,
        stopped: () => stopped,
        ...clock,
        sleep: async () => void (stopped = true),
      }),
    ).rejects.toThrow('failure 1');
    expect(flaky.attempts).toEqual([1]);
  });
});

describe('the transaction policy', () => {
  it('retries serialization failures and deadlocks only, a bounded number of times within a bounded wait', () => {
    expect(
      isRetryableConflict(Object.assign(new Error('could not serialize'), { code: '40001' })),
    ).toBe(true);
    expect(
      isRetryableConflict(Object.assign(new Error('deadlock detected'), { code: '40P01' })),
    ).toBe(true);
    expect(
      isRetryableConflict(Object.assign(new Error('unique violation'), { code: '23505' })),
    ).toBe(false);
    expect(isRetryableConflict(new Error('no code'))).toBe(false);
    expect(TX_RETRY.attemptsMax).toBe(3);
    expect(TX_RETRY.baseMs).toBeGreaterThan(0);
    expect(Number.isFinite(TX_RETRY.totalMs)).toBe(true);
  });
});
