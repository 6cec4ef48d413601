import fc from 'fast-check';
import { mdrFeeCents } from '@pgw/domain';
import { allocateProportionally, liveGross, planTake, type TakeTarget } from './take';

const receivable = (
  installment: number,
  grossCents: number,
  over: Partial<TakeTarget> = {},
): TakeTarget => {
  const feeCents = mdrFeeCents(grossCents, 299);
  return {
    id: `recv_${installment}`,
    installment,
    status: 'pending',
    anticipationId: null,
    settlementId: null,
    grossCents,
    feeCents,
    netCents: grossCents - feeCents,
    debitedGrossCents: 0,
    mdrBps: 299,
    ...over,
  };
};

describe('taking a refund or a chargeback back from receivables', () => {
  it('cancels the latest installment first and shrinks the next one, recomputing its fee', () => {
    const steps = planTake('refund', 5_000, [
      receivable(1, 3334),
      receivable(2, 3333),
      receivable(3, 3333),
    ]);
    expect(steps).toEqual([
      {
        kind: 'reduce',
        id: 'recv_3',
        takeCents: 3333,
        grossCents: 3333,
        feeCents: 100,
        netCents: 3233,
        canceled: true,
        netDeltaCents: -3233,
        feeDeltaCents: -100,
      },
      {
        kind: 'reduce',
        id: 'recv_2',
        takeCents: 1667,
        grossCents: 1666,
        feeCents: 50,
        netCents: 1616,
        canceled: false,
        netDeltaCents: -1617,
        feeDeltaCents: -50,
      },
    ]);
  });

  it('debits what was paid out, in a payout or anticipated, and everything a chargeback takes', () => {
    const rs = [
      receivable(1, 3334, { status: 'paid' }),
      receivable(2, 3333, { status: 'available', settlementId: 'set_1' }),
      receivable(3, 3333, { status: 'anticipated' }),
    ];
    expect(planTake('refund', 10_000, rs).map((s) => s.kind)).toEqual(['debit', 'debit', 'debit']);
    // The fee given back is MDR(3334) - MDR(3324) = 100 - 99: the live part keeps exactly its own MDR.
    expect(planTake('chargeback', 10, [receivable(1, 3334)])).toEqual([
      { kind: 'debit', id: 'recv_1', takeCents: 10, feeCents: 1, netCents: 9 },
    ]);
  });

  it('debits the anticipated original, never the receivable its anticipation created, whichever comes first', () => {
    // Contract §4: what is anticipated is debited. The anticipation's own available receivable (the item's
    // net, already the seller's) is no part of the charge: not shrunk, not debited, not counted as capacity.
    const original = receivable(1, 3334, {
      id: 'recv_b',
      status: 'anticipated',
      anticipationId: 'ant_1',
    });
    const created = receivable(1, 3170, {
      id: 'recv_a',
      status: 'available',
      anticipationId: 'ant_1',
      feeCents: 0,
      netCents: 3170,
      mdrBps: 0,
    });
    for (const mode of ['refund', 'chargeback'] as const) {
      expect(planTake(mode, 3334, [created, original])).toEqual([
        { kind: 'debit', id: 'recv_b', takeCents: 3334, feeCents: 100, netCents: 3234 },
      ]);
      expect(() => planTake(mode, 3335, [created, original])).toThrow('beyond the receivables');
    }
    expect(liveGross(created)).toBe(0);
    expect(liveGross(original)).toBe(3334);
  });

  it('refuses to take more than the receivables hold: the charges service never refunds more than the charge', () => {
    expect(() => planTake('refund', 3335, [receivable(1, 3334)])).toThrow('beyond the receivables');
  });

  it('splits proportionally with every cent placed and no part above its capacity (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 1_000_000 }), { minLength: 1, maxLength: 11 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (caps, fraction) => {
          const total = Math.floor(caps.reduce((s, c) => s + c, 0) * fraction);
          const parts = allocateProportionally(total, caps);
          expect(parts.reduce((s, p) => s + p, 0)).toBe(total);
          parts.forEach((p, i) => {
            expect(p).toBeGreaterThanOrEqual(0);
            expect(p).toBeLessThanOrEqual(caps[i]!);
          });
        },
      ),
      { numRuns: 500 },
    );
  });

  it('takes exactly the amount in any order of partial refunds and chargebacks, and a full take leaves no fee (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5_000_000 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.array(
          fc.tuple(
            fc.constantFrom<'refund' | 'chargeback'>('refund', 'chargeback'),
            fc.double({ min: 0, max: 1, noNaN: true }),
          ),
          { minLength: 1, maxLength: 6 },
        ),
        (amount, n, bps, takes) => {
          const base = Math.floor(amount / n);
          let rs: TakeTarget[] = Array.from({ length: n }, (_, i) => {
            const g = i === 0 ? amount - base * (n - 1) : base;
            const feeCents = mdrFeeCents(g, bps);
            return {
              id: `recv_${i + 1}`,
              installment: i + 1,
              status: i === 0 ? 'paid' : 'pending',
              anticipationId: null,
              settlementId: null,
              grossCents: g,
              feeCents,
              netCents: g - feeCents,
              debitedGrossCents: 0,
              mdrBps: bps,
            };
          }).filter((r) => r.grossCents > 0);
          let left = amount;
          let feeLeft = rs.reduce((s, r) => s + r.feeCents, 0);
          const all = takes.map(
            ([mode, f], i) => [mode, i === takes.length - 1 ? left : Math.floor(left * f)] as const,
          );
          for (const [mode, wanted] of all) {
            const want = Math.min(wanted, left);
            const steps = planTake(mode, want, rs);
            expect(steps.reduce((s, st) => s + st.takeCents, 0)).toBe(want);
            for (const st of steps) {
              if (st.kind === 'reduce') {
                feeLeft += st.feeDeltaCents;
                expect(st.netDeltaCents + st.feeDeltaCents).toBe(-st.takeCents);
              } else {
                feeLeft -= st.feeCents;
                expect(st.feeCents).toBeGreaterThanOrEqual(0);
                expect(st.netCents).toBeGreaterThanOrEqual(0);
              }
              rs = rs.map((r) =>
                r.id !== st.id
                  ? r
                  : st.kind === 'reduce'
                    ? st.canceled
                      ? { ...r, status: 'canceled' }
                      : {
                          ...r,
                          grossCents: st.grossCents,
                          feeCents: st.feeCents,
                          netCents: st.netCents,
                        }
                    : { ...r, debitedGrossCents: r.debitedGrossCents + st.takeCents },
              );
            }
            left -= want;
          }
          expect(left).toBe(0);
          expect(feeLeft).toBe(0);
        },
      ),
      { numRuns: 300 },
    );
  });
});
