import type { Knex } from 'knex';
import type { PricingPlanChanged, SellerChanged } from '@pgw/contracts';
import { inOneStatement, type Tx } from '@pgw/platform-db';
import { copyEvent, type CopyTable } from '@pgw/platform-directory';
import type { PlanTerms, SellerTerms } from '@pgw/receivables-domain/pricing';

type Row = Record<string, unknown>;

// Local copies of the gateway's directory (@pgw/platform-directory: the highest version wins). Each
// upsert answers true when the copy changed.
export const SELLERS: CopyTable = { name: 'sellers', key: 'seller_id' };
export const PRICING_PLANS: CopyTable = { name: 'pricing_plans', key: 'pricing_plan_id' };
/** The columns a seller's copy and a plan's share besides mdr_bps (the plan a seller names or a plan is). */
const TERMS = ['tenant_id', 'settlement_delay_days', 'pricing_plan_id'] as const;

export const upsertSeller = (trx: Tx, event: SellerChanged, now: Date) =>
  copyEvent(trx, SELLERS, event, [...TERMS, 'seller_id'], now, mdrAsJson(event));

export const upsertPlan = (trx: Tx, event: PricingPlanChanged, now: Date) =>
  copyEvent(trx, PRICING_PLANS, event, [...TERMS, 'is_default'], now, mdrAsJson(event));

/** The copies keep the MDR by method as a jsonb column. */
const mdrAsJson = (event: { mdr_bps: Record<string, number> }) => ({
  mdr_bps: JSON.stringify(event.mdr_bps),
});

/** What a seller's copy and a plan's share: the tenant, the settlement delay and the MDR by method. */
const termsOf = (row: Row) => ({
  tenantId: row.tenant_id as string,
  settlementDelayDays: row.settlement_delay_days as number,
  mdrBps: row.mdr_bps as Record<string, number>,
});

const toSeller = (row: Row): SellerTerms => ({
  sellerId: row.seller_id as string,
  ...termsOf(row),
  pricingPlanId: row.pricing_plan_id as string | null,
});

const toPlan = (row: Row): PlanTerms => ({
  pricingPlanId: row.pricing_plan_id as string,
  ...termsOf(row),
  isDefault: row.is_default === true,
});

/**
 * The tenant's pricing lock, held to the end of the transaction: a directory event takes it before it looks for
 * the charges waiting to be priced, and a charge that finds no pricing takes it before it reads the directory
 * again, so that one of the two sees the other (READ COMMITTED: each statement sees what committed before it).
 */
export async function lockTenantPricing(trx: Tx, tenantId: string): Promise<void> {
  await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`receivables.pricing:${tenantId}`]);
}

export interface PricingTerms {
  seller: SellerTerms | undefined;
  overridePlan: PlanTerms | undefined;
  defaultPlan: PlanTerms | undefined;
}

/**
 * What prices a seller's charge, in one query: the seller's copy, the plan it names (if any) and the tenant's
 * default plan (should two claim it, a change in flight, the one changed last). `tenant` and `seller` are the
 * SQL of each: placeholders, or the columns of a row the query is joined to.
 */
const pricingTermsSql = (tenant: string, seller: string) => `select row_to_json(s) as seller,
    row_to_json(p) as plan,
    (select row_to_json(d) from pricing_plans d where d.tenant_id = ${tenant} and d.is_default
     order by d.updated_at desc, d.pricing_plan_id asc limit 1) as default_plan
  from (select 1) as one
  left join sellers s on s.tenant_id = ${tenant} and s.seller_id = ${seller}
  left join pricing_plans p on p.tenant_id = s.tenant_id and p.pricing_plan_id = s.pricing_plan_id`;

/** Bindings: tenant, tenant, seller. */
const PRICING_TERMS = pricingTermsSql('?', '?');

type PricingRow = { seller: Row | null; plan: Row | null; default_plan: Row | null };

const termsFrom = (row: PricingRow | undefined): PricingTerms => ({
  seller: row?.seller ? toSeller(row.seller) : undefined,
  overridePlan: row?.plan ? toPlan(row.plan) : undefined,
  defaultPlan: row?.default_plan ? toPlan(row.default_plan) : undefined,
});

export async function findPricingTerms(
  trx: Tx,
  tenantId: string,
  sellerId: string,
): Promise<PricingTerms> {
  const result = await trx.raw<{ rows: PricingRow[] }>(PRICING_TERMS, [
    tenantId,
    tenantId,
    sellerId,
  ]);
  return termsFrom(result.rows[0]);
}

/** A seller of a tenant, as the key of `writeThenFindPricingTerms`'s terms. */
export const sellerKey = (tenantId: string, sellerId: string) => `${tenantId}/${sellerId}`;

/**
 * `write` (an insert … returning charge_id) and findPricingTerms of each of `sellers` in one statement, one
 * round trip: the ids the write returned, and each seller's terms (by `sellerKey`) as they were when the
 * statement began (the write's rows are not among them).
 */
export async function writeThenFindPricingTerms(
  trx: Knex | Tx,
  write: Knex.Sql,
  sellers: ReadonlyArray<{ tenantId: string; sellerId: string }>,
): Promise<{ written: Set<string>; terms: Map<string, PricingTerms> }> {
  if (sellers.length === 0) {
    const rows = await inOneStatement<{ charge_id: string }>(trx, [write]);
    return { written: new Set(rows.map((r) => r.charge_id)), terms: new Map() };
  }
  const result = await trx.raw<{
    rows: Array<PricingRow & { written: string[]; tenant_id: string; seller_id: string }>;
  }>(
    `with written as (${write.sql})
     select array(select charge_id from written) as written, wanted.tenant_id, wanted.seller_id,
       terms.seller, terms.plan, terms.default_plan
     from (values ${sellers.map(() => '(?, ?)').join(', ')}) as wanted (tenant_id, seller_id)
     cross join lateral (${pricingTermsSql('wanted.tenant_id', 'wanted.seller_id')}) as terms`,
    [...write.bindings, ...sellers.flatMap((s) => [s.tenantId, s.sellerId])],
  );
  return {
    written: new Set(result.rows[0]?.written ?? []),
    terms: new Map(
      result.rows.map((row) => [sellerKey(row.tenant_id, row.seller_id), termsFrom(row)]),
    ),
  };
}
