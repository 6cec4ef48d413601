import type { Knex } from 'knex';
import type { Tx } from '@pgw/platform-db';
import { instant, int, text, textOrNull } from './rows';

type Row = Record<string, unknown>;

export type ReceivableStatus = 'pending' | 'available' | 'paid' | 'canceled' | 'anticipated';
export const RECEIVABLE_STATUSES: readonly ReceivableStatus[] = ['pending', 'available', 'paid', 'canceled', 'anticipated'];

export interface Receivable {
  id: string;
  tenantId: string;
  livemode: boolean;
  chargeId: string;
  sellerId: string;
  paymentMethod: string;
  installment: number;
  installments: number;
  grossCents: number;
  feeCents: number;
  netCents: number;
  mdrBps: number;
  debitedGrossCents: number;
  dueDate: string;
  originalDueDate: string;
  status: ReceivableStatus;
  anticipationId: string | null;
  settlementId: string | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

export function toReceivable(row: Row): Receivable {
  return {
    id: text(row.id),
    tenantId: text(row.tenant_id),
    livemode: row.livemode === true,
    chargeId: text(row.charge_id),
    sellerId: text(row.seller_id),
    paymentMethod: text(row.payment_method),
    installment: int(row.installment),
    installments: int(row.installments),
    grossCents: int(row.gross_amount_cents, 'gross_amount_cents'),
    feeCents: int(row.fee_amount_cents, 'fee_amount_cents'),
    netCents: int(row.net_amount_cents, 'net_amount_cents'),
    mdrBps: int(row.mdr_bps),
    debitedGrossCents: int(row.debited_gross_cents, 'debited_gross_cents'),
    dueDate: text(row.due_date),
    originalDueDate: text(row.original_due_date),
    status: text(row.status) as ReceivableStatus,
    anticipationId: textOrNull(row.anticipation_id),
    settlementId: textOrNull(row.settlement_id),
    version: int(row.version),
    createdAt: instant(row.created_at),
    updatedAt: instant(row.updated_at),
  };
}

function toRow(r: Receivable): Row {
  return {
    id: r.id,
    tenant_id: r.tenantId,
    livemode: r.livemode,
    charge_id: r.chargeId,
    seller_id: r.sellerId,
    payment_method: r.paymentMethod,
    installment: r.installment,
    installments: r.installments,
    gross_amount_cents: r.grossCents,
    fee_amount_cents: r.feeCents,
    net_amount_cents: r.netCents,
    mdr_bps: r.mdrBps,
    debited_gross_cents: r.debitedGrossCents,
    due_date: r.dueDate,
    original_due_date: r.originalDueDate,
    status: r.status,
    anticipation_id: r.anticipationId,
    settlement_id: r.settlementId,
    version: r.version,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
  };
}

export async function insertReceivables(trx: Tx, receivables: Receivable[]): Promise<void> {
  if (receivables.length > 0) await trx('receivables').insert(receivables.map(toRow));
}

/** Writes the receivable's new state; the version guards against a lost update (a bug if it fails). */
export async function saveReceivable(trx: Tx, r: Receivable): Promise<void> {
  const updated = await trx('receivables')
    .where({ id: r.id, version: r.version - 1 })
    .update({
      gross_amount_cents: r.grossCents,
      fee_amount_cents: r.feeCents,
      net_amount_cents: r.netCents,
      debited_gross_cents: r.debitedGrossCents,
      due_date: r.dueDate,
      status: r.status,
      anticipation_id: r.anticipationId,
      settlement_id: r.settlementId,
      version: r.version,
      updated_at: r.updatedAt,
    });
  if (updated !== 1) throw new Error(`receivable ${r.id} changed under us (expected version ${r.version - 1})`);
}

/** The receivables of a charge, locked: refunds and chargebacks change them. */
export async function chargeReceivables(trx: Tx, charge: { tenantId: string; livemode: boolean; chargeId: string }): Promise<Receivable[]> {
  const rows = (await trx('receivables').where({ tenant_id: charge.tenantId, livemode: charge.livemode, charge_id: charge.chargeId }).orderBy('seq').forUpdate()) as Row[];
  return rows.map(toReceivable);
}

export async function dueReceivables(trx: Tx, tenantId: string, livemode: boolean, sellerId: string, asOfDate: string): Promise<Receivable[]> {
  const rows = (await trx('receivables')
    .where({ tenant_id: tenantId, livemode, seller_id: sellerId, status: 'pending' })
    .andWhere('due_date', '<=', asOfDate)
    .orderBy('seq')
    .forUpdate()) as Row[];
  return rows.map(toReceivable);
}

export async function freeAvailableReceivables(trx: Tx, tenantId: string, livemode: boolean, sellerId: string): Promise<Receivable[]> {
  const rows = (await trx('receivables')
    .where({ tenant_id: tenantId, livemode, seller_id: sellerId, status: 'available' })
    .whereNull('settlement_id')
    .orderBy('seq')
    .forUpdate()) as Row[];
  return rows.map(toReceivable);
}

export async function settlementReceivables(trx: Tx, settlement: { tenantId: string; livemode: boolean; id: string }): Promise<Receivable[]> {
  const rows = (await trx('receivables').where({ tenant_id: settlement.tenantId, livemode: settlement.livemode, settlement_id: settlement.id }).orderBy('seq').forUpdate()) as Row[];
  return rows.map(toReceivable);
}

export interface Scope {
  tenantId: string;
  livemode: boolean;
  sellerId: string | null;
}

function scoped(q: Knex | Tx, scope: Scope) {
  const query = q('receivables').where({ tenant_id: scope.tenantId, livemode: scope.livemode });
  return scope.sellerId === null ? query : query.andWhere({ seller_id: scope.sellerId });
}

export async function listReceivables(q: Knex | Tx, scope: Scope, filter: { status?: ReceivableStatus }, page: number, limit: number): Promise<{ data: Receivable[]; total: number }> {
  const base = () => {
    const query = scoped(q, scope);
    return filter.status === undefined ? query : query.andWhere({ status: filter.status });
  };
  const [{ count }] = (await base().count<{ count: string | number }[]>('* as count')) as [{ count: string | number }];
  const rows = (await base().orderBy([{ column: 'created_at', order: 'desc' }, { column: 'seq', order: 'desc' }]).limit(limit).offset((page - 1) * limit)) as Row[];
  return { data: rows.map(toReceivable), total: int(count) };
}

export async function getReceivable(q: Knex | Tx, scope: Scope, id: string): Promise<Receivable | undefined> {
  const row = (await scoped(q, scope).andWhere({ id }).first()) as Row | undefined;
  return row === undefined ? undefined : toReceivable(row);
}
