// The receivable schedule of a paid charge (contract §4): one receivable per installment per recipient.
// Recipients of the split are carved out of the amount; the remainder belongs to the charge's seller.
// Each recipient's share splits evenly over the installments, the remainder cents on installment 1.
// Pure: dates are calendar strings, money integer cents, and every cent of the charge is allocated.
import { assert, addDays, allocateEvenly, mdrFeeCents } from '@pgw/domain';
import type { PaymentMethod, ResolvedPricing } from './pricing';

export interface ChargeToSchedule {
  chargeId: string;
  /** The charge's own seller: the remainder of the split is theirs. */
  sellerId: string;
  paymentMethod: PaymentMethod;
  amountCents: number;
  installments: number;
  /** UTC calendar date of paid_at. */
  paidDate: string;
  split: Array<{ recipientSellerId: string; amountCents: number }>;
}

export interface ReceivableDraft {
  sellerId: string;
  installment: number;
  installments: number;
  grossCents: number;
  feeCents: number;
  netCents: number;
  mdrBps: number;
  dueDate: string;
  /** Due on the day it is paid (Pix D+0, or a D+0 credit plan): available at once. */
  availableAtOnce: boolean;
}

/** Installments of the schedule: credit cards have them; debit, Pix and boleto are paid in one go. */
export function scheduleInstallments(method: PaymentMethod, installments: number): number {
  return method === 'credit_card' ? installments : 1;
}

/** The due date of installment i (1-based) of a charge paid on paidDate. */
export function dueDate(
  method: PaymentMethod,
  paidDate: string,
  settlementDelayDays: number,
  installment: number,
): string {
  switch (method) {
    case 'credit_card':
      return addDays(paidDate, settlementDelayDays + 30 * (installment - 1));
    case 'debit_card':
      return addDays(paidDate, 1);
    case 'pix':
      return paidDate;
    case 'boleto':
      return addDays(paidDate, 1);
  }
}

/** Each recipient's gross: split recipients in their order, then the charge's seller with the remainder. */
export function recipientShares(
  charge: Pick<ChargeToSchedule, 'sellerId' | 'amountCents' | 'split'>,
): Array<{ sellerId: string; grossCents: number }> {
  const shares = new Map<string, number>();
  let carved = 0;
  for (const item of charge.split) {
    const positive = Number.isSafeInteger(item.amountCents) && item.amountCents >= 1;
    assert(positive, 'split.amount-positive-integer', { amount_cents: item.amountCents });
    carved += item.amountCents;
    shares.set(
      item.recipientSellerId,
      (shares.get(item.recipientSellerId) ?? 0) + item.amountCents,
    );
  }
  const remainder = charge.amountCents - carved;
  // The charges service validated the split; a split above the amount here is a broken invariant.
  assert(remainder >= 0, 'split.within-charge-amount', { excess_cents: -remainder });
  shares.set(charge.sellerId, (shares.get(charge.sellerId) ?? 0) + remainder);
  return [...shares]
    .map(([sellerId, grossCents]) => ({ sellerId, grossCents }))
    .filter((s) => s.grossCents > 0);
}

export function buildSchedule(
  charge: ChargeToSchedule,
  pricing: ResolvedPricing,
): ReceivableDraft[] {
  const positive = Number.isSafeInteger(charge.amountCents) && charge.amountCents >= 1;
  assert(positive, 'charge.amount-positive-integer', { amount_cents: charge.amountCents });
  const n = scheduleInstallments(charge.paymentMethod, Math.max(1, charge.installments));
  const drafts: ReceivableDraft[] = [];
  for (const share of recipientShares(charge)) {
    const parts = allocateEvenly(share.grossCents, n);
    parts.forEach((grossCents, index) => {
      // A share smaller than its installments leaves zero-cent installments: they carry no money and
      // would only be noise in the seller's schedule.
      if (grossCents === 0) return;
      const installment = index + 1;
      const due = dueDate(
        charge.paymentMethod,
        charge.paidDate,
        pricing.settlementDelayDays,
        installment,
      );
      const feeCents = mdrFeeCents(grossCents, pricing.mdrBps);
      drafts.push({
        sellerId: share.sellerId,
        installment,
        installments: n,
        grossCents,
        feeCents,
        netCents: grossCents - feeCents,
        mdrBps: pricing.mdrBps,
        dueDate: due,
        availableAtOnce: due <= charge.paidDate,
      });
    });
  }
  return drafts;
}
