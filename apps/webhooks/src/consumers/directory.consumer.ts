import { decodeEvent, TOPICS } from '@pgw/contracts';
import { HEADER_EVENT_TYPE } from '@pgw/platform-bus';
import type { Clock, ConsumerDefinition } from '@pgw/platform-service';
import { SECRET_OVERLAP_MS } from '../config';
import { applyEndpointChange } from '../data/endpoints.repository';

const ENDPOINT_CHANGED = 'gateway.webhook-endpoint-changed.v1';

/** The webhooks service's copy of each tenant's endpoints; tenants, sellers and pricing plans are skipped. */
export function directoryConsumer(clock: Clock): ConsumerDefinition {
  return {
    name: 'directory',
    topics: [TOPICS.directory],
    async apply(trx, message) {
      if (message.headers[HEADER_EVENT_TYPE] !== ENDPOINT_CHANGED) return;
      const event = decodeEvent(ENDPOINT_CHANGED, message.value);
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
