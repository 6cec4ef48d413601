import { assert } from '@pgw/domain';
import type { Knex } from 'knex';
import { pagedQuery, type Tx } from '@pgw/platform-db';
import type { AnticipationPricing } from '@pgw/anticipation-domain/pricing';
import type { Totals } from '@pgw/anticipation-domain/quote';
import type { SellerScope } from './receivables.repository';

type Q = Knex | Tx;
type Row = Record<string, unknown>;

/** A count or sum of the first row: a number on both drivers (bigint and numeric parsers), 0 when absent. */
const firstValue = (rows: Row[], column: string): number => (rows[0]?.[column] ?? 0) as number;

export interface AnticipationItem {
  receivableId: string;
  chargeId: string;
  dueDate: string;
  receivableVersion: number;
  daysAnticipated: number;
  grossCents: number;
  feeCents: number;
  netCents: number;
}

export interface Anticipation {
  id: string;
  tenantId: string;
  livemode: boolean;
  sellerId: string;
  status: 'succeeded';
  grossCents: number;
  feeCents: number;
  netCents: number;
  feeBpsPerMonth: number;
  settlementDelayDays: number;
  pricingPlanId: string | null;
  executedOn: string;
  createdAt: Date;
  /** In the order they were priced (earliest due first, or the order the request named them). */
  items: AnticipationItem[];
}

/** What a price is: the totals and the terms that made them, under their column names (table, API, event). */
export function pricedFields(
  totals: Totals,
  terms: Pick<AnticipationPricing, 'feeBpsPerMonth' | 'settlementDelayDays' | 'pricingPlanId'>,
) {
  return {
    gross_amount_cents: totals.grossCents,
    fee_amount_cents: totals.feeCents,
    net_amount_cents: totals.netCents,
    fee_bps_per_month: terms.feeBpsPerMonth,
    settlement_delay_days: terms.settlementDelayDays,
    pricing_plan_id: terms.pricingPlanId,
  };
}

/** The fields an anticipation shows under its column names, in the table, the API resource and the event. */
export function anticipationFields(a: Anticipation) {
  return { status: a.status, seller_id: a.sellerId, ...pricedFields(a, a) };
}

/** An item's fields under their column names, in the table and the event. */
export function anticipationItemFields(item: AnticipationItem) {
  return {
    receivable_id: item.receivableId,
    charge_id: item.chargeId,
    due_date: item.dueDate,
    receivable_version: item.receivableVersion,
    days_anticipated: item.daysAnticipated,
    gross_amount_cents: item.grossCents,
    fee_amount_cents: item.feeCents,
    net_amount_cents: item.netCents,
  };
}

export async function insertAnticipation(trx: Tx, a: Anticipation): Promise<void> {
  await trx('anticipations').insert({
    id: a.id,
    tenant_id: a.tenantId,
    livemode: a.livemode,
    ...anticipationFields(a),
    executed_on: a.executedOn,
    created_at: a.createdAt,
  });
  // The primary key on receivable_id refuses a receivable anticipated before, whatever the caller checked.
  await trx('anticipation_items').insert(
    a.items.map((item, position) => ({
      ...anticipationItemFields(item),
      anticipation_id: a.id,
      position,
      tenant_id: a.tenantId,
      livemode: a.livemode,
      seller_id: a.sellerId,
    })),
  );
}

function toItem(row: Row): AnticipationItem {
  return {
    receivableId: row.receivable_id as string,
    chargeId: row.charge_id as string,
    dueDate: row.due_date as string,
    receivableVersion: row.receivable_version as number,
    daysAnticipated: row.days_anticipated as number,
    grossCents: row.gross_amount_cents as number,
    feeCents: row.fee_amount_cents as number,
    netCents: row.net_amount_cents as number,
  };
}

function toAnticipation(row: Row, items: AnticipationItem[]): Anticipation {
  return {
    id: row.id as string,
    tenantId: row.tenant_id as string,
    livemode: row.livemode === true,
    sellerId: row.seller_id as string,
    status: 'succeeded',
    grossCents: row.gross_amount_cents as number,
    feeCents: row.fee_amount_cents as number,
    netCents: row.net_amount_cents as number,
    feeBpsPerMonth: row.fee_bps_per_month as number,
    settlementDelayDays: row.settlement_delay_days as number,
    pricingPlanId: row.pricing_plan_id as string | null,
    executedOn: row.executed_on as string,
    createdAt: row.created_at as Date,
    items,
  };
}

