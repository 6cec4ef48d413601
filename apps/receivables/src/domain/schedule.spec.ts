import fc from 'fast-check';
import { mdrFeeCents } from '@pgw/domain';
import { buildSchedule, dueDate, recipientShares } from './schedule';
import type { PaymentMethod } from './pricing';

const pricing = { pricingPlanId: null, mdrBps: 299, settlementDelayDays: 30 };
const base = {
  chargeId: 'ch_1',
  sellerId: 'seller_own',
  paymentMethod: 'credit_card' as PaymentMethod,
  amountCents: 10_000,
  installments: 3,
  paidDate: '2026-03-02',
  split: [],
};

describe('receivable schedule', () => {
  it('splits 100.00 in 3 as 33.34 + 33.33 + 33.33, due D+30, D+60, D+90, each with its MDR', () => {
    const drafts = buildSchedule(base, pricing);
    expect(
      drafts.map((d) => [d.installment, d.grossCents, d.feeCents, d.netCents, d.dueDate]),
    ).toEqual([
      [1, 3334, 100, 3234, '2026-04-01'],
      [2, 3333, 100, 3233, '2026-05-01'],
      [3, 3333, 100, 3233, '2026-05-31'],
    ]);
    expect(drafts.every((d) => !d.availableAtOnce && d.installments === 3)).toBe(true);
  });

  it('dates debit D+1, Pix D+0 (available at once) and boleto D+1, in one installment whatever the charge says', () => {
    for (const [method, due, atOnce] of [
      ['debit_card', '2026-03-03', false],
      ['pix', '2026-03-02', true],
      ['boleto', '2026-03-03', false],
    ] as const) {
      const drafts = buildSchedule({ ...base, paymentMethod: method, installments: 2 }, pricing);
      expect(drafts).toHaveLength(1);
      expect(drafts[0]).toMatchObject({
        installment: 1,
        installments: 1,
        grossCents: 10_000,
        dueDate: due,
        availableAtOnce: atOnce,
      });
    }
  });

  it("uses the seller's D+N for credit, and a D+0 credit installment 1 is available at once", () => {
    expect(dueDate('credit_card', '2026-12-31', 14, 2)).toBe('2027-02-13');
    const drafts = buildSchedule(
      { ...base, installments: 2 },
      { ...pricing, settlementDelayDays: 0 },
    );
    expect(drafts.map((d) => [d.dueDate, d.availableAtOnce])).toEqual([
      ['2026-03-02', true],
      ['2026-04-01', false],
    ]);
  });

  it('carves split recipients out of the amount and gives the remainder to the charge seller, per installment', () => {
    const drafts = buildSchedule(
      {
        ...base,
        split: [
          { recipientSellerId: 'seller_a', amountCents: 3_000 },
          { recipientSellerId: 'seller_b', amountCents: 2_000 },
        ],
      },
      pricing,
    );
    const bySeller = (s: string) => drafts.filter((d) => d.sellerId === s).map((d) => d.grossCents);
    expect(bySeller('seller_a')).toEqual([1000, 1000, 1000]);
    expect(bySeller('seller_b')).toEqual([668, 666, 666]);
    expect(bySeller('seller_own')).toEqual([1668, 1666, 1666]);
  });

  it('refuses a split above the amount: the charges service validated it, so this is a broken invariant', () => {
    expect(() =>
      recipientShares({
        sellerId: 's',
        amountCents: 100,
        split: [{ recipientSellerId: 'a', amountCents: 101 }],
      }),
    ).toThrow('split.within-charge-amount');
  });

  it('allocates every cent of any charge, split and installment plan, and each receivable nets gross - MDR (property)', () => {
    const method = fc.constantFrom<PaymentMethod>('credit_card', 'debit_card', 'pix', 'boleto');
    const charge = fc
      .record({
        amountCents: fc.integer({ min: 1, max: 10_000_000_000 }),
        installments: fc.integer({ min: 1, max: 24 }),
        method,
        mdrBps: fc.integer({ min: 0, max: 10_000 }),
        delay: fc.integer({ min: 0, max: 366 }),
        shares: fc.array(fc.integer({ min: 1, max: 1_000_000 }), { maxLength: 10 }),
      })
      .filter((c) => c.shares.reduce((s, x) => s + x, 0) <= c.amountCents);
    fc.assert(
      fc.property(charge, (c) => {
        const split = c.shares.map((amountCents, i) => ({
          recipientSellerId: `seller_r${i}`,
          amountCents,
        }));
        const drafts = buildSchedule(
          {
            ...base,
            paymentMethod: c.method,
            amountCents: c.amountCents,
            installments: c.installments,
            split,
          },
          { pricingPlanId: null, mdrBps: c.mdrBps, settlementDelayDays: c.delay },
        );
        expect(drafts.reduce((s, d) => s + d.grossCents, 0)).toBe(c.amountCents);
        for (const d of drafts) {
          expect(d.grossCents).toBeGreaterThan(0);
          expect(d.feeCents).toBe(mdrFeeCents(d.grossCents, c.mdrBps));
          expect(d.netCents).toBe(d.grossCents - d.feeCents);
          expect(d.netCents).toBeGreaterThanOrEqual(0);
        }
        for (const [i, amount] of c.shares.entries()) {
          const mine = drafts.filter((d) => d.sellerId === `seller_r${i}`);
          expect(mine.reduce((s, d) => s + d.grossCents, 0)).toBe(amount);
          // Installment 1 carries the remainder cents: it is never smaller than a later one.
          for (const d of mine) expect(d.grossCents).toBeLessThanOrEqual(mine[0]!.grossCents);
        }
      }),
      { numRuns: 300 },
    );
  });
});
