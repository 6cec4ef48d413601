// How a refund or a chargeback takes money back from a charge's receivables (contract §4 and
// receivable-states.md). Pure and exact: every cent taken is either removed from a receivable that has
// not been paid out (refunds only) or debited from the seller's balance, and the fee follows the gross.
import { assert, mdrFeeCents } from '@pgw/domain';

/**
 * Splits totalCents over parts in proportion to their capacities (largest remainder; ties to the lower
 * index), never giving a part more than its capacity. The parts add up to totalCents exactly.
 */
export function allocateProportionally(
  totalCents: number,
  capacities: readonly number[],
): number[] {
  if (!Number.isSafeInteger(totalCents) || totalCents < 0)
    throw new RangeError(`totalCents must be a non-negative integer, got ${totalCents}`);
  const capacityTotal = capacities.reduce((sum, c) => {
    if (!Number.isSafeInteger(c) || c < 0)
      throw new RangeError(`capacity must be a non-negative integer, got ${c}`);
    return sum + c;
  }, 0);
  if (totalCents > capacityTotal)
    throw new RangeError(`cannot take ${totalCents} cents from a capacity of ${capacityTotal}`);
  if (totalCents === 0) return capacities.map(() => 0);
  const parts = capacities.map((c) =>
    Number((BigInt(totalCents) * BigInt(c)) / BigInt(capacityTotal)),
  );
  const remainders = capacities.map((c, index) => ({
    index,
    rest: (BigInt(totalCents) * BigInt(c)) % BigInt(capacityTotal),
  }));
  remainders.sort((a, b) => (a.rest === b.rest ? a.index - b.index : a.rest > b.rest ? -1 : 1));
  let left = totalCents - parts.reduce((sum, p) => sum + p, 0);
  // left < parts.length, and a part that got less than its capacity has room for one more cent.
  for (const { index } of remainders) {
    if (left === 0) break;
    if ((parts[index] ?? 0) < (capacities[index] ?? 0)) {
      parts[index] = (parts[index] ?? 0) + 1;
      left--;
    }
  }
  assert(left === 0, 'allocation.no-cents-left-over', { left_cents: left });
  return parts;
}

export interface TakeTarget {
  id: string;
  installment: number;
  status: string;
  anticipationId: string | null;
  settlementId: string | null;
  grossCents: number;
  feeCents: number;
  netCents: number;
  debitedGrossCents: number;
  mdrBps: number;
}

export type TakeStep =
  /** The receivable had not been paid out: it shrinks (or is canceled at zero). Amounts after the step. */
  | {
      kind: 'reduce';
      id: string;
      takeCents: number;
      grossCents: number;
      feeCents: number;
      netCents: number;
      canceled: boolean;
      netDeltaCents: number;
      feeDeltaCents: number;
    }
  /** The money had left (paid, in a payout, anticipated) or a chargeback took it: the seller is debited. */
  | { kind: 'debit'; id: string; takeCents: number; feeCents: number; netCents: number };

/**
 * The receivable an anticipation created for an item's net (anticipation.consumer.ts): money already the
 * seller's, not a part of the charge. The charge's part stays on the original, `anticipated` (its
 * anticipation id set too), which a refund or a chargeback debits (contract §4, receivable-states.md).
 */
export function isAnticipationOutput(r: {
  status: string;
  anticipationId: string | null;
}): boolean {
  return r.anticipationId !== null && r.status !== 'anticipated';
}

/**
 * The charge's gross still the seller's on the receivable: what a refund or a chargeback can take from
 * it. None on a canceled receivable, nor on an anticipation's output (its original is taken instead).
 */
export function liveGross(
  r: Pick<TakeTarget, 'status' | 'anticipationId' | 'grossCents' | 'debitedGrossCents'>,
): number {
  return r.status === 'canceled' || isAnticipationOutput(r)
    ? 0
    : r.grossCents - r.debitedGrossCents;
}

/**
 * The seller's part of the fee on a live gross: always the MDR of what is left, so that however a
 * receivable is taken back in pieces (and given back, for a chargeback won), its fee is exact.
 */
export function debitFee(liveGrossCents: number, takeCents: number, mdrBps: number): number {
  return mdrFeeCents(liveGrossCents, mdrBps) - mdrFeeCents(liveGrossCents - takeCents, mdrBps);
}

function reducible(r: TakeTarget): boolean {
  // Only a receivable that has not left us and carries no debit shrinks in place; anything else is debited.
  return (
    r.debitedGrossCents === 0 &&
    (r.status === 'pending' || (r.status === 'available' && r.settlementId === null))
  );
}

/**
 * Takes amountCents from one recipient's receivables of a charge, latest installment first.
 * A refund shrinks what is not paid out and debits the rest (an anticipated original included); a
 * chargeback debits (so that winning it can give the same cents back). An anticipation's output has no
 * live gross: it is skipped.
 */
export function planTake(
  mode: 'refund' | 'chargeback',
  amountCents: number,
  receivables: readonly TakeTarget[],
): TakeStep[] {
  const ordered = [...receivables].sort(
    (a, b) => b.installment - a.installment || (a.id < b.id ? -1 : 1),
  );
  const steps: TakeStep[] = [];
  let left = amountCents;
  for (const r of ordered) {
    if (left === 0) break;
    const live = liveGross(r);
    if (live <= 0) continue;
    const take = Math.min(live, left);
    left -= take;
    if (mode === 'refund' && reducible(r)) {
      const grossCents = r.grossCents - take;
      if (grossCents === 0) {
        steps.push({
          kind: 'reduce',
          id: r.id,
          takeCents: take,
          grossCents: r.grossCents,
          feeCents: r.feeCents,
          netCents: r.netCents,
          canceled: true,
          netDeltaCents: -r.netCents,
          feeDeltaCents: -r.feeCents,
        });
      } else {
        const feeCents = mdrFeeCents(grossCents, r.mdrBps);
        const netCents = grossCents - feeCents;
        steps.push({
          kind: 'reduce',
          id: r.id,
          takeCents: take,
          grossCents,
          feeCents,
          netCents,
          canceled: false,
          netDeltaCents: netCents - r.netCents,
          feeDeltaCents: feeCents - r.feeCents,
        });
      }
    } else {
      const feeCents = debitFee(live, take, r.mdrBps);
      steps.push({ kind: 'debit', id: r.id, takeCents: take, feeCents, netCents: take - feeCents });
    }
  }
  if (left !== 0)
    throw new RangeError(`cannot take ${amountCents} cents: ${left} cents beyond the receivables`);
  return steps;
}
