import { decodeEvent, TOPICS, type EventMap } from '@pgw/contracts';
import { newId } from '@pgw/domain';
import { HEADER_EVENT_TYPE, type BusMessage } from '@pgw/platform-bus';
import type { Db, Tx } from '@pgw/platform-db';
import type { Clock, ConsumerDefinition } from '@pgw/platform-service';
import {
  insertReceivables,
  saveReceivable,
  toReceivable,
  type Receivable,
} from '../data/receivables.repository';
import { announceReceivable, changed } from '../operations/announce';
import { Work } from '../operations/context';
import { MoneyOperation, type CounterChange } from '../operations/money-operation';

type Executed = EventMap['anticipation.anticipation-executed.v1'];

/**
 * The anticipation service's executions (receivable-states.md, "Anticipation"): in one MoneyOperation of
 * type anticipation.executed, each original becomes `anticipated` and a new `available` receivable for
 * the item's net appears, due on the execution day; the seller's pending goes down by the originals' net,
 * the available up by the items' net, and the fee is booked. The ledger books it from the movement.
 */
export function anticipationConsumer(db: Db, clock: Clock): ConsumerDefinition {
  return {
    name: 'anticipation',
    topics: [TOPICS.anticipation],
    apply: async (trx: Tx, message: BusMessage) => {
      const type = message.headers[HEADER_EVENT_TYPE];
      if (type !== 'anticipation.anticipation-executed.v1') return;
      const event = decodeEvent(type, message.value);
      const {
        tenant_id: tenantId,
        livemode,
        request_id: requestId,
        event_id: eventId,
      } = event.envelope;
      // An anticipation outside a tenant or an environment cannot be placed: a producer bug, not a value to guess.
      if (tenantId === null || livemode === null)
        throw new Error(`anticipation event ${eventId} has no tenant or environment`);
      const work = new Work(db, trx, clock, requestId);
      await applyAnticipation(work, tenantId, livemode, event);
      await work.flush();
    },
  };
}

async function applyAnticipation(
  work: Work,
  tenantId: string,
  livemode: boolean,
  event: Executed,
): Promise<void> {
  const sellerId = event.seller_id;
  const op = new MoneyOperation(work, tenantId, livemode, 'anticipation.executed', {
    anticipationId: event.anticipation_id,
  });
  await op.lock([sellerId]);
  const ids = event.items.map((i) => i.receivable_id);
  const rows = (await work
    .trx('receivables')
    .whereIn('id', ids)
    .orderBy('seq')
    .forUpdate()) as Array<Record<string, unknown>>;
  const originals = new Map(rows.map((row) => [String(row.id), toReceivable(row)]));
  // The inbox drops a redelivered event; this guards the same anticipation arriving under another event id.
  if ([...originals.values()].some((r) => r.anticipationId === event.anticipation_id)) return;

  const created: Receivable[] = [];
  for (const item of event.items) {
    const r = originals.get(item.receivable_id);
    // The anticipation service only knows receivables from our own events: an unknown or foreign one is a bug.
    if (r === undefined)
      throw new Error(
        `anticipation ${event.anticipation_id} names unknown receivable ${item.receivable_id}`,
      );
    if (r.tenantId !== tenantId || r.livemode !== livemode || r.sellerId !== sellerId) {
      throw new Error(
        `anticipation ${event.anticipation_id} names receivable ${r.id} of another tenant, environment or seller`,
      );
    }
    // What the seller was still owed for the original, and from which bucket. The anticipation priced
    // the copy it had; a refund, a release or a payout may have reached the original since. The seller
    // is paid the item's net regardless (the treasury paid it), so any difference between the item's
    // gross and what was still owed becomes debt (or a credit), and the movement balances exactly.
    const change: CounterChange = {
      receivablesAvailableCents: item.net_amount_cents,
      feeDeltaCents: item.fee_amount_cents,
    };
    let claimCents = 0;
    if (
      r.anticipationId === null &&
      (r.status === 'pending' || (r.status === 'available' && r.settlementId === null))
    ) {
      claimCents = r.netCents;
      if (r.status === 'pending') change.pendingCents = -claimCents;
      else change.receivablesAvailableCents = item.net_amount_cents - claimCents;
      const next = changed(r, work.now, {
        status: 'anticipated',
        anticipationId: event.anticipation_id,
      });
      await saveReceivable(work.trx, next);
      announceReceivable(work, next, r.status, 'anticipated');
    }
    change.debtCents = item.gross_amount_cents - claimCents;
    op.change(sellerId, change);
    created.push({
      id: newId('recv_'),
      tenantId,
      livemode,
      chargeId: r.chargeId,
      sellerId,
      paymentMethod: r.paymentMethod,
      installment: r.installment,
      installments: r.installments,
      // The new receivable is the item's net, already the seller's: no MDR on it (that stays on the original).
      grossCents: item.net_amount_cents,
      feeCents: 0,
      netCents: item.net_amount_cents,
      mdrBps: 0,
      debitedGrossCents: 0,
      dueDate: event.executed_on,
      originalDueDate: r.originalDueDate,
      status: 'available',
      anticipationId: event.anticipation_id,
      settlementId: null,
      version: 1,
      createdAt: work.now,
      updatedAt: work.now,
    });
  }
  await insertReceivables(work.trx, created);
  for (const r of created) announceReceivable(work, r, null, 'created');
  await op.finish();
}
