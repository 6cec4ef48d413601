// A charge's vocabulary, shared by the charges service's state machine (apps/charges/src/domain/charge.ts),
// the SDK and the dashboard: each list written once, here, where all of them may import it.

/** A charge's statuses (apps/charges/src/domain/charge-states.md), in the order of its life. */
export const CHARGE_STATUSES = [
  'pending',
  'authorized',
  'paid',
  'refused',
  'canceled',
  'refunded',
  'partially_refunded',
  'chargeback',
  'failed',
] as const;
export type ChargeStatus = (typeof CHARGE_STATUSES)[number];

/** The payment methods a charge is made with. */
export const PAYMENT_METHODS = ['credit_card', 'debit_card', 'pix', 'boleto'] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];
