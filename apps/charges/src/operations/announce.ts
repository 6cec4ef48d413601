// Every state change of a charge, refund or chargeback writes its event into the outbox, in the
// transaction that makes the change (ARCHITECTURE: no publish after commit). All of them go to one topic
// keyed by charge id, so receivables, the ledger and webhooks read them in the order they happened.
import type { ChargeSnapshot, EventEnvelope } from '@pgw/contracts';
import { emit, type Emitted } from '@pgw/platform-bus';
import type { Db, Tx } from '@pgw/platform-db';
import type { ChargeStatus } from '@pgw/charges-domain/charge';
import type { ChargeRow } from '../data/charge.repository';
import type { ChargebackRow, ChargebackStatus } from '../data/chargeback.repository';
import type { RefundRow, RefundStatus } from '../data/refund.repository';
import type { HistoryEventType } from '../charge-event-kinds';
import { chargebackResource, chargeResource, readSplit, refundResource } from '../resources';
import { recordChargeEvents, type Subject } from './charge-history';
import { countChargeCreated, countChargeStatus, countRefund } from './charge-metrics';
import { assert } from '@pgw/domain';

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
    amount_cents: row.amount_cents,
    currency: row.currency,
    payment_method: row.payment_method,
    capture_method: row.capture_method,
    installments: row.installments ?? 1,
    captured: row.paid_at !== null,
    paid_at: row.paid_at?.getTime() ?? null,
    refunded_cents: row.refunded_cents,
    chargeback_cents: row.chargeback_cents,
    split: readSplit(row),
    created_at: row.created_at.getTime(),
    updated_at: row.updated_at.getTime(),
  };
}

export interface Announcer {
  db: Db;
  requestId: string | null;
}

/** What the envelope of a charge's event says: it happened when the charge last changed. */
function origin(charge: ChargeRow, requestId: string | null) {
  return {
    key: charge.id,
    producer: PRODUCER,
    tenantId: charge.tenant_id,
    livemode: charge.livemode,
    requestId,
    occurredAtMs: charge.updated_at.getTime(),
  };
}

/** Writes the events of `types` about the charge as it is now: one outbox statement, one history statement. */
async function write(
  a: Announcer,
  trx: Tx,
  types: ChargeEventType[],
  charge: ChargeRow,
): Promise<void> {
  if (types.length === 0) return;
  const body = {
    charge: chargeSnapshot(charge),
    resource_json: JSON.stringify(chargeResource(charge, { withSplit: true })),
  };
  // charge-paid v2 adds what the card was paid with; the other events are still at v1.
  const events = types.map(
    (type) =>
      ({
        type,
        ...origin(charge, a.requestId),
        body:
          type === 'charges.charge-paid.v2'
            ? { ...body, brand: charge.card_brand, authorization_code: charge.authorization_code }
            : body,
      }) as Emitted,
  );
  const envelopes = await emit(a.db, trx, ...events);
  recordChargeEvents(
    trx,
    types.map((type, i) => ({
      type,
      envelope: envelopes[i] as EventEnvelope,
      charge,
      subject: null,
    })),
  );
}

/**
 * Announces what a charge's change made of it: charge-created when it was not announced yet, then the
 * status it has now when that changed (nothing for pending, which charge-created announces).
 */
export async function announceCharge(
  a: Announcer,
  trx: Tx,
  charge: ChargeRow,
  change: { created: boolean; statusChanged: boolean },
): Promise<void> {
  const status = change.statusChanged && charge.status !== 'pending' ? charge.status : null;
  await write(
    a,
    trx,
    [
      ...(change.created ? (['charges.charge-created.v1'] as const) : []),
      ...(status !== null ? [EVENT_OF_STATUS[status]] : []),
    ],
    charge,
  );
  if (change.created) countChargeCreated(trx, charge);
  if (status !== null) countChargeStatus(trx, charge);
}

/** Announces the status the charge has now (nothing for pending, which charge-created announces). */
export async function announceChargeStatus(
  a: Announcer,
  trx: Tx,
  charge: ChargeRow,
): Promise<void> {
  await announceCharge(a, trx, charge, { created: false, statusChanged: true });
}

/** The event a refund's outcome announces; a pending or processing refund is announced by none. */
const EVENT_OF_REFUND: Partial<Record<RefundStatus, HistoryEventType>> = {
  succeeded: 'charges.refund-succeeded.v1',
  failed: 'charges.refund-failed.v1',
};

/** The event a chargeback's status announces; the others (under review, accepted) are announced by none. */
const EVENT_OF_CHARGEBACK: Partial<Record<ChargebackStatus, HistoryEventType>> = {
  open: 'charges.chargeback-opened.v1',
  won: 'charges.chargeback-won.v1',
  lost: 'charges.chargeback-lost.v1',
};

/**
 * Writes the event of a change to one of the charge's refunds or chargebacks: `part` is its own record in
 * the body, between the charge and its API resource, and `subject` is what the charge's history names.
 */
async function writeChange(
  a: Announcer,
  trx: Tx,
  charge: ChargeRow,
  type: HistoryEventType,
  part: Record<string, unknown>,
  resource: object,
  subject: Subject,
): Promise<void> {
  const body = { charge: chargeSnapshot(charge), ...part, resource_json: JSON.stringify(resource) };
  const [envelope] = await emit(a.db, trx, {
    type,
    ...origin(charge, a.requestId),
    body,
  } as Emitted);
  recordChargeEvents(trx, [{ type, envelope, charge, subject }]);
}

export async function announceRefund(
  a: Announcer,
  trx: Tx,
  charge: ChargeRow,
  refund: RefundRow,
): Promise<void> {
  const type = EVENT_OF_REFUND[refund.status];
  // Called once a refund reached its outcome: a pending or processing one is announced by no event.
  assert(type !== undefined, 'refund.announced-at-outcome', {
    refund_id: refund.id,
    status: refund.status,
  });
  const record = {
    refund_id: refund.id,
    status: refund.status,
    amount_cents: refund.amount_cents,
    reason: refund.reason,
    succeeded_at: refund.succeeded_at?.getTime() ?? null,
    created_at: refund.created_at.getTime(),
  };
  await writeChange(a, trx, charge, type, { refund: record }, refundResource(refund), {
    refundId: refund.id,
    amountCents: refund.amount_cents,
  });
  countRefund(trx, charge, refund);
}

export async function announceChargeback(
  a: Announcer,
  trx: Tx,
  charge: ChargeRow,
  chargeback: ChargebackRow,
): Promise<void> {
  const type = EVENT_OF_CHARGEBACK[chargeback.status];
  assert(type !== undefined, 'chargeback.announced-status', {
    chargeback_id: chargeback.id,
    status: chargeback.status,
  });
  const record = {
    chargeback_id: chargeback.id,
    status: chargeback.status,
    amount_cents: chargeback.amount_cents,
    reason_code: chargeback.reason_code,
    opened_at: chargeback.opened_at.getTime(),
    resolved_at: chargeback.resolved_at?.getTime() ?? null,
  };
  await writeChange(a, trx, charge, type, { chargeback: record }, chargebackResource(chargeback), {
    chargebackId: chargeback.id,
    amountCents: chargeback.amount_cents,
  });
}
