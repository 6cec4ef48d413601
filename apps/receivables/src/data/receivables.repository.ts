import { assert } from '@pgw/domain';
import type { Knex } from 'knex';
import { pagedQuery, type Tx } from '@pgw/platform-db';
import { sendSalesNow } from './sales-at-commit';
import type { ReceivableDraft } from '@pgw/receivables-domain/schedule';

type Row = Record<string, unknown>;

export type ReceivableStatus = 'pending' | 'available' | 'paid' | 'canceled' | 'anticipated';
export const RECEIVABLE_STATUSES: readonly ReceivableStatus[] = [
  'pending',
  'available',
  'paid',
  'canceled',
  'anticipated',
];

/** A receivable as stored: its scheduled draft's figures, and what became of it since. */
export interface Receivable extends Omit<ReceivableDraft, 'availableAtOnce'> {
  id: string;
  tenantId: string;
  livemode: boolean;
  chargeId: string;
  paymentMethod: string;
  debitedGrossCents: number;
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
    id: row.id as string,
    tenantId: row.tenant_id as string,
    livemode: row.livemode === true,
    chargeId: row.charge_id as string,
    sellerId: row.seller_id as string,
    paymentMethod: row.payment_method as string,
    installment: row.installment as number,
    installments: row.installments as number,
    grossCents: row.gross_amount_cents as number,
    feeCents: row.fee_amount_cents as number,
    netCents: row.net_amount_cents as number,
    mdrBps: row.mdr_bps as number,
    debitedGrossCents: row.debited_gross_cents as number,
    dueDate: row.due_date as string,
    originalDueDate: row.original_due_date as string,
    status: row.status as ReceivableStatus,
    anticipationId: row.anticipation_id as string | null,
    settlementId: row.settlement_id as string | null,
    version: row.version as number,
    createdAt: row.created_at as Date,
    updatedAt: row.updated_at as Date,
  };
}

/**
 * The fields a receivable shows under its column names: the table's row, the API resource and the
 * receivable-changed event each add their own (ids, dates in their form, version) around these.
 */
export function receivableFields(r: Receivable) {
  return {
    status: r.status,
    charge_id: r.chargeId,
    seller_id: r.sellerId,
    payment_method: r.paymentMethod,
    installment: r.installment,
    installments: r.installments,
    gross_amount_cents: r.grossCents,
    fee_amount_cents: r.feeCents,
    net_amount_cents: r.netCents,
    due_date: r.dueDate,
    original_due_date: r.originalDueDate,
    anticipation_id: r.anticipationId,
    settlement_id: r.settlementId,
  };
}

function toRow(r: Receivable): Row {
  return {
    id: r.id,
    tenant_id: r.tenantId,
    livemode: r.livemode,
    ...receivableFields(r),
    mdr_bps: r.mdrBps,
    debited_gross_cents: r.debitedGrossCents,
    version: r.version,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
  };
}

export async function insertReceivables(trx: Tx, receivables: Receivable[]): Promise<void> {
  if (receivables.length > 0) await trx('receivables').insert(receivables.map(toRow));
}

/** The insert of insertReceivables, to run with other writes (inOneStatement); at least one receivable. */
export function insertReceivablesSql(trx: Tx, receivables: Receivable[]): Knex.Sql {
  assert(receivables.length > 0, 'receivables.insert-some');
  return trx('receivables').insert(receivables.map(toRow)).toSQL();
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
  assert(updated === 1, 'receivable.unchanged-under-lock', {
    receivable_id: r.id,
    expected_version: r.version - 1,
  });
}

/** A tenant's environment: where the receivables of a charge, a seller or a settlement are. */
type Env = { tenantId: string; livemode: boolean };

/**
 * The receivables of `env` that `where` (and `narrow`) select, in the order they were made, locked for
 * change.
 */
async function locked(
  trx: Tx,
  env: Env,
  where: Record<string, string>,
  narrow: (query: Knex.QueryBuilder) => Knex.QueryBuilder = (query) => query,
): Promise<Receivable[]> {
  await sendSalesNow(trx);
  const query = trx('receivables').where({ tenant_id: env.tenantId, livemode: env.livemode });
  const rows = (await narrow(query.andWhere(where)).orderBy('seq').forUpdate()) as Row[];
  return rows.map(toReceivable);
}

/** The receivables of a charge, locked: refunds and chargebacks change them. */
export const chargeReceivables = (trx: Tx, charge: Env & { chargeId: string }) =>
  locked(trx, charge, { charge_id: charge.chargeId });

/** A seller's pending receivables due by `asOfDate`, locked: the release makes them available. */
export const dueReceivables = (trx: Tx, seller: Env & { sellerId: string }, asOfDate: string) =>
  locked(trx, seller, { seller_id: seller.sellerId, status: 'pending' }, (query) =>
    query.andWhere('due_date', '<=', asOfDate),
  );

/** A seller's available receivables in no settlement yet, locked: a payout gathers them. */
export const freeAvailableReceivables = (trx: Tx, seller: Env & { sellerId: string }) =>
  locked(trx, seller, { seller_id: seller.sellerId, status: 'available' }, (query) =>
    query.whereNull('settlement_id'),
  );

export const settlementReceivables = (trx: Tx, settlement: Env & { id: string }) =>
  locked(trx, settlement, { settlement_id: settlement.id });

export interface Scope {
  tenantId: string;
  livemode: boolean;
  sellerId: string | null;
}

/** The rows of `table` that `scope` sees: its tenant's in its environment, and its seller's when it has one. */
export function scoped(q: Knex | Tx, table: 'receivables' | 'settlements', scope: Scope) {
  const query = q(table).where({ tenant_id: scope.tenantId, livemode: scope.livemode });
  return scope.sellerId === null ? query : query.andWhere({ seller_id: scope.sellerId });
}

export async function listReceivables(
  q: Knex | Tx,
  scope: Scope,
  filter: { status?: ReceivableStatus; chargeId?: string },
  page: number,
  limit: number,
): Promise<{ data: Receivable[]; total: number }> {
  const query = scoped(q, 'receivables', scope);
  if (filter.status !== undefined) query.andWhere({ status: filter.status });
  if (filter.chargeId !== undefined) query.andWhere({ charge_id: filter.chargeId });
  const { rows, total } = await pagedQuery<Row>(query, ['created_at', 'seq'], page, limit);
  return { data: rows.map(toReceivable), total };
}

export async function getReceivable(
  q: Knex | Tx,
  scope: Scope,
  id: string,
): Promise<Receivable | undefined> {
  const row = (await scoped(q, 'receivables', scope).andWhere({ id }).first()) as Row | undefined;
  return row === undefined ? undefined : toReceivable(row);
}
