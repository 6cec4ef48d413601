import { EVENT_TOPICS, eventVersion, EVERY_WEBHOOK_KIND, type WebhookKind } from '@pgw/contracts';

// Our Avro events → the webhook event kinds of contract §7 (WEBHOOK_KINDS, in @pgw/contracts), in one
// table keyed by event without its version: every version of an event is the same kind (charge-paid v1 from
// an older replica of charges, v2 from a newer one). An event that is not here, or whose rule says no, is
// not a webhook: it is consumed and ignored.

interface KindRule {
  kind: WebhookKind;
  /** For event types that announce every change of a resource: which changes are this kind. */
  when?: (record: object) => boolean;
}

const field = (record: object, path: string[]): unknown => {
  let value: unknown = record;
  for (const key of path)
    value =
      typeof value === 'object' && value !== null
        ? (value as Record<string, unknown>)[key]
        : undefined;
  return value;
};

/**
 * Avro event (`<producer>.<event>`, any version) → webhook kind. Events not yet in the contracts (another
 * service's, still to come) wait here harmlessly: `webhookTopics` subscribes only to the topics of types the
 * contracts know.
 */
export const EVENT_KIND_RULES: Readonly<Record<string, KindRule>> = {
  'charges.charge-created': { kind: 'charge.created' },
  'charges.charge-authorized': { kind: 'charge.authorized' },
  'charges.charge-paid': { kind: 'charge.paid' },
  'charges.charge-refused': { kind: 'charge.refused' },
  'charges.charge-failed': { kind: 'charge.failed' },
  'charges.charge-canceled': { kind: 'charge.canceled' },
  'charges.charge-refunded': { kind: 'charge.refunded' },
  'charges.charge-partially-refunded': { kind: 'charge.partially_refunded' },
  'charges.charge-charged-back': { kind: 'charge.chargeback' },
  'charges.refund-succeeded': { kind: 'refund.succeeded' },
  'charges.refund-failed': { kind: 'refund.failed' },
  'charges.chargeback-opened': { kind: 'chargeback.opened' },
  'charges.chargeback-won': { kind: 'chargeback.won' },
  'charges.chargeback-lost': { kind: 'chargeback.lost' },
  // An anticipation is announced once, when executed: it is created succeeded.
  'anticipation.anticipation-executed': { kind: 'anticipation.succeeded' },
  // Every settlement change is one event type; only the change to paid is a webhook.
  'receivables.settlement-changed': {
    kind: 'settlement.paid',
    when: (record) =>
      field(record, ['settlement', 'status']) === 'paid' &&
      field(record, ['previous_status']) !== 'paid',
  },
};

/** The webhook kind of a decoded event, or null when it is not one. */
export function webhookKindOf(eventType: string, record: object): WebhookKind | null {
  const event = eventVersion(eventType)?.event;
  const rule =
    event !== undefined && Object.prototype.hasOwnProperty.call(EVENT_KIND_RULES, event)
      ? EVENT_KIND_RULES[event]
      : undefined;
  if (rule === undefined) return null;
  if (rule.when !== undefined && !rule.when(record)) return null;
  return rule.kind;
}

/** Every topic that carries at least one event type with a webhook kind, among the types that exist. */
export function webhookTopics(): string[] {
  const topics = new Set<string>();
  for (const [eventType, topic] of Object.entries(EVENT_TOPICS)) {
    const event = eventVersion(eventType)?.event;
    if (event !== undefined && Object.prototype.hasOwnProperty.call(EVENT_KIND_RULES, event))
      topics.add(topic);
  }
  return [...topics].sort();
}

/** An endpoint's `events` filter: ['*'] is every kind, including kinds added later; [] (a deleted endpoint) none. */
export function endpointWants(events: readonly string[], kind: WebhookKind): boolean {
  return events.includes(EVERY_WEBHOOK_KIND) || events.includes(kind);
}
