import type { FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import {
  notFound,
  Nullable,
  PagingQuery,
  RequestIdSchema,
  requireOperator,
} from '@pgw/platform-http';
import type { Attempt, Delivery } from '../data/deliveries.repository';

const Instant = Type.String({ format: 'date-time' });
const DeliveryStatusSchema = Type.Union([
  Type.Literal('pending'),
  Type.Literal('succeeded'),
  Type.Literal('failed'),
]);

/** Path ids are checked by pattern in the handler, so a malformed id is a 404 like an unknown one. */
export const IdParams = Type.Object({ id: Type.String({ maxLength: 255 }) });

/** An operator route's path id: the operator is checked first, then the id's pattern (404 for `what`). */
export function operatorPathId(
  request: FastifyRequest & { params: { id: string } },
  pattern: RegExp,
  what: string,
): string {
  requireOperator(request);
  const { id } = request.params;
  if (!pattern.test(id)) throw notFound(what);
  return id;
}

export const DeliveriesQuery = Type.Object({
  ...PagingQuery,
  status: Type.Optional(DeliveryStatusSchema),
});

const deliveryFields = {
  object: Type.Literal('webhook_delivery'),
  id: Type.String(),
  webhook_endpoint_id: Type.String(),
  event_id: Type.String(),
  event_type: Type.String(),
  livemode: Type.Boolean(),
  status: DeliveryStatusSchema,
  attempt_count: Type.Integer({ minimum: 0 }),
  next_attempt_at: Nullable(Instant),
  last_status_code: Nullable(Type.Integer()),
  last_error: Nullable(Type.String()),
  delivered_at: Nullable(Instant),
  created_at: Instant,
  updated_at: Instant,
};

export const DeliveryItem = Type.Object(deliveryFields);

export const DeliveryBody = Type.Object({ ...deliveryFields, request_id: RequestIdSchema });

export const AttemptItem = Type.Object({
  object: Type.Literal('webhook_attempt'),
  number: Type.Integer({ minimum: 1 }),
  started_at: Instant,
  latency_ms: Type.Integer({ minimum: 0 }),
  status_code: Nullable(Type.Integer()),
  response_excerpt: Nullable(Type.String()),
  error: Nullable(Type.String()),
  succeeded: Type.Boolean(),
});

export const DeliveryWithAttemptsBody = Type.Object({
  ...deliveryFields,
  /** The event exactly as it is sent (contract §7 body). */
  event: Type.Unknown(),
  attempts: Type.Array(AttemptItem),
  request_id: RequestIdSchema,
});

export const RotatedSecretBody = Type.Object({
  object: Type.Literal('webhook_endpoint'),
  id: Type.String(),
  tenant_id: Type.String(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  livemode: Type.Boolean(),
  /** The new signing secret, shown this once. */
  secret: Type.String(),
  /** Until then the previous secret signs too (a second v1= in X-Signature). */
  previous_secret_expires_at: Instant,
  request_id: RequestIdSchema,
});

const iso = (date: Date | null): string | null => (date === null ? null : date.toISOString());

export function deliveryResource(d: Delivery) {
  return {
    object: 'webhook_delivery' as const,
    id: d.id,
    webhook_endpoint_id: d.endpointId,
    event_id: d.eventId,
    event_type: d.eventType,
    livemode: d.livemode,
    status: d.status,
    attempt_count: d.attemptCount,
    next_attempt_at: iso(d.nextAttemptAt),
    last_status_code: d.lastStatusCode,
    last_error: d.lastError,
    delivered_at: iso(d.deliveredAt),
    created_at: d.createdAt.toISOString(),
    updated_at: d.updatedAt.toISOString(),
  };
}

export function attemptResource(a: Attempt) {
  return {
    object: 'webhook_attempt' as const,
    number: a.number,
    started_at: a.startedAt.toISOString(),
    latency_ms: a.latencyMs,
    status_code: a.statusCode,
    response_excerpt: a.responseExcerpt,
    error: a.error,
    succeeded: a.succeeded,
  };
}
