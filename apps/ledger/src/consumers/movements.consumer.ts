import { decodeEvent, TOPICS } from '@pgw/contracts';
import { HEADER_EVENT_TYPE, type BusMessage } from '@pgw/platform-bus';
import type { Tx } from '@pgw/platform-db';
import type { Clock, ConsumerDefinition } from '@pgw/platform-service';
import { bookAtCommit } from '../data/journal.repository';
import {
  LedgerInvariantError,
  postingsFor,
  sellerEffect,
  type Movement,
} from '@pgw/ledger-domain/postings';

/**
 * Books every balance movement of the receivables service as one journal entry. Movements are deltas,
 * so they commute: a late one lands in its place in the history (ordered by when it happened) and the
 * balances come out the same. The inbox drops a redelivered event; the entry's source_event_id would too.
 */
export function movementsConsumer(clock: Clock): ConsumerDefinition {
  return {
    name: 'movements',
    topics: [TOPICS.receivables],
    // It reads nothing: a batch of new movements is one statement with the inbox's ids, no transaction.
    writesOnly: true,
    apply: async (trx: Tx, message: BusMessage) => {
      const type = message.headers[HEADER_EVENT_TYPE];
      if (type !== 'receivables.balance-moved.v1') return; // receivable and settlement snapshots: not money
      const event = decodeEvent(type, message.value);
      const { envelope } = event;
      if (envelope.tenant_id === null || envelope.livemode === null)
        throw new LedgerInvariantError(
          `movement ${envelope.event_id} has no tenant or environment`,
        );
      const movement: Movement = {
        sellerId: event.seller_id,
        pendingDeltaCents: event.pending_delta_cents,
        availableDeltaCents: event.available_delta_cents,
        reservedDeltaCents: event.reserved_delta_cents,
        debtDeltaCents: event.debt_delta_cents,
        feeDeltaCents: event.fee_delta_cents,
        grossDeltaCents: event.gross_delta_cents,
        paidOutCents: event.paid_out_cents,
      };
      const postings = postingsFor(movement); // throws when the movement does not balance
      const entry = {
        sourceEventId: envelope.event_id,
        tenantId: envelope.tenant_id,
        livemode: envelope.livemode,
        sellerId: event.seller_id,
        type: event.type,
        chargeId: event.charge_id,
        settlementId: event.settlement_id,
        anticipationId: event.anticipation_id,
        sellerEffectCents: sellerEffect(movement),
        createdAt: new Date(envelope.occurred_at),
        postings,
      };
      bookAtCommit(trx, entry, () => clock.now());
    },
  };
}
