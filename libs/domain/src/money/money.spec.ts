import fc from 'fast-check';
import { allocateEvenly, anticipationFee, mdrFeeCents, roundHalfUpDiv } from './money';

const cents = fc.integer({ min: 0, max: 1_000_000_000_00 });
const bps = fc.integer({ min: 0, max: 10_000 });

describe('roundHalfUpDiv', () => {
  it('rounds exact halves up and everything else to the nearest integer', () => {
    expect(roundHalfUpDiv(5, 2)).toBe(3);
    expect(roundHalfUpDiv(7, 2)).toBe(4);
    expect(roundHalfUpDiv(149, 100)).toBe(1);
    expect(roundHalfUpDiv(150, 100)).toBe(2);
    expect(roundHalfUpDiv(0, 7)).toBe(0);
    expect(roundHalfUpDiv(10n ** 30n + 1n, 10n ** 15n)).toBe(10 ** 15);
  });

  it('rejects negative, fractional and zero-denominator input', () => {
    expect(() => roundHalfUpDiv(-1, 2)).toThrow(RangeError);
    expect(() => roundHalfUpDiv(1.5, 2)).toThrow(RangeError);
    expect(() => roundHalfUpDiv(1, 0)).toThrow(RangeError);
    expect(() => roundHalfUpDiv(10n ** 40n, 1n)).toThrow(RangeError);
  });

  it('is within half a unit of the true quotient, never rounding a half down', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 15n }),
        fc.bigInt({ min: 1n, max: 10n ** 9n }),
        (n, d) => {
          const q = BigInt(roundHalfUpDiv(n, d));
          // diff2 / d = 2 × (q − n/d): it must lie in (−1, 1], the open end excluding a half rounded down.
          const diff2 = 2n * (q * d - n);
          expect(diff2 > -d && diff2 <= d).toBe(true);
        },
      ),
    );
  });

  it('sends every k + ½ up to k + 1', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 12n }),
        fc.bigInt({ min: 1n, max: 10n ** 6n }),
        (k, half) => {
          expect(roundHalfUpDiv(k * 2n * half + half, 2n * half)).toBe(Number(k + 1n));
        },
      ),
    );
  });
});

describe('allocateEvenly', () => {
  it('puts all remainder cents on the first part', () => {
    expect(allocateEvenly(10000, 3)).toEqual([3334, 3333, 3333]);
    expect(allocateEvenly(10001, 3)).toEqual([3335, 3333, 3333]);
    expect(allocateEvenly(2, 5)).toEqual([2, 0, 0, 0, 0]);
    expect(allocateEvenly(500, 1)).toEqual([500]);
  });

  it('rejects a negative total and a part count below one', () => {
    expect(() => allocateEvenly(-1, 2)).toThrow(RangeError);
    expect(() => allocateEvenly(100, 0)).toThrow(RangeError);
    expect(() => allocateEvenly(100.5, 2)).toThrow(RangeError);
  });

  it('always returns `parts` non-negative integers adding up to the total, the rest equal and the first ahead by less than `parts`', () => {
    fc.assert(
      fc.property(cents, fc.integer({ min: 1, max: 24 }), (total, parts) => {
        const result = allocateEvenly(total, parts);
        const [first, ...rest] = result;
        expect(result).toHaveLength(parts);
        expect(result.reduce((a, b) => a + b, 0)).toBe(total);
        for (const part of result) expect(Number.isSafeInteger(part) && part >= 0).toBe(true);
        const other = rest[0] ?? first;
        for (const part of rest) expect(part).toBe(other);
        expect(first! - other!).toBeGreaterThanOrEqual(0);
        expect(first! - other!).toBeLessThan(parts);
      }),
    );
  });
});

describe('mdrFeeCents', () => {
  it('rounds the fee half up: 2.99 % of R$ 10.00 and of R$ 0.50', () => {
    expect(mdrFeeCents(1000, 299)).toBe(30); // 29.9 → 30
    expect(mdrFeeCents(50, 100)).toBe(1); // 0.5 → 1
    expect(mdrFeeCents(49, 100)).toBe(0); // 0.49 → 0
    expect(mdrFeeCents(12345, 0)).toBe(0);
    expect(mdrFeeCents(12345, 10_000)).toBe(12345);
  });

  it('rejects bps outside 0..10000', () => {
    expect(() => mdrFeeCents(100, 10_001)).toThrow(RangeError);
    expect(() => mdrFeeCents(100, -1)).toThrow(RangeError);
  });

  it('never exceeds the gross, never goes negative, and grows with the rate', () => {
    fc.assert(
      fc.property(cents, bps, bps, (gross, a, b) => {
        const fee = mdrFeeCents(gross, a);
        expect(fee).toBeGreaterThanOrEqual(0);
        expect(fee).toBeLessThanOrEqual(gross);
        if (a <= b) expect(fee).toBeLessThanOrEqual(mdrFeeCents(gross, b));
      }),
    );
  });
});

describe('anticipationFee', () => {
  it('pro-rates the monthly rate per day: 2.5 %/month for 45 days on R$ 1,000.00 is R$ 37.50', () => {
    expect(anticipationFee({ netCents: 100_000, feeBpsPerMonth: 250, daysAnticipated: 45 })).toBe(
      3750,
    );
    // 9700 × 199 × 17 / 300000 = 109.386… → 109
    expect(anticipationFee({ netCents: 9700, feeBpsPerMonth: 199, daysAnticipated: 17 })).toBe(109);
    // 1 × 150 × 100 / 300000 = 0.05 → 0; 3 × 5000 × 10 / 300000 = 0.5 → 1 (half up)
    expect(anticipationFee({ netCents: 1, feeBpsPerMonth: 150, daysAnticipated: 100 })).toBe(0);
    expect(anticipationFee({ netCents: 3, feeBpsPerMonth: 5000, daysAnticipated: 10 })).toBe(1);
    expect(anticipationFee({ netCents: 100_000, feeBpsPerMonth: 250, daysAnticipated: 0 })).toBe(0);
  });

  it('stays exact where a float product would lose a cent', () => {
    // In floats, MAX_SAFE × 10000 × 30 / 300000 comes out as MAX_SAFE − 1; BigInt keeps it exact.
    const netCents = Number.MAX_SAFE_INTEGER;
    expect(anticipationFee({ netCents, feeBpsPerMonth: 10_000, daysAnticipated: 30 })).toBe(
      netCents,
    );
  });

  it('matches the contract formula and never exceeds the net while bps × days ≤ 300000', () => {
    fc.assert(
      fc.property(
        cents,
        fc.integer({ min: 0, max: 1000 }),
        fc.integer({ min: 0, max: 300 }),
        (net, rate, days) => {
          const fee = anticipationFee({
            netCents: net,
            feeBpsPerMonth: rate,
            daysAnticipated: days,
          });
          const exact = (net * rate * days) / 300_000; // a float is a good enough oracle away from .5 ties
          expect(Math.abs(fee - exact)).toBeLessThanOrEqual(0.5 + 1e-6 * Math.max(1, exact));
          if (rate * days <= 300_000) expect(fee).toBeLessThanOrEqual(net);
          expect(fee).toBeGreaterThanOrEqual(0);
        },
      ),
    );
  });
});
