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

const numberOrNull = (value: unknown, name: string) => (value === null || value === undefined ? null : int(value, name));

/** Locks the seller's copy for an execution: a directory change to its limit or price waits for it. */
export async function lockSeller(trx: Tx, tenantId: string, sellerId: string): Promise<void> {
  await trx('sellers').where({ seller_id: sellerId, tenant_id: tenantId }).forUpdate().select('seller_id');
}

export interface PricingTerms {
  seller: SellerTerms | undefined;
  /** The plan named by the seller's pricing_plan_id, when the copy has it. */
  overridePlan: PlanTerms | undefined;
  /** The tenant's default plan; should two claim it (a change in flight), the one changed last. */
  defaultPlan: PlanTerms | undefined;
}

/** The seller's terms and the two plans that may override them, in one round trip (a simulation is latency-bound). */
export async function pricingTermsOf(q: Q, tenantId: string, sellerId: string): Promise<PricingTerms> {
  const result = await q.raw(
    `select s.seller_id, s.anticipation_limit_cents, s.fee_bps_per_month, s.settlement_delay_days, s.pricing_plan_id,
            o.pricing_plan_id as o_id, o.fee_bps_per_month as o_fee, o.settlement_delay_days as o_delay,
            d.pricing_plan_id as d_id, d.fee_bps_per_month as d_fee, d.settlement_delay_days as d_delay
     from (select 1) as one
     left join sellers s on s.seller_id = ? and s.tenant_id = ?
     left join pricing_plans o on o.pricing_plan_id = s.pricing_plan_id and o.tenant_id = ?
     left join lateral (
       select pricing_plan_id, fee_bps_per_month, settlement_delay_days from pricing_plans
       where tenant_id = ? and is_default order by updated_at desc, pricing_plan_id limit 1
     ) d on true`,
    [sellerId, tenantId, tenantId, tenantId],
  );
  const row = (result.rows as Row[])[0];
  if (row === undefined) throw new Error('pricing terms: the query returned no row');
  const plan = (id: unknown, fee: unknown, delay: unknown, isDefault: boolean): PlanTerms | undefined =>
    id === null || id === undefined
      ? undefined
      : { pricingPlanId: text(id), tenantId, feeBpsPerMonth: int(fee, 'fee_bps_per_month'), settlementDelayDays: int(delay, 'settlement_delay_days'), isDefault };
  const limit = numberOrNull(row.anticipation_limit_cents, 'anticipation_limit_cents');
  return {
    seller:
      row.seller_id === null || row.seller_id === undefined || limit === null
        ? undefined
        : {
            sellerId: text(row.seller_id),
            tenantId,
            anticipationLimitCents: limit,
            feeBpsPerMonth: int(row.fee_bps_per_month, 'fee_bps_per_month'),
            settlementDelayDays: int(row.settlement_delay_days, 'settlement_delay_days'),
            pricingPlanId: textOrNull(row.pricing_plan_id),
          },
    overridePlan: plan(row.o_id, row.o_fee, row.o_delay, false),
    defaultPlan: plan(row.d_id, row.d_fee, row.d_delay, true),
  };
}
