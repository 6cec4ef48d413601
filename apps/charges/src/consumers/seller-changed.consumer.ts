import { directoryConsumer } from '@pgw/platform-directory';
import type { Clock, ConsumerDefinition } from '@pgw/platform-service';
import { upsertSeller } from '../data/seller.repository';

/**
 * Charges' copy of the directory's sellers, so that split recipients and the KYC of a card charge's owner
 * under a tenant-wide key are checked without reading the gateway's tables. The directory topic also carries tenants, plans and endpoints: skipped.
 */
export function sellerChangedConsumer(clock: Clock): ConsumerDefinition {
  return directoryConsumer(clock, { 'gateway.seller-changed.v1': upsertSeller });
}
