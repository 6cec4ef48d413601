import { assert } from '@pgw/domain';
import type { Knex } from 'knex';
import { pagedQuery, type Tx } from '@pgw/platform-db';
import { scoped, type Scope } from './receivables.repository';

type Row = Record<string, unknown>;

export type SettlementStatus = 'pending' | 'processing' | 'paid' | 'failed' | 'canceled';
export const SETTLEMENT_STATUSES: readonly SettlementStatus[] = [
  'pending',
  'processing',
  'paid',
  'failed',
  'canceled',
];

export interface Settlement {
  id: string;
  tenantId: string;
  livemode: boolean;
  sellerId: string;
  status: SettlementStatus;
  amountCents: number;
  receivablesNetCents: number;
  debtCents: number;
  receivableCount: number;
  settlementDate: string;
  paidAt: Date | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

function toSettlement(row: Row): Settlement {
  return {
    id: row.id as string,
    tenantId: row.tenant_id as string,
    livemode: row.livemode === true,
    sellerId: row.seller_id as string,
    status: row.status as SettlementStatus,
    amountCents: row.amount_cents as number,
    receivablesNetCents: row.receivables_net_cents as number,
    debtCents: row.debt_cents as number,
    receivableCount: row.receivable_count as number,
    settlementDate: row.settlement_date as string,
    paidAt: row.paid_at as Date | null,
    version: row.version as number,
    createdAt: row.created_at as Date,
    updatedAt: row.updated_at as Date,
  };
}

/** The fields a settlement shows under its column names, in the table, the API resource and the event. */
export function settlementFields(s: Settlement) {
  return {
    status: s.status,
    seller_id: s.sellerId,
    amount_cents: s.amountCents,
    receivable_count: s.receivableCount,
    settlement_date: s.settlementDate,
  };
}

export async function insertSettlement(trx: Tx, s: Settlement): Promise<void> {
  await trx('settlements').insert({
    id: s.id,
    tenant_id: s.tenantId,
    livemode: s.livemode,
    ...settlementFields(s),
    receivables_net_cents: s.receivablesNetCents,
    debt_cents: s.debtCents,
    paid_at: s.paidAt,
    version: s.version,
    created_at: s.createdAt,
    updated_at: s.updatedAt,
  });
}

export async function saveSettlement(trx: Tx, s: Settlement): Promise<void> {
  const updated = await trx('settlements')
    .where({ id: s.id, version: s.version - 1 })
    .update({ status: s.status, paid_at: s.paidAt, version: s.version, updated_at: s.updatedAt });
  assert(updated === 1, 'settlement.unchanged-under-lock', {
    settlement_id: s.id,
    expected_version: s.version - 1,
  });
}

export async function inFlightSettlements(trx: Tx, limit: number): Promise<Settlement[]> {
  const rows = (await trx('settlements')
    .whereIn('status', ['pending', 'processing'])
    .orderBy('seq')
    .limit(limit)
    .forUpdate()) as Row[];
  return rows.map(toSettlement);
}

export async function listSettlements(
  q: Knex | Tx,
  scope: Scope,
  filter: { status?: SettlementStatus },
  page: number,
  limit: number,
): Promise<{ data: Settlement[]; total: number }> {
  const query = scoped(q, 'settlements', scope);
  if (filter.status !== undefined) query.andWhere({ status: filter.status });
  const { rows, total } = await pagedQuery<Row>(query, ['created_at', 'seq'], page, limit);
  return { data: rows.map(toSettlement), total };
}

export async function getSettlement(
  q: Knex | Tx,
  scope: Scope,
  id: string,
): Promise<Settlement | undefined> {
  const row = (await scoped(q, 'settlements', scope).andWhere({ id }).first()) as Row | undefined;
  return row === undefined ? undefined : toSettlement(row);
}
