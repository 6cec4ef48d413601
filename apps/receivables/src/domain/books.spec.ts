import { buckets, movementBetween, movementImbalance, ZERO_COUNTERS } from './books';

describe("a seller's books", () => {
  it('nets the debt against the available balance and keeps the rest as debt, never a negative bucket', () => {
    expect(buckets({ ...ZERO_COUNTERS, receivablesAvailableCents: 300, debtCents: 100 })).toEqual({
      pendingCents: 0,
      availableCents: 200,
      reservedCents: 0,
      debtCents: 0,
    });
    expect(
      buckets({
        ...ZERO_COUNTERS,
        pendingCents: 50,
        receivablesAvailableCents: 100,
        debtCents: 300,
      }),
    ).toEqual({ pendingCents: 50, availableCents: 0, reservedCents: 0, debtCents: 200 });
    // A credit owed to the seller (a chargeback won after its debit was settled) is available money.
    expect(buckets({ ...ZERO_COUNTERS, debtCents: -40 })).toEqual({
      pendingCents: 0,
      availableCents: 40,
      reservedCents: 0,
      debtCents: 0,
    });
  });

  it('makes a sale, a refund after payout and a payout balance: seller + fee = gross in - paid out', () => {
    const sale = movementBetween(
      ZERO_COUNTERS,
      { ...ZERO_COUNTERS, pendingCents: 9701 },
      { feeDeltaCents: 299, grossDeltaCents: 10_000, paidOutCents: 0 },
    );
    expect(movementImbalance(sale)).toBe(0);
    const refund = movementBetween(
      ZERO_COUNTERS,
      { ...ZERO_COUNTERS, debtCents: 9701 },
      { feeDeltaCents: -299, grossDeltaCents: -10_000, paidOutCents: 0 },
    );
    expect(refund).toMatchObject({ debtDeltaCents: 9701, availableDeltaCents: 0 });
    expect(movementImbalance(refund)).toBe(0);
    const payout = movementBetween({ ...ZERO_COUNTERS, reservedCents: 500 }, ZERO_COUNTERS, {
      feeDeltaCents: 0,
      grossDeltaCents: 0,
      paidOutCents: 500,
    });
    expect(movementImbalance(payout)).toBe(0);
    const wrong = movementBetween(
      ZERO_COUNTERS,
      { ...ZERO_COUNTERS, pendingCents: 9702 },
      { feeDeltaCents: 299, grossDeltaCents: 10_000, paidOutCents: 0 },
    );
    expect(movementImbalance(wrong)).toBe(1);
  });
});
