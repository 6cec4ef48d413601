import type { EventMap } from '@pgw/contracts';
import type { Tx } from '@pgw/platform-db';
import { directoryConsumer as directoryCopy } from '@pgw/platform-directory';
import type { Clock, ConsumerDefinition } from '@pgw/platform-service';
import { SECRET_OVERLAP_MS } from '../config';
import { applyEndpointChange } from '../data/endpoints.repository';

/**
 * The webhooks service's copy of each tenant's endpoints; tenants, sellers and pricing plans are skipped.
 * v2 comes on gateway.webhook-endpoints, which only this service consumes (the secret reaches no other
 * service); v1 came on gateway.directory and is still applied, so endpoints announced before stay known.
 */
export function directoryConsumer(clock: Clock): ConsumerDefinition {
  const apply = (trx: Tx, event: EventMap['gateway.webhook-endpoint-changed.v2'], now: Date) =>
    applyEndpointChange(
      trx,
      {
        id: event.webhook_endpoint_id,
        tenantId: event.tenant_id,
        url: event.url,
        events: [...event.events],
        livemode: event.livemode,
        version: event.version,
        secret: event.secret,
      },
      now,
      SECRET_OVERLAP_MS,
    );
  return directoryCopy(clock, {
    'gateway.webhook-endpoint-changed.v1': apply,
    'gateway.webhook-endpoint-changed.v2': apply,
  });
}