async function withItems(q: Q, rows: Row[]): Promise<Anticipation[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id as string);
  const itemRows = (await q('anticipation_items')
    .whereIn('anticipation_id', ids)
    .orderBy([{ column: 'anticipation_id' }, { column: 'position' }])) as Row[];
  const byAnticipation = new Map<string, AnticipationItem[]>();
  for (const row of itemRows) {
    const id = row.anticipation_id as string;
    byAnticipation.set(id, [...(byAnticipation.get(id) ?? []), toItem(row)]);
  }
  return rows.map((row) => toAnticipation(row, byAnticipation.get(row.id as string) ?? []));
}

const scoped = (q: Q, scope: SellerScope) =>
  q('anticipations').where({
    tenant_id: scope.tenantId,
    livemode: scope.livemode,
    seller_id: scope.sellerId,
  });

export async function findAnticipation(
  q: Q,
  scope: SellerScope,
  id: string,
): Promise<Anticipation | undefined> {
  const row = (await scoped(q, scope).andWhere({ id }).first()) as Row | undefined;
  if (row === undefined) return undefined;
  return (await withItems(q, [row]))[0];
}

/** Most recent first (contract §4a); ties in time broken by the order of insertion. */
export async function listAnticipations(
  q: Q,
  scope: SellerScope,
  page: number,
  limit: number,
): Promise<{ data: Anticipation[]; total: number }> {
  const query = scoped(q, scope);
  const { rows, total } = await pagedQuery<Row>(query, ['created_at', 'seq'], page, limit);
  return { data: await withItems(q, rows), total };
}

export interface Limits {
  /** Contract §4/§4a exposure: the item gross of the seller's anticipated receivables originally due after today. */
  outstandingCents: number;
  /** The cash the tenant's treasury set aside for anticipations (the directory's figure; 0 until it says). */
  treasuryCashCents: number;
  /** What this environment's executions have paid out of it. */
  cashOutCents: number;
}

/** The three figures of the limit blocks in one round trip (a simulation is latency-bound). */
export async function limitsOf(q: Q, scope: SellerScope, today: string): Promise<Limits> {
  const result = await q.raw(
    `select
       (select coalesce(sum(gross_amount_cents), 0) from anticipation_items where tenant_id = ? and livemode = ? and seller_id = ? and due_date > ?) as outstanding,
       (select treasury_available_cash_cents from tenants where tenant_id = ?) as treasury,
       (select cash_out_cents from treasury where tenant_id = ? and livemode = ?) as cash_out`,
    [
      scope.tenantId,
      scope.livemode,
      scope.sellerId,
      today,
      scope.tenantId,
      scope.tenantId,
      scope.livemode,
    ],
  );
  const rows = result.rows as Row[];
  return {
    outstandingCents: firstValue(rows, 'outstanding'),
    treasuryCashCents: firstValue(rows, 'treasury'),
    cashOutCents: firstValue(rows, 'cash_out'),
  };
}

/**
 * Locks the tenant's treasury row of this environment (creating it at zero): every execution of the
 * tenant takes it first, so two executions never both spend the same cash, nor the same exposure, nor
 * the same receivable.
 */
export async function lockTreasury(trx: Tx, tenantId: string, livemode: boolean): Promise<void> {
  await trx('treasury')
    .insert({ tenant_id: tenantId, livemode, cash_out_cents: 0 })
    .onConflict(['tenant_id', 'livemode'])
    .ignore();
  const row = (await trx('treasury')
    .where({ tenant_id: tenantId, livemode })
    .forUpdate()
    .first('cash_out_cents')) as Row | undefined;
  assert(row !== undefined, 'treasury.row-present-under-lock', { tenant_id: tenantId, livemode });
}

export async function addCashOut(
  trx: Tx,
  tenantId: string,
  livemode: boolean,
  cents: number,
): Promise<void> {
  await trx('treasury')
    .where({ tenant_id: tenantId, livemode })
    .update({ cash_out_cents: trx.raw('cash_out_cents + ?', [cents]), updated_at: trx.fn.now() });
}
