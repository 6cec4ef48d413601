import { randomBytes } from 'node:crypto';
import { context, propagation } from '@opentelemetry/api';
import { eventTypeSchema } from './registry';

export interface EventEnvelope {
  event_id: string;
  event_type: string;
  occurred_at: number;
  producer: string;
  tenant_id: string | null;
  livemode: boolean | null;
  request_id: string | null;
  traceparent: string | null;
}

export interface TenantChanged {
  envelope: EventEnvelope;
  tenant_id: string;
  name: string;
  treasury_available_cash_cents: number;
  version: number;
}

export type KycStatus = 'pending' | 'approved' | 'rejected';

export interface SellerChanged {
  envelope: EventEnvelope;
  seller_id: string;
  tenant_id: string;
  name: string;
  kyc_status: KycStatus;
  anticipation_limit_cents: number;
  fee_bps_per_month: number;
  settlement_delay_days: number;
  mdr_bps: Record<string, number>;
  pricing_plan_id: string | null;
  version: number;
}

export interface PricingPlanChanged {
  envelope: EventEnvelope;
  pricing_plan_id: string;
  tenant_id: string;
  name: string;
  fee_bps_per_month: number;
  settlement_delay_days: number;
  mdr_bps: Record<string, number>;
  is_default: boolean;
  version: number;
}

export interface SplitAllocation {
  recipient_seller_id: string;
  amount_cents: number;
}

/** The charge after the change; the same record in every charges event. */
export interface ChargeSnapshot {
  charge_id: string;
  seller_id: string | null;
  status: string;
  amount_cents: number;
  currency: string;
  payment_method: string;
  capture_method: string;
  installments: number;
  captured: boolean;
  paid_at: number | null;
  refunded_cents: number;
  chargeback_cents: number;
  split: SplitAllocation[];
  created_at: number;
  updated_at: number;
}

export interface RefundSnapshot {
  refund_id: string;
  status: string;
  amount_cents: number;
  reason: string | null;
  succeeded_at: number | null;
  created_at: number;
}

export interface ChargebackSnapshot {
  chargeback_id: string;
  status: string;
  amount_cents: number;
  reason_code: string | null;
  opened_at: number;
  resolved_at: number | null;
}

export interface ChargeEvent {
  envelope: EventEnvelope;
  charge: ChargeSnapshot;
  /** The API resource as integrators see it, JSON: the webhook's data.object. */
  resource_json: string;
}

/** charges.charge-paid.v2: v1 and what a card charge was paid with (both null for Pix and boleto). */
export interface ChargePaidV2 extends ChargeEvent {
  brand: string | null;
  authorization_code: string | null;
}

export interface RefundEvent extends ChargeEvent {
  refund: RefundSnapshot;
}

export interface ChargebackEvent extends ChargeEvent {
  chargeback: ChargebackSnapshot;
}

export interface WebhookEndpointChanged {
  envelope: EventEnvelope;
  webhook_endpoint_id: string;
  tenant_id: string;
  url: string;
  /** Event kinds of contract §7; ['*'] means every kind. */
  events: string[];
  secret: string;
  livemode: boolean;
  version: number;
}

/** A receivable after the change (receivables service). Dates are YYYY-MM-DD, instants Unix milliseconds. */
export interface ReceivableSnapshot {
  receivable_id: string;
  seller_id: string;
  charge_id: string;
  payment_method: string;
  installment: number;
  installments: number;
  gross_amount_cents: number;
  fee_amount_cents: number;
  net_amount_cents: number;
  mdr_bps: number;
  debited_gross_cents: number;
  due_date: string;
  original_due_date: string;
  status: string;
  anticipation_id: string | null;
  settlement_id: string | null;
  created_at: number;
  updated_at: number;
  version: number;
}

export interface ReceivableChanged {
  envelope: EventEnvelope;
  receivable: ReceivableSnapshot;
  previous_status: string | null;
  reason: string;
}

export interface SettlementSnapshot {
  settlement_id: string;
  seller_id: string;
  status: string;
  amount_cents: number;
  receivables_net_cents: number;
  debt_cents: number;
  receivable_count: number;
  settlement_date: string;
  paid_at: number | null;
  created_at: number;
  updated_at: number;
  version: number;
}

export interface SettlementChanged {
  envelope: EventEnvelope;
  settlement: SettlementSnapshot;
  previous_status: string | null;
  resource_json: string;
}

