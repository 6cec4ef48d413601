import type { Knex } from 'knex';
import type { Tx } from '@pgw/platform-db';
import { aggregate, instant, int, text, textOrNull, type Row } from './rows';
import type { SellerScope } from './receivables.repository';

type Q = Knex | Tx;

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

export async function insertAnticipation(trx: Tx, a: Anticipation): Promise<void> {
  await trx('anticipations').insert({
    id: a.id,
    tenant_id: a.tenantId,
    livemode: a.livemode,
    seller_id: a.sellerId,
    status: a.status,
    gross_amount_cents: a.grossCents,
    fee_amount_cents: a.feeCents,
    net_amount_cents: a.netCents,
    fee_bps_per_month: a.feeBpsPerMonth,
    settlement_delay_days: a.settlementDelayDays,
    pricing_plan_id: a.pricingPlanId,
    executed_on: a.executedOn,
    created_at: a.createdAt,
  });
  // The primary key on receivable_id refuses a receivable anticipated before, whatever the caller checked.
  await trx('anticipation_items').insert(
    a.items.map((item, position) => ({
      receivable_id: item.receivableId,
      anticipation_id: a.id,
      position,
      tenant_id: a.tenantId,
      livemode: a.livemode,
      seller_id: a.sellerId,
      charge_id: item.chargeId,
      due_date: item.dueDate,
      receivable_version: item.receivableVersion,
      days_anticipated: item.daysAnticipated,
      gross_amount_cents: item.grossCents,
      fee_amount_cents: item.feeCents,
      net_amount_cents: item.netCents,
    })),
  );
}

function toItem(row: Row): AnticipationItem {
  return {
    receivableId: text(row.receivable_id),
    chargeId: text(row.charge_id),
    dueDate: text(row.due_date),
    receivableVersion: int(row.receivable_version),
    daysAnticipated: int(row.days_anticipated),
    grossCents: int(row.gross_amount_cents),
    feeCents: int(row.fee_amount_cents),
    netCents: int(row.net_amount_cents),
  };
}

function toAnticipation(row: Row, items: AnticipationItem[]): Anticipation {
  return {
    id: text(row.id),
    tenantId: text(row.tenant_id),
    livemode: row.livemode === true,
    sellerId: text(row.seller_id),
    status: 'succeeded',
    grossCents: int(row.gross_amount_cents),
    feeCents: int(row.fee_amount_cents),
    netCents: int(row.net_amount_cents),
    feeBpsPerMonth: int(row.fee_bps_per_month),
    settlementDelayDays: int(row.settlement_delay_days),
    pricingPlanId: textOrNull(row.pricing_plan_id),
    executedOn: text(row.executed_on),
    createdAt: instant(row.created_at),
    items,
  };
}

async function withItems(q: Q, rows: Row[]): Promise<Anticipation[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => text(r.id));
  const itemRows = (await q('anticipation_items').whereIn('anticipation_id', ids).orderBy([{ column: 'anticipation_id' }, { column: 'position' }])) as Row[];
  const byAnticipation = new Map<string, AnticipationItem[]>();
  for (const row of itemRows) {
    const id = text(row.anticipation_id);
    byAnticipation.set(id, [...(byAnticipation.get(id) ?? []), toItem(row)]);
  }
  return rows.map((row) => toAnticipation(row, byAnticipation.get(text(row.id)) ?? []));
}

const scoped = (q: Q, scope: SellerScope) => q('anticipations').where({ tenant_id: scope.tenantId, livemode: scope.livemode, seller_id: scope.sellerId });

export async function findAnticipation(q: Q, scope: SellerScope, id: string): Promise<Anticipation | undefined> {
  const row = (await scoped(q, scope).andWhere({ id }).first()) as Row | undefined;
  if (row === undefined) return undefined;
  return (await withItems(q, [row]))[0];
}

/** Most recent first (contract §4a); ties in time broken by the order of insertion. */
export async function listAnticipations(q: Q, scope: SellerScope, page: number, limit: number): Promise<{ data: Anticipation[]; total: number }> {
  const total = aggregate((await scoped(q, scope).count({ count: '*' })) as Row[], 'count');
  const rows = (await scoped(q, scope)
    .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'seq', order: 'desc' }])
    .limit(limit)
    .offset((page - 1) * limit)) as Row[];
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
    [scope.tenantId, scope.livemode, scope.sellerId, today, scope.tenantId, scope.tenantId, scope.livemode],
  );
  const rows = result.rows as Row[];
  return { outstandingCents: aggregate(rows, 'outstanding'), treasuryCashCents: aggregate(rows, 'treasury'), cashOutCents: aggregate(rows, 'cash_out') };
}

/**
 * Locks the tenant's treasury row of this environment (creating it at zero): every execution of the
 * tenant takes it first, so two executions never both spend the same cash, nor the same exposure, nor
 * the same receivable.
 */
export async function lockTreasury(trx: Tx, tenantId: string, livemode: boolean): Promise<void> {
  await trx('treasury').insert({ tenant_id: tenantId, livemode, cash_out_cents: 0 }).onConflict(['tenant_id', 'livemode']).ignore();
  const row = (await trx('treasury').where({ tenant_id: tenantId, livemode }).forUpdate().first('cash_out_cents')) as Row | undefined;
  if (row === undefined) throw new Error(`treasury row of ${tenantId} vanished under its lock`);
}

export async function addCashOut(trx: Tx, tenantId: string, livemode: boolean, cents: number): Promise<void> {
  await trx('treasury').where({ tenant_id: tenantId, livemode }).update({ cash_out_cents: trx.raw('cash_out_cents + ?', [cents]), updated_at: trx.fn.now() });
}
