import type { Knex } from 'knex';
import type { Tx } from '@pgw/platform-db';
import { cents, pageAfter, type Cents, type Timestamp } from './rows';

type Q = Knex | Tx;

export type RefundStatus = 'pending' | 'processing' | 'succeeded' | 'failed' | 'canceled';

export interface RefundRow {
  id: string;
  charge_id: string;
  tenant_id: string;
  livemode: boolean;
  status: RefundStatus;
  amount_cents: Cents;
  reason: string | null;
  provider_reference: string | null;
  failure_reason: string | null;
  succeeded_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export async function insertRefund(trx: Tx, row: RefundRow): Promise<void> {
  await trx('refunds').insert(row);
}

export async function lockRefund(trx: Tx, id: string): Promise<RefundRow | undefined> {
  return trx('refunds').where({ id }).forUpdate().first<RefundRow | undefined>();
}

export async function updateRefund(trx: Tx, id: string, patch: Partial<Omit<RefundRow, 'id' | 'charge_id' | 'tenant_id' | 'livemode' | 'created_at'>>): Promise<RefundRow> {
  const rows = await trx('refunds').where({ id }).update(patch).returning<RefundRow[]>('*');
  const row = rows[0];
  if (row === undefined) throw new Error(`refund ${id} vanished during an update`);
  return row;
}

/** Cents still in flight (processing) on a charge. Read under the charge's row lock. */
export async function inFlightCents(trx: Tx, chargeId: string): Promise<number> {
  const row = await trx('refunds').where({ charge_id: chargeId, status: 'processing' }).sum<{ total: Cents | null }>({ total: 'amount_cents' }).first();
  return row?.total === null || row?.total === undefined ? 0 : cents(row.total);
}

/** Refunds whose outcome is unknown (processing) and older than `before`, oldest first, after the refund `after` (see pageAfter). */
export async function processingRefunds(q: Q, before: Date, after: string | null, limit: number): Promise<RefundRow[]> {
  return pageAfter(q('refunds').where({ status: 'processing' }).andWhere('created_at', '<', before), 'refunds', 'created_at', after).limit(limit);
}