/** One seller's money moved (signed cents); the ledger books it as one balanced journal entry. */
export interface BalanceMoved {
  envelope: EventEnvelope;
  seller_id: string;
  type: string;
  charge_id: string | null;
  settlement_id: string | null;
  anticipation_id: string | null;
  pending_delta_cents: number;
  available_delta_cents: number;
  reserved_delta_cents: number;
  debt_delta_cents: number;
  fee_delta_cents: number;
  gross_delta_cents: number;
  paid_out_cents: number;
}

/** One receivable an anticipation took: the original's id, and the item of contract §4 it priced. */
export interface AnticipationItemSnapshot {
  receivable_id: string;
  charge_id: string;
  /** YYYY-MM-DD: the original's due date. */
  due_date: string;
  receivable_version: number;
  days_anticipated: number;
  /** The original receivable's net amount. */
  gross_amount_cents: number;
  fee_amount_cents: number;
  net_amount_cents: number;
}

/** An anticipation was executed (anticipation service); keyed by seller id. */
export interface AnticipationExecuted {
  envelope: EventEnvelope;
  anticipation_id: string;
  seller_id: string;
  status: string;
  /** YYYY-MM-DD: the execution day; the new available receivables are due on it. */
  executed_on: string;
  gross_amount_cents: number;
  fee_amount_cents: number;
  net_amount_cents: number;
  fee_bps_per_month: number;
  settlement_delay_days: number;
  pricing_plan_id: string | null;
  items: AnticipationItemSnapshot[];
  created_at: number;
  /** The API resource as integrators see it, JSON: the webhook's data.object. */
  resource_json: string;
}

/** Every event type, with the TypeScript shape of its Avro record. Add a line with each new schema file. */
export interface EventMap {
  'gateway.tenant-changed.v1': TenantChanged;
  'gateway.seller-changed.v1': SellerChanged;
  'gateway.pricing-plan-changed.v1': PricingPlanChanged;
  'gateway.webhook-endpoint-changed.v1': WebhookEndpointChanged;
  'gateway.webhook-endpoint-changed.v2': WebhookEndpointChanged;
  'charges.charge-created.v1': ChargeEvent;
  'charges.charge-authorized.v1': ChargeEvent;
  'charges.charge-paid.v1': ChargeEvent;
  'charges.charge-paid.v2': ChargePaidV2;
  'charges.charge-refused.v1': ChargeEvent;
  'charges.charge-failed.v1': ChargeEvent;
  'charges.charge-canceled.v1': ChargeEvent;
  'charges.charge-refunded.v1': ChargeEvent;
  'charges.charge-partially-refunded.v1': ChargeEvent;
  'charges.charge-charged-back.v1': ChargeEvent;
  'charges.refund-succeeded.v1': RefundEvent;
  'charges.refund-failed.v1': RefundEvent;
  'charges.chargeback-opened.v1': ChargebackEvent;
  'charges.chargeback-won.v1': ChargebackEvent;
  'charges.chargeback-lost.v1': ChargebackEvent;
  'receivables.receivable-changed.v1': ReceivableChanged;
  'receivables.settlement-changed.v1': SettlementChanged;
  'receivables.balance-moved.v1': BalanceMoved;
  'anticipation.anticipation-executed.v1': AnticipationExecuted;
}

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
export const directoryKey = (tenantId: string, entityId: string): string => `${tenantId}/${entityId}`;

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

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export function newEventId(): string {
  let out = 'evt_';
  for (const byte of randomBytes(24)) out += ALPHABET[byte % 62];
  return out;
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
    throw new Error(`a ${type} message in the wire format (schema id ${payload.length >= 5 ? payload.readUInt32BE(1) : '?'}) that its schema registry could not read`);
  }
  return eventTypeSchema(type).fromBuffer(payload) as EventMap[K];
}

export function isEventType(value: string | undefined): value is EventType {
  return value !== undefined && Object.prototype.hasOwnProperty.call(EVENT_TOPICS, value);
}

/** The outbox row of an event: its topic, its ordering key, its id and its Avro bytes. */
export function outboxMessage<K extends EventType>(type: K, key: string, event: EventMap[K]) {
  return { topic: EVENT_TOPICS[type], key, eventId: event.envelope.event_id, eventType: type, payload: encodeEvent(type, event) };
}
