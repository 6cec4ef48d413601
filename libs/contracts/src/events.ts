import { context, propagation } from '@opentelemetry/api';
import { newId } from '@pgw/domain';
import { eventTypeSchema } from './registry';

import type { EventEnvelope, EventMap } from './events.generated';

// The shapes of the events are generated from their .avsc files (events.generated.ts, `npm run
// schemas:types`), and exported here under the names the services import: one name for the records that
// share a shape (every charge event v1 is a ChargeEvent, refund events a RefundEvent, chargeback events a
// ChargebackEvent; webhook-endpoint-changed v1 and v2 have the same fields).
export type {
  ChargebackSnapshot,
  ChargePaidV2,
  ChargeSnapshot,
  EventEnvelope,
  EventMap,
  KycStatus,
  ReceivableSnapshot,
  RefundSnapshot,
  SettlementSnapshot,
  SplitAllocation,
} from './events.generated';
export type {
  AnticipationExecutedV1 as AnticipationExecuted,
  AnticipationItem as AnticipationItemSnapshot,
  BalanceMovedV1 as BalanceMoved,
} from './events.generated';
export type {
  ChargeAuthorizedV1 as ChargeEvent,
  ChargebackLostV1 as ChargebackEvent,
  RefundFailedV1 as RefundEvent,
} from './events.generated';
export type {
  PricingPlanChangedV1 as PricingPlanChanged,
  SellerChangedV1 as SellerChanged,
  TenantChangedV1 as TenantChanged,
} from './events.generated';
export type {
  ReceivableChangedV1 as ReceivableChanged,
  SettlementChangedV1 as SettlementChanged,
  WebhookEndpointChangedV1 as WebhookEndpointChanged,
} from './events.generated';

export type EventType = keyof EventMap;

/**
 * Topics are per aggregate stream, not per event type: all events of one charge (created, paid,
 * refunded, charged back) share a topic and a key, so they are consumed in the order they happened.
 */
export const TOPICS = {
  directory: 'gateway.directory',
  /**
   * Webhook endpoints with their signing secrets (gateway.webhook-endpoint-changed.v2), keyed by tenant id:
   * only the webhooks service consumes it, so no other service ever receives a secret.
   */
  webhookEndpoints: 'gateway.webhook-endpoints',
  /** Every event of a charge, its refunds and chargebacks, keyed by charge id. */
  charges: 'charges.charges',
  /** Every receivable, settlement and balance movement of a seller, keyed by seller id. */
  receivables: 'receivables.sellers',
  /** Every anticipation of a seller, keyed by seller id. */
  anticipation: 'anticipation.sellers',
} as const;

/**
 * The state streams, compacted: a consumer that starts from the beginning (a new service, a replica that
 * rebuilds its copy) finds the last message of each directory entity however old, and nothing older. Their
 * keys are `<tenant id>/<entity id>` (a tenant's own event: its id): one tenant's changes stay in order on one partition (a plan before the
 * seller that overrides to it), and compaction keeps the last change of each entity.
 */
export const COMPACTED_TOPICS: readonly string[] = [TOPICS.directory, TOPICS.webhookEndpoints];

/** The key of a directory event: its tenant orders it, its entity is what compaction keeps the last of. */
export const directoryKey = (tenantId: string, entityId: string): string =>
  `${tenantId}/${entityId}`;

export const EVENT_TOPICS: { [K in EventType]: string } = {
  'gateway.tenant-changed.v1': TOPICS.directory,
  'gateway.seller-changed.v1': TOPICS.directory,
  'gateway.pricing-plan-changed.v1': TOPICS.directory,
  'gateway.webhook-endpoint-changed.v1': TOPICS.directory,
  'gateway.webhook-endpoint-changed.v2': TOPICS.webhookEndpoints,
  'charges.charge-created.v1': TOPICS.charges,
  'charges.charge-authorized.v1': TOPICS.charges,
  'charges.charge-paid.v1': TOPICS.charges,
  'charges.charge-paid.v2': TOPICS.charges,
  'charges.charge-refused.v1': TOPICS.charges,
  'charges.charge-failed.v1': TOPICS.charges,
  'charges.charge-canceled.v1': TOPICS.charges,
  'charges.charge-refunded.v1': TOPICS.charges,
  'charges.charge-partially-refunded.v1': TOPICS.charges,
  'charges.charge-charged-back.v1': TOPICS.charges,
  'charges.refund-succeeded.v1': TOPICS.charges,
  'charges.refund-failed.v1': TOPICS.charges,
  'charges.chargeback-opened.v1': TOPICS.charges,
  'charges.chargeback-won.v1': TOPICS.charges,
  'charges.chargeback-lost.v1': TOPICS.charges,
  'receivables.receivable-changed.v1': TOPICS.receivables,
  'receivables.settlement-changed.v1': TOPICS.receivables,
  'receivables.balance-moved.v1': TOPICS.receivables,
  'anticipation.anticipation-executed.v1': TOPICS.anticipation,
};

/** `evt_` + 24 unbiased base62 characters (@pgw/domain's one generator). */
export function newEventId(): string {
  return newId('evt_');
}

export interface EnvelopeInput {
  producer: string;
  tenantId: string | null;
  livemode: boolean | null;
  requestId?: string | null;
  occurredAtMs?: number;
}

export function newEnvelope(eventType: EventType, input: EnvelopeInput): EventEnvelope {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return {
    event_id: newEventId(),
    event_type: eventType,
    occurred_at: input.occurredAtMs ?? Date.now(),
    producer: input.producer,
    tenant_id: input.tenantId,
    livemode: input.livemode,
    request_id: input.requestId ?? null,
    traceparent: carrier.traceparent ?? null,
  };
}

/** Avro-encodes an event; an event that does not match its schema is a bug and throws. */
export function encodeEvent<K extends EventType>(type: K, event: EventMap[K]): Buffer {
  return eventTypeSchema(type).toBuffer(event);
}

/**
 * Reads a plain Avro body in this build's schema of its type. A body in the wire format (magic byte 0: see
 * wire.ts) that reaches it was not readable through the registry, and is refused rather than misread: a
 * plain body never starts with 0, which would be an empty event id.
 */
export function decodeEvent<K extends EventType>(type: K, payload: Buffer): EventMap[K] {
  if (payload[0] === 0) {
    throw new Error(
      `a ${type} message in the wire format (schema id ${payload.length >= 5 ? payload.readUInt32BE(1) : '?'}) that its schema registry could not read`,
    );
  }
  return eventTypeSchema(type).fromBuffer(payload) as EventMap[K];
}

export function isEventType(value: string | undefined): value is EventType {
  return value !== undefined && Object.prototype.hasOwnProperty.call(EVENT_TOPICS, value);
}

/** The outbox row of an event: its topic, its ordering key, its id and its Avro bytes. */
export function outboxMessage<K extends EventType>(type: K, key: string, event: EventMap[K]) {
  return {
    topic: EVENT_TOPICS[type],
    key,
    eventId: event.envelope.event_id,
    eventType: type,
    payload: encodeEvent(type, event),
  };
}
