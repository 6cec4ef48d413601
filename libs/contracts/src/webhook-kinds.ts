// The webhook event kinds of contract §7, written once: the gateway validates an endpoint's `events`
// filter against them, the webhooks service maps our Avro events to them and delivers them.

export const WEBHOOK_KINDS = [
  'charge.created',
  'charge.authorized',
  'charge.paid',
  'charge.refused',
  'charge.failed',
  'charge.canceled',
  'charge.refunded',
  'charge.partially_refunded',
  'charge.chargeback',
  'refund.succeeded',
  'refund.failed',
  'chargeback.opened',
  'chargeback.won',
  'chargeback.lost',
  'anticipation.succeeded',
  'settlement.paid',
] as const;

export type WebhookKind = (typeof WEBHOOK_KINDS)[number];

/** In an endpoint's `events` filter: every kind, including kinds added later. */
export const EVERY_WEBHOOK_KIND = '*';

/** What an endpoint's `events` filter may name: a kind, or '*'. */
export const WEBHOOK_EVENT_FILTERS = [EVERY_WEBHOOK_KIND, ...WEBHOOK_KINDS] as const;
