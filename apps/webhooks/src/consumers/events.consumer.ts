import { assert } from '@pgw/domain';
import { decodeEvent, isEventType, type WebhookKind } from '@pgw/contracts';
import { HEADER_EVENT_TYPE, type BusMessage, type Prepare } from '@pgw/platform-bus';
import { afterCommit } from '@pgw/platform-db';
import type { Clock, ConsumerDefinition } from '@pgw/platform-service';
import { RETRY_WINDOW_MS } from '../config';
import { recordEvent, type NewEvent } from '../data/deliveries.repository';
import { endpointsKey, endpointsOf } from '../data/endpoints.repository';
import { eventBody } from '@pgw/webhooks-domain/event-body';
import { endpointWants, webhookKindOf, webhookTopics } from './event-kinds';

/**
 * Every topic with webhook kinds: for each event that is one, the body of contract §7 and one pending
 * delivery per endpoint of the event's tenant and environment that wants the kind, written with the inbox's
 * ids (writesOnly). The endpoints of a batch's events are read once, before (`prepare`). A test event never
 * reaches a live endpoint, nor a live event a test one.
 */
export function eventsConsumer(clock: Clock, onDeliveries: () => void): ConsumerDefinition {
  const prepare: Prepare = async (q, batch) => {
    const events = new Map(batch.map((m) => [m, webhookEventOf(m)]));
    const scopes = new Map<string, { tenantId: string; livemode: boolean }>();
    for (const event of events.values()) if (event !== null) scopes.set(endpointsKey(event), event);
    const endpoints = await endpointsOf(q, [...scopes.values()]);
    return async (unit, message) => {
      const event = events.get(message);
      assert(event !== undefined, 'webhooks.applies-a-prepared-message');
      if (event === null) return;
      const wanted = (endpoints.get(endpointsKey(event)) ?? []).filter((e) =>
        endpointWants(e.events, event.kind),
      );
      if (wanted.length === 0) return;
      const now = clock.now();
      recordEvent(
        unit,
        { ...event, body: event.body() },
        wanted.map((e) => e.id),
        now,
        new Date(now.getTime() + RETRY_WINDOW_MS),
      );
      afterCommit(unit, onDeliveries);
    };
  };
  return {
    name: 'events',
    topics: webhookTopics(),
    writesOnly: true,
    prepare,
    async apply(trx, message) {
      await (
        await prepare(trx, [message])
      )(trx, message);
    },
  };
}

/** A webhook event; its body of contract §7 is made only for an event some endpoint wants. */
type WebhookEvent = Omit<NewEvent, 'body'> & { kind: WebhookKind; body(): string };

/** The webhook event a message makes, or null: its type has no webhook kind, or it is outside any tenant. */
function webhookEventOf(message: BusMessage): WebhookEvent | null {
  const eventType = message.headers[HEADER_EVENT_TYPE];
  // A type this build does not know never gets here: the service parks it before apply (issue 17 item 3).
  assert(isEventType(eventType), 'webhooks.event-type-known-at-apply', {
    event_type: eventType ?? null,
  });
  const event = decodeEvent(eventType, message.value);
  const kind = webhookKindOf(eventType, event);
  if (kind === null) return null;
  const { envelope } = event;
  const { livemode } = envelope;
  // Events outside any tenant or environment are no integrator's business.
  if (envelope.tenant_id === null || livemode === null) return null;
  // Every event type with a kind carries the API resource; one without is a bug in the kinds table.
  assert('resource_json' in event, 'webhooks.kind-has-resource', { event_type: eventType });
  return {
    eventId: envelope.event_id,
    tenantId: envelope.tenant_id,
    livemode,
    kind,
    sourceType: eventType,
    resourceKey: message.key,
    body: () =>
      eventBody({
        eventId: envelope.event_id,
        kind,
        occurredAtMs: Number(envelope.occurred_at),
        livemode,
        resource: JSON.parse(event.resource_json) as unknown,
        requestId: envelope.request_id,
      }),
  };
}
