// A seller's books in the receivables service: four running counters, and the balance buckets the
// ledger shows, derived from them. The seller's debt (refunds and chargebacks of money already paid
// out) is netted against the available balance at once; what the available balance cannot cover stays
// as debt and is netted as more money becomes available, then settled in the next payout.

import type { MovementAmounts } from '@pgw/domain';

export interface BookCounters {
  /** Net of receivables `pending`. */
  pendingCents: number;
  /** Net of receivables `available` not yet gathered into a settlement. */
  receivablesAvailableCents: number;
  /** Amounts of settlements in flight (pending, processing). */
  reservedCents: number;
  /** Debt not yet settled (signed: negative is a credit owed to the seller, e.g. a chargeback won after its debit was settled). */
  debtCents: number;
}

export interface Buckets {
  pendingCents: number;
  /** Free for payout: released receivables minus the debt netted against them. */
  availableCents: number;
  reservedCents: number;
  /** Debt the available balance could not cover. */
  debtCents: number;
}

export const ZERO_COUNTERS: BookCounters = {
  pendingCents: 0,
  receivablesAvailableCents: 0,
  reservedCents: 0,
  debtCents: 0,
};

/** The debt netted against the available receivables: all of it when they cover it, else all of them. */
export function nettedDebt(c: BookCounters): number {
  return Math.min(c.debtCents, c.receivablesAvailableCents);
}

export function buckets(c: BookCounters): Buckets {
  const netted = nettedDebt(c);
  return {
    pendingCents: c.pendingCents,
    availableCents: c.receivablesAvailableCents - netted,
    reservedCents: c.reservedCents,
    debtCents: c.debtCents - netted,
  };
}

/**
 * The sum that every movement keeps at zero: what the seller gains, plus the platform's fee, equals
 * the buyers' money in, minus what left to the seller's bank.
 */
export function movementImbalance(m: MovementAmounts): number {
  return (
    m.pendingDeltaCents +
    m.availableDeltaCents +
    m.reservedDeltaCents -
    m.debtDeltaCents +
    m.feeDeltaCents -
    m.grossDeltaCents +
    m.paidOutCents
  );
}

/** The seller's total: what we owe the seller (negative when the seller owes us more than we hold). */
export function sellerTotal(b: Buckets): number {
  return b.pendingCents + b.availableCents + b.reservedCents - b.debtCents;
}

export function movementBetween(
  before: BookCounters,
  after: BookCounters,
  money: { feeDeltaCents: number; grossDeltaCents: number; paidOutCents: number },
): MovementAmounts {
  const b = buckets(before);
  const a = buckets(after);
  return {
    pendingDeltaCents: a.pendingCents - b.pendingCents,
    availableDeltaCents: a.availableCents - b.availableCents,
    reservedDeltaCents: a.reservedCents - b.reservedCents,
    debtDeltaCents: a.debtCents - b.debtCents,
    ...money,
  };
}

export function isZeroMovement(m: MovementAmounts): boolean {
  return Object.values(m).every((v) => v === 0);
}
