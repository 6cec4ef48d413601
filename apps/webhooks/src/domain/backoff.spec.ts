import { afterAttempt, RETRY_WINDOW_MS, retryDelayMs } from './backoff';

const DEFAULTS = { baseMs: 10_000, capMs: 3_600_000 };

describe('retryDelayMs', () => {
  it('doubles from the base and stops at the cap, without jitter at the midpoint', () => {
    const mid = () => 0.5;
    expect([1, 2, 3, 4, 5, 9, 10, 30, 1000].map((n) => retryDelayMs(n, DEFAULTS, mid))).toEqual([
      10_000, 20_000, 40_000, 80_000, 160_000, 2_560_000, 3_600_000, 3_600_000, 3_600_000,
    ]);
  });

  it('spreads each delay over ±20 %', () => {
    expect(retryDelayMs(1, DEFAULTS, () => 0)).toBe(8_000);
    expect(retryDelayMs(1, DEFAULTS, () => 0.999999)).toBe(12_000);
    expect(retryDelayMs(30, DEFAULTS, () => 0)).toBe(2_880_000);
  });

  it('with the defaults, keeps retrying past 24 hours in a bounded number of attempts', () => {
    for (const random of [() => 0, () => 0.999999]) {
      let elapsedMs = 0;
      let attempts = 1;
      while (elapsedMs < RETRY_WINDOW_MS) elapsedMs += retryDelayMs(attempts++, DEFAULTS, random);
      expect(attempts).toBeGreaterThan(20);
      expect(attempts).toBeLessThan(45);
    }
  });

  it('refuses an attempt count below 1', () => {
    expect(() => retryDelayMs(0, DEFAULTS)).toThrow();
  });
});

describe('afterAttempt', () => {
  const now = new Date('2026-03-01T12:00:00Z');
  const later = new Date(now.getTime() + 1000);

  it('ends a delivery on success, and fails it only once an attempt fails at or after the window', () => {
    expect(
      afterAttempt({ succeeded: true, now, giveUpAt: now, failedInARow: 3 }, DEFAULTS),
    ).toEqual({ status: 'succeeded', nextAttemptAt: null });
    expect(
      afterAttempt({ succeeded: false, now, giveUpAt: now, failedInARow: 3 }, DEFAULTS),
    ).toEqual({ status: 'failed', nextAttemptAt: null });
    expect(
      afterAttempt(
        { succeeded: false, now, giveUpAt: later, failedInARow: 2 },
        DEFAULTS,
        () => 0.5,
      ),
    ).toEqual({ status: 'pending', nextAttemptAt: new Date(now.getTime() + 20_000) });
  });
});
