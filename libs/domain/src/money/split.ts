// Charge splits (api-v1 `split`): recipients are carved out of the charge amount and whatever is left
// stays with the charge's own seller. A bad split is an operating error (422 split_invalid), so it comes
// back as a value with the item index, from which the route builds `param` (e.g. `split.1.amount_cents`).

export interface SplitItemInput {
  recipientSellerId: string;
  amountCents?: number;
  percentageBps?: number;
}

export interface SplitAllocation {
  recipientSellerId: string;
  amountCents: number;
}

export type SplitRejectionReason =
  | 'amount_and_percentage' // an item carries both amountCents and percentageBps
  | 'amount_or_percentage_missing' // an item carries neither
  | 'mixed_modes' // items disagree on the mode: all must use amounts, or all percentages
  | 'amount_invalid' // amountCents not an integer >= 1
  | 'percentage_invalid' // percentageBps not an integer in 1..10000
  | 'duplicate_recipient' // the same recipientSellerId twice
  | 'resolves_to_zero' // a percentage too small for the total: floor gives 0 cents
  | 'sum_exceeds_total'; // recipients would receive more than the charge (or over 10000 bps in all)

export type SplitResult =
  | { ok: true; recipients: SplitAllocation[]; remainderCents: number }
  | { ok: false; reason: SplitRejectionReason; index?: number };

/**
 * Resolves split items to cents. Percentages are floored per item, so recipients never receive more than
 * their share and the rounding cents stay with the charge's seller in `remainderCents`.
 */
export function allocateSplit(totalCents: number, items: readonly SplitItemInput[]): SplitResult {
  if (!Number.isSafeInteger(totalCents) || totalCents < 0)
    throw new RangeError(`totalCents must be a non-negative integer, got ${totalCents}`);

  const seen = new Set<string>();
  let mode: 'amount' | 'percentage' | undefined;
  const recipients: SplitAllocation[] = [];
  let totalBps = 0;

  for (const [index, item] of items.entries()) {
    const hasAmount = item.amountCents !== undefined;
    const hasPercentage = item.percentageBps !== undefined;
    if (hasAmount && hasPercentage) return { ok: false, reason: 'amount_and_percentage', index };
    if (!hasAmount && !hasPercentage)
      return { ok: false, reason: 'amount_or_percentage_missing', index };

    const itemMode = hasAmount ? 'amount' : 'percentage';
    mode ??= itemMode;
    if (itemMode !== mode) return { ok: false, reason: 'mixed_modes', index };
    if (seen.has(item.recipientSellerId))
      return { ok: false, reason: 'duplicate_recipient', index };
    seen.add(item.recipientSellerId);

    let amountCents: number;
    if (item.amountCents !== undefined) {
      if (!Number.isSafeInteger(item.amountCents) || item.amountCents < 1)
        return { ok: false, reason: 'amount_invalid', index };
      amountCents = item.amountCents;
    } else {
      const bps = item.percentageBps;
      if (bps === undefined || !Number.isSafeInteger(bps) || bps < 1 || bps > 10_000)
        return { ok: false, reason: 'percentage_invalid', index };
      totalBps += bps;
      amountCents = Number((BigInt(totalCents) * BigInt(bps)) / 10_000n);
      if (amountCents === 0) return { ok: false, reason: 'resolves_to_zero', index };
    }
    recipients.push({ recipientSellerId: item.recipientSellerId, amountCents });
  }

  // Checking bps as well as cents: with flooring, 60 % + 50 % of 3 cents resolves to 1 + 1 = 2 cents,
  // which fits the total, yet the request promised 110 % of the charge away.
  if (totalBps > 10_000) return { ok: false, reason: 'sum_exceeds_total' };
  const allocatedCents = recipients.reduce((sum, r) => sum + r.amountCents, 0);
  if (allocatedCents > totalCents) return { ok: false, reason: 'sum_exceeds_total' };
  return { ok: true, recipients, remainderCents: totalCents - allocatedCents };
}
