import { assert } from '@pgw/domain';
import { decodeEvent, isEventType } from '@pgw/contracts';
import { HEADER_EVENT_TYPE } from '@pgw/platform-bus';
import { afterCommit } from '@pgw/platform-db';
import type { Clock, ConsumerDefinition } from '@pgw/platform-service';
import { RETRY_WINDOW_MS } from '../config';
import { recordEvent } from '../data/deliveries.repository';
import { endpointsOf } from '../data/endpoints.repository';
import { eventBody } from '@pgw/webhooks-domain/event-body';
import { endpointWants, webhookKindOf, webhookTopics } from './event-kinds';

/**
 * Every topic with webhook kinds: for each event that is one, in the inbox's transaction, the body of
 * contract §7 and one pending delivery per endpoint of the event's tenant and environment that wants
 * the kind. A test event never reaches a live endpoint, nor a live event a test one.
 */
export function eventsConsumer(clock: Clock, onDeliveries: () => void): ConsumerDefinition {
  return {
    name: 'events',
    topics: webhookTopics(),
    async apply(trx, message) {
      const eventType = message.headers[HEADER_EVENT_TYPE];
      // A type this build does not know never gets here: the service parks it before apply (issue 17 item 3).
      assert(isEventType(eventType), 'webhooks.event-type-known-at-apply', {
        event_type: eventType ?? null,
      });
      const event = decodeEvent(eventType, message.value);
      const kind = webhookKindOf(eventType, event);
      if (kind === null) return;
      const { envelope } = event;
      // Events outside any tenant or environment are no integrator's business.
      if (envelope.tenant_id === null || envelope.livemode === null) return;
      const endpoints = (await endpointsOf(trx, envelope.tenant_id, envelope.livemode)).filter(
        (e) => endpointWants(e.events, kind),
      );
      if (endpoints.length === 0) return;
      // Every event type with a kind carries the API resource; one without is a bug in the kinds table.
      assert('resource_json' in event, 'webhooks.kind-has-resource', { event_type: eventType });
      const now = clock.now();
      await recordEvent(
        trx,
        {
          eventId: envelope.event_id,
          tenantId: envelope.tenant_id,
          livemode: envelope.livemode,
          kind,
          sourceType: eventType,
          resourceKey: message.key,
          body: eventBody({
            eventId: envelope.event_id,
            kind,
            occurredAtMs: Number(envelope.occurred_at),
            livemode: envelope.livemode,
            resource: JSON.parse(event.resource_json) as unknown,
            requestId: envelope.request_id,
          }),
        },
        endpoints.map((e) => e.id),
        now,
        new Date(now.getTime() + RETRY_WINDOW_MS),
      );
      afterCommit(trx, onDeliveries);
    },
  };
}
