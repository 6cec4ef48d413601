import { decodeEvent, TOPICS } from '@pgw/contracts';
import { HEADER_EVENT_TYPE } from '@pgw/platform-bus';
import type { Clock, ConsumerDefinition } from '@pgw/platform-service';
import { SECRET_OVERLAP_MS } from '../config';
import { applyEndpointChange } from '../data/endpoints.repository';

// v2 comes on gateway.webhook-endpoints, which only this service consumes (the secret reaches no other
// service); v1 came on gateway.directory and is still applied, so endpoints announced before stay known.
const ENDPOINT_CHANGED = new Set(['gateway.webhook-endpoint-changed.v1', 'gateway.webhook-endpoint-changed.v2'] as const);
type EndpointChangedType = 'gateway.webhook-endpoint-changed.v1' | 'gateway.webhook-endpoint-changed.v2';

/** The webhooks service's copy of each tenant's endpoints; tenants, sellers and pricing plans are skipped. */
export function directoryConsumer(clock: Clock): ConsumerDefinition {
  return {
    name: 'directory',
    topics: [TOPICS.directory, TOPICS.webhookEndpoints],
    async apply(trx, message) {
      const type = message.headers[HEADER_EVENT_TYPE];
      if (!ENDPOINT_CHANGED.has(type as EndpointChangedType)) return;
      const event = decodeEvent(type as EndpointChangedType, message.value);
      await applyEndpointChange(
        trx,
        {
          id: event.webhook_endpoint_id,
          tenantId: event.tenant_id,
          url: event.url,
          events: [...event.events],
          livemode: event.livemode,
          version: Number(event.version),
          secret: event.secret,
        },
        clock.now(),
        SECRET_OVERLAP_MS,
      );
    },
  };
}
