import type { Knex } from 'knex';
import type { Tx } from '@pgw/platform-db';
import type { MdrBps } from '../directory/defaults';
import { pageOfRows, toDate, toInt, toMdrBps } from './rows';

export interface PricingPlan {
  id: string;
  tenantId: string;
  name: string;
  feeBpsPerMonth: number;
  settlementDelayDays: number;
  mdrBps: MdrBps;
  isDefault: boolean;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

function fromRow(row: Record<string, unknown>): PricingPlan {
  return {
    id: String(row.id),
    tenantId: String(row.tenant_id),
    name: String(row.name),
    feeBpsPerMonth: toInt(row.fee_bps_per_month, 'pricing_plans.fee_bps_per_month'),
    settlementDelayDays: toInt(row.settlement_delay_days, 'pricing_plans.settlement_delay_days'),
    mdrBps: toMdrBps(row.mdr_bps, 'pricing_plans.mdr_bps'),
    isDefault: row.is_default === true,
    version: toInt(row.version, 'pricing_plans.version'),
    createdAt: toDate(row.created_at, 'pricing_plans.created_at'),
    updatedAt: toDate(row.updated_at, 'pricing_plans.updated_at'),
  };
}

function toRow(plan: PricingPlan) {
  return {
    name: plan.name,
    fee_bps_per_month: plan.feeBpsPerMonth,
    settlement_delay_days: plan.settlementDelayDays,
    mdr_bps: JSON.stringify(plan.mdrBps),
    is_default: plan.isDefault,
    version: plan.version,
    updated_at: plan.updatedAt,
  };
}

export async function insertPricingPlan(trx: Tx, plan: PricingPlan): Promise<void> {
  await trx('pricing_plans').insert({ id: plan.id, tenant_id: plan.tenantId, created_at: plan.createdAt, ...toRow(plan) });
}

export async function updatePricingPlan(trx: Tx, plan: PricingPlan): Promise<void> {
  await trx('pricing_plans').where({ id: plan.id }).update(toRow(plan));
}

export async function findPricingPlan(q: Knex | Tx, id: string, options: { forUpdate?: boolean } = {}): Promise<PricingPlan | null> {
  const query = q('pricing_plans').where({ id }).first();
  const row: Record<string, unknown> | undefined = await (options.forUpdate === true ? query.forUpdate() : query);
  return row === undefined ? null : fromRow(row);
}

/** One page of the tenant's pricing plans, newest first. */
export async function listPricingPlansOfTenant(q: Knex | Tx, tenantId: string, page: number, limit: number): Promise<{ data: PricingPlan[]; total: number }> {
  const { rows, total } = await pageOfRows(q, 'pricing_plans', { tenant_id: tenantId }, page, limit);
  return { data: rows.map(fromRow), total };
}

/** The tenant's current default plan, locked: making another plan the default changes this one too. */
export async function findDefaultPlanForUpdate(trx: Tx, tenantId: string): Promise<PricingPlan | null> {
  const row: Record<string, unknown> | undefined = await trx('pricing_plans').where({ tenant_id: tenantId, is_default: true }).first().forUpdate();
  return row === undefined ? null : fromRow(row);
}
