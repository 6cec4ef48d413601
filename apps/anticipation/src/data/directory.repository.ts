import { assert } from '@pgw/domain';
import type { Knex } from 'knex';
import type { EventMap } from '@pgw/contracts';
import type { Tx } from '@pgw/platform-db';
import { copyEvent, type CopyTable } from '@pgw/platform-directory';
import type { PlanTerms, SellerTerms } from '@pgw/anticipation-domain/pricing';

type Q = Knex | Tx;
type Row = Record<string, unknown>;

// Local copies of the gateway's directory (@pgw/platform-directory: the highest version wins).
export const TENANTS: CopyTable = { name: 'tenants', key: 'tenant_id' };
export const SELLERS: CopyTable = { name: 'sellers', key: 'seller_id' };
export const PRICING_PLANS: CopyTable = { name: 'pricing_plans', key: 'pricing_plan_id' };

export const upsertTenant = (trx: Tx, event: EventMap['gateway.tenant-changed.v1'], now: Date) =>
  copyEvent(trx, TENANTS, event, ['tenant_id', 'treasury_available_cash_cents'], now);

/** The columns a seller's copy and a plan's share: the terms, and the plan a seller names or a plan is. */
const TERMS = [
  'tenant_id',
  'fee_bps_per_month',
  'settlement_delay_days',
  'pricing_plan_id',
] as const;

export const upsertSeller = (trx: Tx, event: EventMap['gateway.seller-changed.v1'], now: Date) =>
  copyEvent(trx, SELLERS, event, [...TERMS, 'seller_id', 'anticipation_limit_cents'], now);

export const upsertPlan = (
  trx: Tx,
  event: EventMap['gateway.pricing-plan-changed.v1'],
  now: Date,
) => copyEvent(trx, PRICING_PLANS, event, [...TERMS, 'is_default'], now);

const numberOrNull = (value: unknown) =>
  value === null || value === undefined ? null : (value as number);

/** Locks the seller's copy for an execution: a directory change to its limit or price waits for it. */
export async function lockSeller(trx: Tx, tenantId: string, sellerId: string): Promise<void> {
  await trx('sellers')
    .where({ seller_id: sellerId, tenant_id: tenantId })
    .forUpdate()
    .select('seller_id');
}

export interface PricingTerms {
  seller: SellerTerms | undefined;
  /** The plan named by the seller's pricing_plan_id, when the copy has it. */
  overridePlan: PlanTerms | undefined;
  /** The tenant's default plan; should two claim it (a change in flight), the one changed last. */
  defaultPlan: PlanTerms | undefined;
}

/** The seller's terms and the two plans that may override them, in one round trip (a simulation is latency-bound). */
export async function pricingTermsOf(
  q: Q,
  tenantId: string,
  sellerId: string,
): Promise<PricingTerms> {
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
  assert(row !== undefined, 'pricing-terms.query-returns-a-row');
  const plan = (
    id: unknown,
    fee: unknown,
    delay: unknown,
    isDefault: boolean,
  ): PlanTerms | undefined =>
    id === null || id === undefined
      ? undefined
      : {
          pricingPlanId: id as string,
          tenantId,
          feeBpsPerMonth: fee as number,
          settlementDelayDays: delay as number,
          isDefault,
        };
  const limit = numberOrNull(row.anticipation_limit_cents);
  return {
    seller:
      row.seller_id === null || row.seller_id === undefined || limit === null
        ? undefined
        : {
            sellerId: row.seller_id as string,
            tenantId,
            anticipationLimitCents: limit,
            feeBpsPerMonth: row.fee_bps_per_month as number,
            settlementDelayDays: row.settlement_delay_days as number,
            pricingPlanId: row.pricing_plan_id as string | null,
          },
    overridePlan: plan(row.o_id, row.o_fee, row.o_delay, false),
    defaultPlan: plan(row.d_id, row.d_fee, row.d_delay, true),
  };
}
