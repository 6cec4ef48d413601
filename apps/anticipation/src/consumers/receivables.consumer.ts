import { decodeEvent, TOPICS } from '@pgw/contracts';
import { HEADER_EVENT_TYPE, type BusMessage } from '@pgw/platform-bus';
import type { Tx } from '@pgw/platform-db';
import type { ConsumerDefinition } from '@pgw/platform-service';
import { upsertReceivable } from '../data/receivables.repository';

/**
 * The local copy of every receivable (receivable-changed carries its whole state and version), from
 * which simulation and execution pick the eligible ones. Settlements and balance movements on the same
 * topic are not ours.
 */
export function receivablesConsumer(): ConsumerDefinition {
  return {
    name: 'receivables',
    topics: [TOPICS.receivables],
    // The copy is written at commit (upsertReceivable) and nothing is read: a batch is one statement.
    writesOnly: true,
    apply: async (trx: Tx, message: BusMessage) => {
      const type = message.headers[HEADER_EVENT_TYPE];
      if (type !== 'receivables.receivable-changed.v1') return;
      const event = decodeEvent(type, message.value);
      const { tenant_id: tenantId, livemode } = event.envelope;
      // A receivable outside a tenant or an environment cannot be scoped: a producer bug, not a value to guess.
      if (tenantId === null || livemode === null)
        throw new Error(`receivable event ${event.envelope.event_id} has no tenant or environment`);
      upsertReceivable(trx, tenantId, livemode, event.receivable);
    },
  };
}
