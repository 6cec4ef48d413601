import type { Knex } from 'knex';
import type { Tx } from '@pgw/platform-db';
import { instant, instantOrNull, int, text } from './rows';
import type { Scope } from './receivables.repository';

type Row = Record<string, unknown>;

export type SettlementStatus = 'pending' | 'processing' | 'paid' | 'failed' | 'canceled';
export const SETTLEMENT_STATUSES: readonly SettlementStatus[] = ['pending', 'processing', 'paid', 'failed', 'canceled'];

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
    id: text(row.id),
    tenantId: text(row.tenant_id),
    livemode: row.livemode === true,
    sellerId: text(row.seller_id),
    status: text(row.status) as SettlementStatus,
    amountCents: int(row.amount_cents),
    receivablesNetCents: int(row.receivables_net_cents),
    debtCents: int(row.debt_cents),
    receivableCount: int(row.receivable_count),
    settlementDate: text(row.settlement_date),
    paidAt: instantOrNull(row.paid_at),
    version: int(row.version),
    createdAt: instant(row.created_at),
    updatedAt: instant(row.updated_at),
  };
}

export async function insertSettlement(trx: Tx, s: Settlement): Promise<void> {
  await trx('settlements').insert({
    id: s.id,
    tenant_id: s.tenantId,
    livemode: s.livemode,
    seller_id: s.sellerId,
    status: s.status,
    amount_cents: s.amountCents,
    receivables_net_cents: s.receivablesNetCents,
    debt_cents: s.debtCents,
    receivable_count: s.receivableCount,
    settlement_date: s.settlementDate,
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
  if (updated !== 1) throw new Error(`settlement ${s.id} changed under us (expected version ${s.version - 1})`);
}

export async function inFlightSettlements(trx: Tx, limit: number): Promise<Settlement[]> {
  const rows = (await trx('settlements').whereIn('status', ['pending', 'processing']).orderBy('seq').limit(limit).forUpdate()) as Row[];
  return rows.map(toSettlement);
}

export async function listSettlements(q: Knex | Tx, scope: Scope, filter: { status?: SettlementStatus }, page: number, limit: number): Promise<{ data: Settlement[]; total: number }> {
  const base = () => {
    let query = q('settlements').where({ tenant_id: scope.tenantId, livemode: scope.livemode });
    if (scope.sellerId !== null) query = query.andWhere({ seller_id: scope.sellerId });
    return filter.status === undefined ? query : query.andWhere({ status: filter.status });
  };
  const [{ count }] = (await base().count<{ count: string | number }[]>('* as count')) as [{ count: string | number }];
  const rows = (await base().orderBy([{ column: 'created_at', order: 'desc' }, { column: 'seq', order: 'desc' }]).limit(limit).offset((page - 1) * limit)) as Row[];
  return { data: rows.map(toSettlement), total: int(count) };
}

export async function getSettlement(q: Knex | Tx, scope: Scope, id: string): Promise<Settlement | undefined> {
  let query = q('settlements').where({ tenant_id: scope.tenantId, livemode: scope.livemode, id });
  if (scope.sellerId !== null) query = query.andWhere({ seller_id: scope.sellerId });
  const row = (await query.first()) as Row | undefined;
  return row === undefined ? undefined : toSettlement(row);
}
