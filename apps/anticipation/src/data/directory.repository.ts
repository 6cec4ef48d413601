import type { Knex } from 'knex';
import type { EventMap } from '@pgw/contracts';
import type { Tx } from '@pgw/platform-db';
import type { PlanTerms, SellerTerms } from '../domain/pricing';
import { int, text, textOrNull, type Row } from './rows';

type Q = Knex | Tx;

// Directory events carry the whole state and a growing version: an upsert that keeps the higher version
// makes a repeat or a late, older event change nothing.

export async function upsertTenant(trx: Tx, event: EventMap['gateway.tenant-changed.v1']): Promise<void> {
  await trx.raw(
    `insert into tenants (tenant_id, treasury_available_cash_cents, version, updated_at) values (?, ?, ?, now())
     on conflict (tenant_id) do update set treasury_available_cash_cents = excluded.treasury_available_cash_cents,
       version = excluded.version, updated_at = now()
     where tenants.version < excluded.version`,
    [event.tenant_id, event.treasury_available_cash_cents, event.version],
  );
}

export async function upsertSeller(trx: Tx, event: EventMap['gateway.seller-changed.v1']): Promise<void> {
  await trx.raw(
    `insert into sellers (seller_id, tenant_id, anticipation_limit_cents, fee_bps_per_month, settlement_delay_days, pricing_plan_id, version, updated_at)
     values (?, ?, ?, ?, ?, ?, ?, now())
     on conflict (seller_id) do update set tenant_id = excluded.tenant_id, anticipation_limit_cents = excluded.anticipation_limit_cents,
       fee_bps_per_month = excluded.fee_bps_per_month, settlement_delay_days = excluded.settlement_delay_days,
       pricing_plan_id = excluded.pricing_plan_id, version = excluded.version, updated_at = now()
     where sellers.version < excluded.version`,
    [event.seller_id, event.tenant_id, event.anticipation_limit_cents, event.fee_bps_per_month, event.settlement_delay_days, event.pricing_plan_id, event.version],
  );
}

export async function upsertPlan(trx: Tx, event: EventMap['gateway.pricing-plan-changed.v1']): Promise<void> {
  await trx.raw(
    `insert into pricing_plans (pricing_plan_id, tenant_id, fee_bps_per_month, settlement_delay_days, is_default, version, updated_at)
     values (?, ?, ?, ?, ?, ?, now())
     on conflict (pricing_plan_id) do update set tenant_id = excluded.tenant_id, fee_bps_per_month = excluded.fee_bps_per_month,
       settlement_delay_days = excluded.settlement_delay_days, is_default = excluded.is_default, version = excluded.version, updated_at = now()
     where pricing_plans.version < excluded.version`,
    [event.pricing_plan_id, event.tenant_id, event.fee_bps_per_month, event.settlement_delay_days, event.is_default, event.version],
  );
}

function toSeller(row: Row): SellerTerms {
  return {
    sellerId: text(row.seller_id),
    tenantId: text(row.tenant_id),
    anticipationLimitCents: int(row.anticipation_limit_cents, 'anticipation_limit_cents'),
    feeBpsPerMonth: int(row.fee_bps_per_month),
    settlementDelayDays: int(row.settlement_delay_days),
    pricingPlanId: textOrNull(row.pricing_plan_id),
  };
}

function toPlan(row: Row): PlanTerms {
  return {
    pricingPlanId: text(row.pricing_plan_id),
    tenantId: text(row.tenant_id),
    feeBpsPerMonth: int(row.fee_bps_per_month),
    settlementDelayDays: int(row.settlement_delay_days),
    isDefault: row.is_default === true,
  };
}

/** The seller's copy; locked when an execution reads its limit and price, so a change waits for it. */
export async function findSeller(q: Q, tenantId: string, sellerId: string, options: { lock?: boolean } = {}): Promise<SellerTerms | undefined> {
  const query = q('sellers').where({ seller_id: sellerId, tenant_id: tenantId }).first();
  const row = (await (options.lock === true ? query.forUpdate() : query)) as Row | undefined;
  return row === undefined ? undefined : toSeller(row);
}

export async function findPlan(q: Q, tenantId: string, planId: string): Promise<PlanTerms | undefined> {
  const row = (await q('pricing_plans').where({ pricing_plan_id: planId, tenant_id: tenantId }).first()) as Row | undefined;
  return row === undefined ? undefined : toPlan(row);
}

/** The tenant's default plan; should two claim it (a change in flight), the one changed last. */
export async function findDefaultPlan(q: Q, tenantId: string): Promise<PlanTerms | undefined> {
  const row = (await q('pricing_plans')
    .where({ tenant_id: tenantId, is_default: true })
    .orderBy([{ column: 'updated_at', order: 'desc' }, { column: 'pricing_plan_id', order: 'asc' }])
    .first()) as Row | undefined;
  return row === undefined ? undefined : toPlan(row);
}

/** The cash the tenant's treasury set aside for anticipations (0 until the directory says otherwise). */
export async function treasuryCash(q: Q, tenantId: string): Promise<number> {
  const row = (await q('tenants').where({ tenant_id: tenantId }).first('treasury_available_cash_cents')) as Row | undefined;
  return row === undefined ? 0 : int(row.treasury_available_cash_cents, 'treasury_available_cash_cents');
}
