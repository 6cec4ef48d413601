import { insertAtCommit, type Tx } from '@pgw/platform-db';
import { pagesOfCharge } from './pages-of-charge';
import type { ChargeStatus } from '@pgw/charges-domain/charge';
import type { ChargeEventKind } from '../charge-event-kinds';

/**
 * One state change of a charge, its refunds or its chargebacks, as its event announced it: kept beside
 * the outbox row in the same transaction, because the outbox forgets sent rows after a week and a
 * charge's history is read for as long as the charge is. `id` is the event's id, the one its webhook
 * carries, so a change found here is the delivery found in the operator's webhook log.
 */
export interface ChargeEventRow {
  id: string;
  charge_id: string;
  tenant_id: string;
  livemode: boolean;
  type: ChargeEventKind;
  /** The charge's status once the change was made. */
  charge_status: ChargeStatus;
  refund_id: string | null;
  chargeback_id: string | null;
  /** The refund's or chargeback's amount for their events, the charge's for its own. */
  amount_cents: number;
  created_at: Date;
}

/** What a page of events reads: the row's fields (the table's `seq`, its insertion order, only sorts). */
const COLUMNS: ReadonlyArray<keyof ChargeEventRow> = [
  'id',
  'charge_id',
  'tenant_id',
  'livemode',
  'type',
  'charge_status',
  'refund_id',
  'chargeback_id',
  'amount_cents',
  'created_at',
];

/**
 * Inserts the rows at commit, with the transaction's other deferred inserts (outbox rows), in their order
 * (`seq` follows it): nothing reads a charge's history in the transaction that adds to it.
 */
export function insertChargeEvents(trx: Tx, rows: ChargeEventRow[]): void {
  insertAtCommit(trx, 'charge_events', rows);
}

/** One page of a charge's events, most recent first (ties in insertion order, newest first). */
export const listChargeEvents = pagesOfCharge<ChargeEventRow>(
  'charge_events',
  ['created_at', 'seq'],
  COLUMNS,
);
