import { decodeEvent, TOPICS } from '@pgw/contracts';
import { HEADER_EVENT_TYPE } from '@pgw/platform-bus';
import type { Clock, ConsumerDefinition } from '@pgw/platform-service';
import { upsertSeller } from '../data/seller.repository';

const SELLER_CHANGED = 'gateway.seller-changed.v1';

/**
 * Charges' copy of the directory's sellers, so that split recipients and the KYC of a card charge's owner
 * under a tenant-wide key are checked without reading the gateway's tables. The directory topic also carries tenants, plans and endpoints: skipped.
 */
export function sellerChangedConsumer(clock: Clock): ConsumerDefinition {
  return {
    name: 'directory',
    topics: [TOPICS.directory],
    async apply(trx, message) {
      if (message.headers[HEADER_EVENT_TYPE] !== SELLER_CHANGED) return;
      const event = decodeEvent(SELLER_CHANGED, message.value);
      await upsertSeller(trx, { sellerId: event.seller_id, tenantId: event.tenant_id, kycStatus: event.kyc_status, version: Number(event.version) }, clock.now());
    },
  };
}
