import fc from 'fast-check';
import { allocateSplit, type SplitItemInput } from './split';

describe('allocateSplit with amounts', () => {
  it('carves fixed amounts out of the total and leaves the rest to the charge seller', () => {
    expect(
      allocateSplit(10_000, [
        { recipientSellerId: 'seller_a', amountCents: 2_500 },
        { recipientSellerId: 'seller_b', amountCents: 7_500 },
      ]),
    ).toEqual({
      ok: true,
      recipients: [
        { recipientSellerId: 'seller_a', amountCents: 2_500 },
        { recipientSellerId: 'seller_b', amountCents: 7_500 },
      ],
      remainderCents: 0,
    });
  });

  it('refuses amounts that add up to more than the total', () => {
    const result = allocateSplit(1_000, [
      { recipientSellerId: 'seller_a', amountCents: 600 },
      { recipientSellerId: 'seller_b', amountCents: 401 },
    ]);
    expect(result).toEqual({ ok: false, reason: 'sum_exceeds_total' });
  });

  it('refuses a zero, negative or fractional amount with its index', () => {
    expect(
      allocateSplit(1_000, [
        { recipientSellerId: 's1', amountCents: 1 },
        { recipientSellerId: 's2', amountCents: 0 },
      ]),
    ).toEqual({ ok: false, reason: 'amount_invalid', index: 1 });
    expect(allocateSplit(1_000, [{ recipientSellerId: 's1', amountCents: -5 }])).toEqual({
      ok: false,
      reason: 'amount_invalid',
      index: 0,
    });
    expect(allocateSplit(1_000, [{ recipientSellerId: 's1', amountCents: 1.5 }])).toEqual({
      ok: false,
      reason: 'amount_invalid',
      index: 0,
    });
  });
});

describe('allocateSplit with percentages', () => {
  it('floors each share, keeping the rounding cents with the charge seller', () => {
    // 33.33 % of 1001 = 333.63… → 333, twice; remainder 1001 − 666 = 335.
    expect(
      allocateSplit(1_001, [
        { recipientSellerId: 'seller_a', percentageBps: 3_333 },
        { recipientSellerId: 'seller_b', percentageBps: 3_333 },
      ]),
    ).toEqual({
      ok: true,
      recipients: [
        { recipientSellerId: 'seller_a', amountCents: 333 },
        { recipientSellerId: 'seller_b', amountCents: 333 },
      ],
      remainderCents: 335,
    });
    expect(allocateSplit(999, [{ recipientSellerId: 'seller_a', percentageBps: 10_000 }])).toEqual({
      ok: true,
      recipients: [{ recipientSellerId: 'seller_a', amountCents: 999 }],
      remainderCents: 0,
    });
  });

  it('refuses a share that floors to 0 cents', () => {
    expect(allocateSplit(99, [{ recipientSellerId: 'seller_a', percentageBps: 100 }])).toEqual({
      ok: false,
      reason: 'resolves_to_zero',
      index: 0,
    });
  });

  it('refuses percentages over 100 % in all even when the floored cents would fit', () => {
    // 60 % + 50 % of 3 cents floors to 1 + 1 = 2 cents ≤ 3, yet promises 110 %.
    const result = allocateSplit(3, [
      { recipientSellerId: 'seller_a', percentageBps: 6_000 },
      { recipientSellerId: 'seller_b', percentageBps: 5_000 },
    ]);
    expect(result).toEqual({ ok: false, reason: 'sum_exceeds_total' });
    // The edge: 10001 bps in all is refused, 10000 accepted.
    const over = [
      { recipientSellerId: 'seller_a', percentageBps: 5_000 },
      { recipientSellerId: 'seller_b', percentageBps: 5_001 },
    ];
    expect(allocateSplit(3, over)).toEqual({ ok: false, reason: 'sum_exceeds_total' });
    expect(
      allocateSplit(3, [over[0]!, { recipientSellerId: 'seller_b', percentageBps: 5_000 }]),
    ).toMatchObject({ ok: true, remainderCents: 1 });
  });

  it('refuses bps outside 1..10000', () => {
    expect(allocateSplit(100, [{ recipientSellerId: 's1', percentageBps: 0 }])).toEqual({
      ok: false,
      reason: 'percentage_invalid',
      index: 0,
    });
    expect(allocateSplit(100, [{ recipientSellerId: 's1', percentageBps: 10_001 }])).toEqual({
      ok: false,
      reason: 'percentage_invalid',
      index: 0,
    });
  });
});

