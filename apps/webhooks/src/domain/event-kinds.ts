import { EVENT_TOPICS, EVERY_WEBHOOK_KIND, isEventType, type WebhookKind } from '@pgw/contracts';

// Our Avro event types → the webhook event kinds of contract §7 (WEBHOOK_KINDS, in @pgw/contracts), in
// one table. An event type that is not here, or whose rule says no, is not a webhook: it is consumed and
// ignored.

interface KindRule {
  kind: WebhookKind;
  /** For event types that announce every change of a resource: which changes are this kind. */
  when?: (record: object) => boolean;
}

const field = (record: object, path: string[]): unknown => {
  let value: unknown = record;
  for (const key of path) value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  return value;
};

/**
 * Avro event type → webhook kind. Types not yet in the contracts (another service's, still to come) wait
 * here harmlessly: `webhookTopics` subscribes only to the topics of types the registry knows.
 */
export const EVENT_KIND_RULES: Readonly<Record<string, KindRule>> = {
  'charges.charge-created.v1': { kind: 'charge.created' },
  'charges.charge-authorized.v1': { kind: 'charge.authorized' },
  'charges.charge-paid.v1': { kind: 'charge.paid' },
  'charges.charge-refused.v1': { kind: 'charge.refused' },
  'charges.charge-failed.v1': { kind: 'charge.failed' },
  'charges.charge-canceled.v1': { kind: 'charge.canceled' },
  'charges.charge-refunded.v1': { kind: 'charge.refunded' },
  'charges.charge-partially-refunded.v1': { kind: 'charge.partially_refunded' },
  'charges.charge-charged-back.v1': { kind: 'charge.chargeback' },
  'charges.refund-succeeded.v1': { kind: 'refund.succeeded' },
  'charges.refund-failed.v1': { kind: 'refund.failed' },
  'charges.chargeback-opened.v1': { kind: 'chargeback.opened' },
  'charges.chargeback-won.v1': { kind: 'chargeback.won' },
  'charges.chargeback-lost.v1': { kind: 'chargeback.lost' },
  // An anticipation is announced once, when executed: it is created succeeded.
  'anticipation.anticipation-executed.v1': { kind: 'anticipation.succeeded' },
  // Every settlement change is one event type; only the change to paid is a webhook.
  'receivables.settlement-changed.v1': {
    kind: 'settlement.paid',
    when: (record) => field(record, ['settlement', 'status']) === 'paid' && field(record, ['previous_status']) !== 'paid',
  },
};

/** The webhook kind of a decoded event, or null when it is not one. */
export function webhookKindOf(eventType: string, record: object): WebhookKind | null {
  const rule = Object.prototype.hasOwnProperty.call(EVENT_KIND_RULES, eventType) ? EVENT_KIND_RULES[eventType] : undefined;
  if (rule === undefined) return null;
  if (rule.when !== undefined && !rule.when(record)) return null;
  return rule.kind;
}

/** Every topic that carries at least one event type with a webhook kind, among the types that exist. */
export function webhookTopics(): string[] {
  const topics = new Set<string>();
  for (const eventType of Object.keys(EVENT_KIND_RULES)) {
    if (isEventType(eventType)) topics.add(EVENT_TOPICS[eventType]);
  }
  return [...topics].sort();
}

/** An endpoint's `events` filter: ['*'] is every kind, including kinds added later. */
export function endpointWants(events: readonly string[], kind: WebhookKind): boolean {
  return events.includes(EVERY_WEBHOOK_KIND) || events.includes(kind);
}
