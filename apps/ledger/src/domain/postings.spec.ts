import {
  assertBalanced,
  CASH_ACCOUNT,
  FEES_ACCOUNT,
  LedgerInvariantError,
  postingsFor,
  sellerEffect,
  type Movement,
} from './postings';

const zero: Movement = {
  sellerId: 'seller_1',
  pendingDeltaCents: 0,
  availableDeltaCents: 0,
  reservedDeltaCents: 0,
  debtDeltaCents: 0,
  feeDeltaCents: 0,
  grossDeltaCents: 0,
  paidOutCents: 0,
};

describe('postings of a balance movement', () => {
  it('books a sale as seller pending + fees against the cash received, summing to zero', () => {
    const postings = postingsFor({
      ...zero,
      pendingDeltaCents: 9701,
      feeDeltaCents: 299,
      grossDeltaCents: 10_000,
    });
    expect(postings).toEqual([
      { account: 'seller:seller_1:pending', sellerId: 'seller_1', amountCents: 9701 },
      { account: FEES_ACCOUNT, sellerId: null, amountCents: 299 },
      { account: CASH_ACCOUNT, sellerId: null, amountCents: -10_000 },
    ]);
    expect(sellerEffect({ ...zero, pendingDeltaCents: 9701 })).toBe(9701);
  });

  it('books a refund after payout on the seller debt, and a payout against cash', () => {
    expect(
      postingsFor({ ...zero, debtDeltaCents: 9701, feeDeltaCents: -299, grossDeltaCents: -10_000 }),
    ).toEqual([
      { account: 'seller:seller_1:debt', sellerId: 'seller_1', amountCents: -9701 },
      { account: FEES_ACCOUNT, sellerId: null, amountCents: -299 },
      { account: CASH_ACCOUNT, sellerId: null, amountCents: 10_000 },
    ]);
    expect(
      postingsFor({ ...zero, reservedDeltaCents: -500, paidOutCents: 500 }).map(
        (p) => p.amountCents,
      ),
    ).toEqual([-500, 500]);
    expect(sellerEffect({ ...zero, debtDeltaCents: 9701 })).toBe(-9701);
  });

  it('refuses, as a broken invariant, a movement whose postings do not sum to zero', () => {
    expect(() =>
      postingsFor({
        ...zero,
        pendingDeltaCents: 9702,
        feeDeltaCents: 299,
        grossDeltaCents: 10_000,
      }),
    ).toThrow(LedgerInvariantError);
    expect(() =>
      assertBalanced([
        { account: 'a', sellerId: null, amountCents: 0.5 },
        { account: 'b', sellerId: null, amountCents: -0.5 },
      ]),
    ).toThrow('integer');
  });
});
