// Every state change of a charge, refund or chargeback writes its event into the outbox, in the
// transaction that makes the change (ARCHITECTURE: no publish after commit). All of them go to one topic
// keyed by charge id, so receivables, the ledger and webhooks read them in the order they happened.
import { newEnvelope, outboxMessage, type ChargeSnapshot, type EventType } from '@pgw/contracts';
import { enqueue } from '@pgw/platform-bus';
import type { Db, Tx } from '@pgw/platform-db';
import type { ChargeStatus } from '../domain/charge';
import type { ChargeRow } from '../data/charge.repository';
import type { ChargebackRow } from '../data/chargeback.repository';
import type { RefundRow } from '../data/refund.repository';
import { cents, date, msOrNull } from '../data/rows';
import { chargebackResource, chargeResource, readSplit, refundResource } from '../resources';
import { countChargeCreated, countChargeStatus, countRefund } from './charge-metrics';

export const PRODUCER = 'charges';

type ChargeEventType =
  | 'charges.charge-created.v1'
  | 'charges.charge-authorized.v1'
  | 'charges.charge-paid.v2'
  | 'charges.charge-refused.v1'
  | 'charges.charge-failed.v1'
  | 'charges.charge-canceled.v1'
  | 'charges.charge-refunded.v1'
  | 'charges.charge-partially-refunded.v1'
  | 'charges.charge-charged-back.v1';

/** The event a charge's arrival in a status announces; `pending` is announced by charge-created only. */
const EVENT_OF_STATUS: Record<Exclude<ChargeStatus, 'pending'>, ChargeEventType> = {
  authorized: 'charges.charge-authorized.v1',
  paid: 'charges.charge-paid.v2',
  refused: 'charges.charge-refused.v1',
  failed: 'charges.charge-failed.v1',
  canceled: 'charges.charge-canceled.v1',
  refunded: 'charges.charge-refunded.v1',
  partially_refunded: 'charges.charge-partially-refunded.v1',
  chargeback: 'charges.charge-charged-back.v1',
};

/** What receivables and the ledger need of the charge, after the change. */
export function chargeSnapshot(row: ChargeRow): ChargeSnapshot {
  return {
    charge_id: row.id,
    seller_id: row.seller_id,
    status: row.status,
    amount_cents: cents(row.amount_cents),
    currency: row.currency,
    payment_method: row.payment_method,
    capture_method: row.capture_method,
    installments: row.installments ?? 1,
    captured: row.paid_at !== null,
    paid_at: msOrNull(row.paid_at),
    refunded_cents: cents(row.refunded_cents),
    chargeback_cents: cents(row.chargeback_cents),
    split: readSplit(row),
    created_at: date(row.created_at).getTime(),
    updated_at: date(row.updated_at).getTime(),
  };
}

export interface Announcer {
  db: Db;
  requestId: string | null;
}

function envelope(type: EventType, charge: ChargeRow, requestId: string | null) {
  return newEnvelope(type, { producer: PRODUCER, tenantId: charge.tenant_id, livemode: charge.livemode, requestId, occurredAtMs: date(charge.updated_at).getTime() });
}

async function write(a: Announcer, trx: Tx, type: ChargeEventType, charge: ChargeRow): Promise<void> {
  const event = { envelope: envelope(type, charge, a.requestId), charge: chargeSnapshot(charge), resource_json: JSON.stringify(chargeResource(charge, { withSplit: true })) };
  // charge-paid v2 adds what the card was paid with; the other events are still at v1.
  const message = type === 'charges.charge-paid.v2' ? outboxMessage(type, charge.id, { ...event, brand: charge.card_brand, authorization_code: charge.authorization_code }) : outboxMessage(type, charge.id, event);
  await enqueue(a.db, trx, [message]);
}

export async function announceChargeCreated(a: Announcer, trx: Tx, charge: ChargeRow): Promise<void> {
  await write(a, trx, 'charges.charge-created.v1', charge);
  countChargeCreated(trx, charge);
}

/** Announces the status the charge has now (nothing for pending, which charge-created announces). */
export async function announceChargeStatus(a: Announcer, trx: Tx, charge: ChargeRow): Promise<void> {
  if (charge.status === 'pending') return;
  await write(a, trx, EVENT_OF_STATUS[charge.status], charge);
  countChargeStatus(trx, charge);
}

export async function announceRefund(a: Announcer, trx: Tx, charge: ChargeRow, refund: RefundRow): Promise<void> {
  const type = refund.status === 'succeeded' ? 'charges.refund-succeeded.v1' : refund.status === 'failed' ? 'charges.refund-failed.v1' : null;
  if (type === null) throw new Error(`a ${refund.status} refund has no event`);
  const event = {
    envelope: envelope(type, charge, a.requestId),
    charge: chargeSnapshot(charge),
    refund: {
      refund_id: refund.id,
      status: refund.status,
      amount_cents: cents(refund.amount_cents),
      reason: refund.reason,
      succeeded_at: msOrNull(refund.succeeded_at),
      created_at: date(refund.created_at).getTime(),
    },
    resource_json: JSON.stringify(refundResource(refund)),
  };
  await enqueue(a.db, trx, [outboxMessage(type, charge.id, event)]);
  countRefund(trx, charge, refund);
}

export async function announceChargeback(a: Announcer, trx: Tx, charge: ChargeRow, chargeback: ChargebackRow): Promise<void> {
  const type =
    chargeback.status === 'open' ? 'charges.chargeback-opened.v1' : chargeback.status === 'won' ? 'charges.chargeback-won.v1' : chargeback.status === 'lost' ? 'charges.chargeback-lost.v1' : null;
  if (type === null) throw new Error(`a ${chargeback.status} chargeback has no event`);
  const event = {
    envelope: envelope(type, charge, a.requestId),
    charge: chargeSnapshot(charge),
    chargeback: {
      chargeback_id: chargeback.id,
      status: chargeback.status,
      amount_cents: cents(chargeback.amount_cents),
      reason_code: chargeback.reason_code,
      opened_at: date(chargeback.opened_at).getTime(),
      resolved_at: msOrNull(chargeback.resolved_at),
    },
    resource_json: JSON.stringify(chargebackResource(chargeback)),
  };
  await enqueue(a.db, trx, [outboxMessage(type, charge.id, event)]);
}
