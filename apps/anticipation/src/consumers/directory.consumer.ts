import { directoryConsumer as directoryCopy } from '@pgw/platform-directory';
import type { Clock, ConsumerDefinition } from '@pgw/platform-service';
import { upsertPlan, upsertSeller, upsertTenant } from '../data/directory.repository';

/**
 * Local copies of the gateway's directory (highest version wins): the tenant's treasury cash, the
 * seller's limit, price, D+N and override plan, and the tenant's plans (which one is the default).
 * Webhook endpoints: not ours.
 */
export function directoryConsumer(clock: Clock): ConsumerDefinition {
  return directoryCopy(clock, {
    'gateway.tenant-changed.v1': upsertTenant,
    'gateway.seller-changed.v1': upsertSeller,
    'gateway.pricing-plan-changed.v1': upsertPlan,
  });
}
