import type { Knex } from 'knex';
import type { Tx } from '@pgw/platform-db';
import { pagesOfCharge } from './pages-of-charge';
import { pageAfter, type JobPage } from './page-after';
import { updateById } from './update-by-id';

type Q = Knex | Tx;

export type RefundStatus = 'pending' | 'processing' | 'succeeded' | 'failed' | 'canceled';

export interface RefundRow {
  id: string;
  charge_id: string;
  tenant_id: string;
  livemode: boolean;
  status: RefundStatus;
  amount_cents: number;
  reason: string | null;
  provider_reference: string | null;
  failure_reason: string | null;
  succeeded_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export async function insertRefund(trx: Tx, row: RefundRow): Promise<void> {
  await trx('refunds').insert(row);
}

export async function lockRefund(trx: Tx, id: string): Promise<RefundRow | undefined> {
  return trx('refunds').where({ id }).forUpdate().first<RefundRow | undefined>();
}

export async function updateRefund(
  trx: Tx,
  id: string,
  patch: Partial<Omit<RefundRow, 'id' | 'charge_id' | 'tenant_id' | 'livemode' | 'created_at'>>,
): Promise<RefundRow> {
  return updateById<RefundRow>(trx, 'refund', id, patch);
}

/** number still in flight (processing) on a charge. Read under the charge's row lock. */
export async function inFlightCents(trx: Tx, chargeId: string): Promise<number> {
  const row = await trx('refunds')
    .where({ charge_id: chargeId, status: 'processing' })
    .sum<{ total: number | null }>({ total: 'amount_cents' })
    .first();
  return row?.total === null || row?.total === undefined ? 0 : row.total;
}

/** Refunds whose outcome is unknown (processing) and older than `before`, oldest first, a page at a time (see pageAfter). */
export async function processingRefunds(q: Q, before: Date, page: JobPage): Promise<RefundRow[]> {
  const unknown = q('refunds').where({ status: 'processing' }).andWhere('created_at', '<', before);
  return pageAfter(unknown, 'refunds', 'created_at', page);
}

/** One page of a charge's refunds, most recent first (ties by id). */
export const listRefundsOfCharge = pagesOfCharge<RefundRow>('refunds', ['created_at', 'id']);
