import type { Tx } from '@pgw/platform-db';
import {
  recordFromRow,
  tableReads,
  tenantRowWrites,
  termsFromRow,
  type DirectoryRecord,
  type Terms,
} from './queries';

export interface PricingPlan extends DirectoryRecord, Terms {
  tenantId: string;
  name: string;
  isDefault: boolean;
}

function fromRow(row: Record<string, unknown>): PricingPlan {
  return {
    tenantId: String(row.tenant_id),
    name: String(row.name),
    ...termsFromRow(row),
    isDefault: row.is_default === true,
    ...recordFromRow(row),
  };
}

const pricingPlans = tableReads('pricing_plans', fromRow);

export const findPricingPlan = pricingPlans.find;

/** One page of the tenant's pricing plans, newest first. */
export const listPricingPlansOfTenant = pricingPlans.pageOfTenant;

const pricingPlanWrites = tenantRowWrites('pricing_plans', toRow);
export const insertPricingPlan = pricingPlanWrites.insert;
export const updatePricingPlan = pricingPlanWrites.update;

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

/** The tenant's current default plan, locked: making another plan the default changes this one too. */
export async function findDefaultPlanForUpdate(
  trx: Tx,
  tenantId: string,
): Promise<PricingPlan | null> {
  const row: Record<string, unknown> | undefined = await trx('pricing_plans')
    .where({ tenant_id: tenantId, is_default: true })
    .first()
    .forUpdate();
  return row === undefined ? null : fromRow(row);
}
