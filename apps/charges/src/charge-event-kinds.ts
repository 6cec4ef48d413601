// The webhook kind (contract §7) of each event charges announces: a charge's history names its changes
// as the integrator's endpoint received them.
import type { WebhookKind } from '@pgw/contracts';

export const KIND_OF_EVENT = {
  'charges.charge-created.v1': 'charge.created',
  'charges.charge-authorized.v1': 'charge.authorized',
  'charges.charge-paid.v2': 'charge.paid',
  'charges.charge-refused.v1': 'charge.refused',
  'charges.charge-failed.v1': 'charge.failed',
  'charges.charge-canceled.v1': 'charge.canceled',
  'charges.charge-refunded.v1': 'charge.refunded',
  'charges.charge-partially-refunded.v1': 'charge.partially_refunded',
  'charges.charge-charged-back.v1': 'charge.chargeback',
  'charges.refund-succeeded.v1': 'refund.succeeded',
  'charges.refund-failed.v1': 'refund.failed',
  'charges.chargeback-opened.v1': 'chargeback.opened',
  'charges.chargeback-won.v1': 'chargeback.won',
  'charges.chargeback-lost.v1': 'chargeback.lost',
} as const satisfies Record<string, WebhookKind>;

export type HistoryEventType = keyof typeof KIND_OF_EVENT;

/** The webhook kinds a charge's history holds: contract §7's charge, refund and chargeback kinds. */
export const CHARGE_EVENT_KINDS = Object.values(KIND_OF_EVENT);
export type ChargeEventKind = (typeof KIND_OF_EVENT)[HistoryEventType];
