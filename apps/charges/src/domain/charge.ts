import { assert, type ChargeStatus, type PaymentMethod } from '@pgw/domain';
// The charge's state machine (charge-states.md), pure: no I/O, no framework. Every status change of a
// charge goes through `transition`, so a change the diagram does not draw cannot happen anywhere.

export { CHARGE_STATUSES, PAYMENT_METHODS } from '@pgw/domain';
export type { ChargeStatus, PaymentMethod } from '@pgw/domain';
export type CaptureMethod = 'automatic' | 'manual';

export const isCard = (method: PaymentMethod): boolean =>
  method === 'credit_card' || method === 'debit_card';

/** What can happen to a charge. Provider outcomes, API calls, jobs and operator simulations. */
export const CHARGE_TRIGGERS = [
  'authorization_approved', // the acquirer held the amount (capture_method=manual)
  'sale_approved', // the acquirer authorized and captured at once (capture_method=automatic)
  'authorization_refused', // the issuer declined (contract §6)
  'provider_failed', // the acquirer, PSP or bank failed the request, or could not be reached at creation
  'capture', // POST /charges/{id}/capture
  'payment_confirmed', // the Pix PSP or the boleto bank confirmed payment
  'authorization_expired', // job authorization-expiry: 7 days without capture
  'pix_expired', // job pix-expiry, or the PSP refused to take payment of an expired Pix
  'refunded_in_full', // a refund succeeded and nothing is left to refund
  'refunded_in_part', // a refund succeeded and something is left
  'chargeback_opened',
  'chargeback_won',
  'chargeback_lost',
] as const;
export type ChargeTrigger = (typeof CHARGE_TRIGGERS)[number];

/** `previous`: the status the charge had before its chargeback (paid or partially refunded). */
type Target = ChargeStatus | 'previous';

const TRANSITIONS: Record<ChargeTrigger, { from: readonly ChargeStatus[]; to: Target }> = {
  authorization_approved: { from: ['pending'], to: 'authorized' },
  sale_approved: { from: ['pending'], to: 'paid' },
  authorization_refused: { from: ['pending'], to: 'refused' },
  provider_failed: { from: ['pending'], to: 'failed' },
  capture: { from: ['authorized'], to: 'paid' },
  payment_confirmed: { from: ['pending'], to: 'paid' },
  authorization_expired: { from: ['authorized'], to: 'canceled' },
  pix_expired: { from: ['pending'], to: 'canceled' },
  refunded_in_full: { from: ['paid', 'partially_refunded'], to: 'refunded' },
  refunded_in_part: { from: ['paid', 'partially_refunded'], to: 'partially_refunded' },
  chargeback_opened: { from: ['paid', 'partially_refunded'], to: 'chargeback' },
  // A won chargeback gives the money back: the charge is again what it was before the dispute.
  chargeback_won: { from: ['chargeback'], to: 'previous' },
  // A lost one keeps the debit: the charge stays charged back.
  chargeback_lost: { from: ['chargeback'], to: 'chargeback' },
};

export interface ChargeState {
  status: ChargeStatus;
  statusBeforeChargeback: ChargeStatus | null;
}

/** The status after `trigger`, or null when the diagram has no such arrow from the current status. */
export function transition(state: ChargeState, trigger: ChargeTrigger): ChargeStatus | null {
  const rule = TRANSITIONS[trigger];
  if (!rule.from.includes(state.status)) return null;
  if (rule.to !== 'previous') return rule.to;
  const previous = state.statusBeforeChargeback;
  // A charge in chargeback always recorded where it came from; anything else is a corrupted row.
  assert(
    previous === 'paid' || previous === 'partially_refunded',
    'charge.chargeback-keeps-previous-status',
    {
      previous: String(previous),
    },
  );
  return previous;
}

/** Capture: only an authorized card charge created with capture_method=manual (contract §4). */
export function isCapturable(charge: {
  status: ChargeStatus;
  captureMethod: CaptureMethod;
  paymentMethod: PaymentMethod;
}): boolean {
  return (
    charge.captureMethod === 'manual' &&
    isCard(charge.paymentMethod) &&
    transition({ status: charge.status, statusBeforeChargeback: null }, 'capture') !== null
  );
}

export function isRefundable(status: ChargeStatus): boolean {
  return status === 'paid' || status === 'partially_refunded';
}

/**
 * What a new refund may still take: the amount minus succeeded refunds minus refunds in flight. Counting
 * the ones in flight is what keeps the sum under the amount when refunds race (contract §4).
 */
export function refundableCents(
  amountCents: number,
  succeededCents: number,
  inFlightCents: number,
): number {
  const remaining = amountCents - succeededCents - inFlightCents;
  assert(remaining >= 0, 'charge.refunds-within-amount', {
    succeeded_cents: succeededCents,
    in_flight_cents: inFlightCents,
    amount_cents: amountCents,
  });
  return remaining;
}

/**
 * What a new chargeback may still take: what is still the seller's, the amount minus refunds (succeeded
 * and in flight: a refund whose answer is late may still succeed) minus chargebacks open or lost (a won
 * one gave its money back). Never negative; 0 means nothing is left to dispute.
 */
export function disputableCents(
  amountCents: number,
  refunds: { succeededCents: number; inFlightCents: number },
  openOrLostChargebackCents: number,
): number {
  return Math.max(
    0,
    amountCents - refunds.succeededCents - refunds.inFlightCents - openOrLostChargebackCents,
  );
}

/** The trigger a succeeded refund fires: the whole amount refunded, or part of it. */
export function refundTrigger(amountCents: number, refundedCents: number): ChargeTrigger {
  const cents = { refunded_cents: refundedCents, amount_cents: amountCents };
  assert(refundedCents <= amountCents, 'charge.refunded-within-amount', cents);
  return refundedCents === amountCents ? 'refunded_in_full' : 'refunded_in_part';
}
