// The chart of accounts and the one rule that turns a balance movement into a balanced journal entry.
// Amounts are signed cents, credit positive: what the platform owes (a seller's buckets, its fee
// revenue) grows with credits; its cash grows with debits. Every entry's postings sum to zero.

import type { MovementAmounts } from '@pgw/domain';

export type SellerBucket = 'pending' | 'available' | 'reserved' | 'debt';

/** One seller's movement. */
export interface Movement extends MovementAmounts {
  sellerId: string;
}

export interface Posting {
  /** `seller:<id>:<bucket>`, `platform:fees` or `platform:cash`, within one tenant and environment. */
  account: string;
  sellerId: string | null;
  amountCents: number;
}

export const sellerAccount = (sellerId: string, bucket: SellerBucket) =>
  `seller:${sellerId}:${bucket}`;
export const FEES_ACCOUNT = 'platform:fees';
export const CASH_ACCOUNT = 'platform:cash';

/** A broken invariant: the process stops rather than book money that does not add up. */
export class LedgerInvariantError extends Error {}

export function assertBalanced(postings: readonly Posting[]): void {
  let sum = 0;
  for (const p of postings) {
    if (!Number.isSafeInteger(p.amountCents))
      throw new LedgerInvariantError(
        `posting to ${p.account} is not integer cents: ${p.amountCents}`,
      );
    sum += p.amountCents;
  }
  if (sum !== 0)
    throw new LedgerInvariantError(
      `journal entry does not balance: its postings sum to ${sum} cents`,
    );
}

/**
 * seller buckets: credited with their deltas (the debt, which the seller owes, with the opposite sign);
 * fees: credited with the fee earned; cash: debited with the buyers' money received and credited with
 * what is paid out to the seller's bank.
 */
export function postingsFor(m: Movement): Posting[] {
  const postings: Posting[] = [
    {
      account: sellerAccount(m.sellerId, 'pending'),
      sellerId: m.sellerId,
      amountCents: m.pendingDeltaCents,
    },
    {
      account: sellerAccount(m.sellerId, 'available'),
      sellerId: m.sellerId,
      amountCents: m.availableDeltaCents,
    },
    {
      account: sellerAccount(m.sellerId, 'reserved'),
      sellerId: m.sellerId,
      amountCents: m.reservedDeltaCents,
    },
    {
      account: sellerAccount(m.sellerId, 'debt'),
      sellerId: m.sellerId,
      amountCents: -m.debtDeltaCents,
    },
    { account: FEES_ACCOUNT, sellerId: null, amountCents: m.feeDeltaCents },
    { account: CASH_ACCOUNT, sellerId: null, amountCents: m.paidOutCents - m.grossDeltaCents },
  ].filter((p) => p.amountCents !== 0);
  assertBalanced(postings);
  return postings;
}

/** How much the entry changes what the seller has with us: the balance transaction's signed amount. */
export function sellerEffect(m: Movement): number {
  return m.pendingDeltaCents + m.availableDeltaCents + m.reservedDeltaCents - m.debtDeltaCents;
}
