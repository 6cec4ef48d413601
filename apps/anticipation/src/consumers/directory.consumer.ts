import { decodeEvent, TOPICS } from '@pgw/contracts';
import { HEADER_EVENT_TYPE, type BusMessage } from '@pgw/platform-bus';
import type { Tx } from '@pgw/platform-db';
import type { ConsumerDefinition } from '@pgw/platform-service';
import { upsertPlan, upsertSeller, upsertTenant } from '../data/directory.repository';

/**
 * Local copies of the gateway's directory (highest version wins): the tenant's treasury cash, the
 * seller's limit, price, D+N and override plan, and the tenant's plans (which one is the default).
 */
export function directoryConsumer(): ConsumerDefinition {
  return {
    name: 'directory',
    topics: [TOPICS.directory],
    apply: async (trx: Tx, message: BusMessage) => {
      const type = message.headers[HEADER_EVENT_TYPE];
      switch (type) {
        case 'gateway.tenant-changed.v1':
          return upsertTenant(trx, decodeEvent(type, message.value));
        case 'gateway.seller-changed.v1':
          return upsertSeller(trx, decodeEvent(type, message.value));
        case 'gateway.pricing-plan-changed.v1':
          return upsertPlan(trx, decodeEvent(type, message.value));
        default:
          return; // webhook endpoints: not ours
      }
    },
  };
}
