import type { Knex } from 'knex';
import { pagedQuery, type Paged, type Tx } from '@pgw/platform-db';
import type { Scope } from './charge.repository';
import { updateById } from './update-by-id';

type Q = Knex | Tx;

export type ChargebackStatus = 'open' | 'under_review' | 'won' | 'lost' | 'accepted';

export interface ChargebackRow {
  id: string;
  charge_id: string;
  tenant_id: string;
  livemode: boolean;
  seller_id: string | null;
  status: ChargebackStatus;
  amount_cents: number;
  reason_code: string | null;
  evidence_due_at: Date | null;
  opened_at: Date;
  resolved_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

function inScope(q: Q, scope: Scope) {
  const query = q('chargebacks').where({ tenant_id: scope.tenantId, livemode: scope.livemode });
  return scope.sellerId === null ? query : query.andWhere({ seller_id: scope.sellerId });
}

export async function insertChargeback(trx: Tx, row: ChargebackRow): Promise<void> {
  await trx('chargebacks').insert(row);
}

export async function findChargeback(
  q: Q,
  scope: Scope,
  id: string,
): Promise<ChargebackRow | undefined> {
  return inScope(q, scope).andWhere({ id }).first<ChargebackRow | undefined>();
}

export async function lockChargeback(trx: Tx, id: string): Promise<ChargebackRow | undefined> {
  return trx('chargebacks').where({ id }).forUpdate().first<ChargebackRow | undefined>();
}

/** The sum of a charge's chargebacks that hold its money: every one but those won. Call under the charge's lock. */
export async function heldByChargebacksCents(trx: Tx, chargeId: string): Promise<number> {
  const row = await trx('chargebacks')
    .where({ charge_id: chargeId })
    .whereNot({ status: 'won' })
    .sum<{ total: number | null }>({ total: 'amount_cents' })
    .first();
  return row?.total === null || row?.total === undefined ? 0 : row.total;
}

export async function updateChargeback(
  trx: Tx,
  id: string,
  patch: Partial<Pick<ChargebackRow, 'status' | 'resolved_at' | 'updated_at'>>,
): Promise<ChargebackRow> {
  return updateById<ChargebackRow>(trx, 'chargeback', id, patch);
}

/** One page of the scope's chargebacks, most recent first (ties broken by insertion order). */
export async function listChargebacks(
  q: Q,
  scope: Scope,
  page: number,
  limit: number,
): Promise<Paged<ChargebackRow>> {
  return pagedQuery<ChargebackRow>(inScope(q, scope), ['opened_at', 'seq'], page, limit);
}