describe('allocateSplit item shape', () => {
  it('points at the item that mixes modes, carries both fields, carries neither, or repeats a recipient', () => {
    expect(
      allocateSplit(1_000, [
        { recipientSellerId: 's1', amountCents: 10 },
        { recipientSellerId: 's2', percentageBps: 10 },
      ]),
    ).toEqual({ ok: false, reason: 'mixed_modes', index: 1 });
    expect(
      allocateSplit(1_000, [{ recipientSellerId: 's1', amountCents: 10, percentageBps: 10 }]),
    ).toEqual({ ok: false, reason: 'amount_and_percentage', index: 0 });
    expect(
      allocateSplit(1_000, [
        { recipientSellerId: 's1', amountCents: 10 },
        { recipientSellerId: 's2' },
      ]),
    ).toEqual({ ok: false, reason: 'amount_or_percentage_missing', index: 1 });
    expect(
      allocateSplit(1_000, [
        { recipientSellerId: 's1', amountCents: 10 },
        { recipientSellerId: 's1', amountCents: 20 },
      ]),
    ).toEqual({ ok: false, reason: 'duplicate_recipient', index: 1 });
  });
});

describe('allocateSplit properties', () => {
  const ids = (n: number): string[] => Array.from({ length: n }, (_, i) => `seller_r${i}`);

  it('whenever it accepts, recipients plus remainder equal the total and no part is negative or zero', () => {
    const mode = fc.constantFrom('amount', 'percentage');
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000_000 }),
        mode,
        fc.array(fc.integer({ min: 1, max: 10_000 }), { minLength: 1, maxLength: 10 }),
        (total, m, values) => {
          const items: SplitItemInput[] = ids(values.length).map((id, i) =>
            m === 'amount'
              ? { recipientSellerId: id, amountCents: values[i] }
              : { recipientSellerId: id, percentageBps: values[i] },
          );
          const result = allocateSplit(total, items);
          if (!result.ok) return;
          const recipientsCents = result.recipients.reduce((sum, r) => sum + r.amountCents, 0);
          expect(recipientsCents + result.remainderCents).toBe(total);
          expect(result.remainderCents).toBeGreaterThanOrEqual(0);
          for (const r of result.recipients) expect(r.amountCents).toBeGreaterThanOrEqual(1);
          expect(result.recipients.map((r) => r.recipientSellerId)).toEqual(
            items.map((i) => i.recipientSellerId),
          );
        },
      ),
    );
  });

  it('accepts percentages totalling at most 100 % exactly when no share floors to zero, and never overpays a share', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000_000 }),
        fc.array(fc.integer({ min: 1, max: 2_500 }), { minLength: 1, maxLength: 4 }),
        (total, bpsList) => {
          const items = ids(bpsList.length).map((id, i) => ({
            recipientSellerId: id,
            percentageBps: bpsList[i],
          }));
          const result = allocateSplit(total, items);
          const anyZero = bpsList.some((b) => Math.floor((total * b) / 10_000) === 0);
          expect(result.ok).toBe(!anyZero);
          if (!result.ok) return;
          result.recipients.forEach((r, i) => {
            const exactShare = (total * (bpsList[i] ?? 0)) / 10_000;
            expect(r.amountCents).toBeLessThanOrEqual(exactShare);
            expect(r.amountCents).toBeGreaterThan(exactShare - 1);
          });
        },
      ),
    );
  });
});
