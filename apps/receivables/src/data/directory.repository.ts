import type { PricingPlanChanged, SellerChanged } from '@pgw/contracts';
import type { Tx } from '@pgw/platform-db';
import type { PlanTerms, SellerTerms } from '../domain/pricing';
import { int, json, text, textOrNull } from './rows';

type Row = Record<string, unknown>;

// Directory events carry the whole state and a growing version: an upsert that keeps the higher version
// makes a repeat or a late, older event change nothing. Returns true when the copy changed.
export async function upsertSeller(trx: Tx, event: SellerChanged): Promise<boolean> {
  const result = await trx.raw(
    `insert into sellers (seller_id, tenant_id, settlement_delay_days, mdr_bps, pricing_plan_id, version, updated_at)
     values (?, ?, ?, ?::jsonb, ?, ?, now())
     on conflict (seller_id) do update set tenant_id = excluded.tenant_id, settlement_delay_days = excluded.settlement_delay_days,
       mdr_bps = excluded.mdr_bps, pricing_plan_id = excluded.pricing_plan_id, version = excluded.version, updated_at = now()
     where sellers.version < excluded.version
     returning seller_id`,
    [event.seller_id, event.tenant_id, event.settlement_delay_days, JSON.stringify(event.mdr_bps), event.pricing_plan_id, event.version],
  );
  return (result.rows as Row[]).length > 0;
}

export async function upsertPlan(trx: Tx, event: PricingPlanChanged): Promise<boolean> {
  const result = await trx.raw(
    `insert into pricing_plans (pricing_plan_id, tenant_id, settlement_delay_days, mdr_bps, is_default, version, updated_at)
     values (?, ?, ?, ?::jsonb, ?, ?, now())
     on conflict (pricing_plan_id) do update set tenant_id = excluded.tenant_id, settlement_delay_days = excluded.settlement_delay_days,
       mdr_bps = excluded.mdr_bps, is_default = excluded.is_default, version = excluded.version, updated_at = now()
     where pricing_plans.version < excluded.version
     returning pricing_plan_id`,
    [event.pricing_plan_id, event.tenant_id, event.settlement_delay_days, JSON.stringify(event.mdr_bps), event.is_default, event.version],
  );
  return (result.rows as Row[]).length > 0;
}

function toSeller(row: Row): SellerTerms {
  return {
    sellerId: text(row.seller_id),
    tenantId: text(row.tenant_id),
    settlementDelayDays: int(row.settlement_delay_days),
    mdrBps: json<Record<string, number>>(row.mdr_bps),
    pricingPlanId: textOrNull(row.pricing_plan_id),
  };
}

function toPlan(row: Row): PlanTerms {
  return {
    pricingPlanId: text(row.pricing_plan_id),
    tenantId: text(row.tenant_id),
    settlementDelayDays: int(row.settlement_delay_days),
    mdrBps: json<Record<string, number>>(row.mdr_bps),
    isDefault: row.is_default === true,
  };
}

/**
 * The tenant's pricing lock, held to the end of the transaction: a directory event takes it before it looks for
 * the charges waiting to be priced, and a charge that finds no pricing takes it before it reads the directory
 * again, so that one of the two sees the other (READ COMMITTED: each statement sees what committed before it).
 */
export async function lockTenantPricing(trx: Tx, tenantId: string): Promise<void> {
  await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`receivables.pricing:${tenantId}`]);
}

export async function findSeller(trx: Tx, tenantId: string, sellerId: string): Promise<SellerTerms | undefined> {
  const row = (await trx('sellers').where({ seller_id: sellerId, tenant_id: tenantId }).first()) as Row | undefined;
  return row === undefined ? undefined : toSeller(row);
}

export async function findPlan(trx: Tx, tenantId: string, planId: string): Promise<PlanTerms | undefined> {
  const row = (await trx('pricing_plans').where({ pricing_plan_id: planId, tenant_id: tenantId }).first()) as Row | undefined;
  return row === undefined ? undefined : toPlan(row);
}

/** The tenant's default plan; should two claim it (a change in flight), the one changed last. */
export async function findDefaultPlan(trx: Tx, tenantId: string): Promise<PlanTerms | undefined> {
  const row = (await trx('pricing_plans').where({ tenant_id: tenantId, is_default: true }).orderBy([{ column: 'updated_at', order: 'desc' }, { column: 'pricing_plan_id', order: 'asc' }]).first()) as Row | undefined;
  return row === undefined ? undefined : toPlan(row);
}
