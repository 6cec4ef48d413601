// A charge's history (GET /charges/{id}/events): every event announce.ts writes into the outbox is also
// kept in charge_events, in the same transaction, under the event's id and the webhook kind contract §7
// names it by — what the integrator's endpoint receives for the same change.
import type { EventEnvelope } from '@pgw/contracts';
import type { Tx } from '@pgw/platform-db';
import type { ChargeRow } from '../data/charge.repository';
import { insertChargeEvents } from '../data/charge-event.repository';
import { KIND_OF_EVENT, type HistoryEventType } from '../charge-event-kinds';

/** What a refund's or chargeback's event is about: its id and amount (a charge's own event names neither). */
export type Subject =
  { refundId: string; amountCents: number } | { chargebackId: string; amountCents: number } | null;

/** Keeps each event (`envelope` of `type` about `charge`, as it is after the change) in its history. */
export function recordChargeEvents(
  trx: Tx,
  events: Array<{
    type: HistoryEventType;
    envelope: EventEnvelope;
    charge: ChargeRow;
    subject: Subject;
  }>,
): void {
  insertChargeEvents(
    trx,
    events.map(({ type, envelope, charge, subject }) => ({
      id: envelope.event_id,
      charge_id: charge.id,
      tenant_id: charge.tenant_id,
      livemode: charge.livemode,
      type: KIND_OF_EVENT[type],
      charge_status: charge.status,
      refund_id: subject !== null && 'refundId' in subject ? subject.refundId : null,
      chargeback_id: subject !== null && 'chargebackId' in subject ? subject.chargebackId : null,
      amount_cents: subject === null ? charge.amount_cents : subject.amountCents,
      created_at: new Date(Number(envelope.occurred_at)),
    })),
  );
}
