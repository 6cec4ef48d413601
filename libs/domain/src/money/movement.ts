/**
 * A balance movement's amounts, signed cents (receivables.balance-moved.v1, read by the ledger): the
 * deltas of a seller's buckets, the platform's fee, the buyers' money in, and what left for the seller's
 * bank. Receivables keeps every movement balanced; the ledger books each as postings that sum to zero.
 */
export interface MovementAmounts {
  pendingDeltaCents: number;
  availableDeltaCents: number;
  reservedDeltaCents: number;
  debtDeltaCents: number;
  feeDeltaCents: number;
  grossDeltaCents: number;
  paidOutCents: number;
}
