// Which anticipation price and D+N apply to a seller (api-v1 "POST /anticipations/simulate"): the
// white-label's commercial plan when one is set, the seller's override plan before the tenant's default
// plan; otherwise the seller's own configuration. Pure: the caller loads the local copies.

export interface SellerTerms {
  sellerId: string;
  tenantId: string;
  anticipationLimitCents: number;
  feeBpsPerMonth: number;
  settlementDelayDays: number;
  /** The seller's override plan, if any. */
  pricingPlanId: string | null;
}

export interface PlanTerms {
  pricingPlanId: string;
  tenantId: string;
  feeBpsPerMonth: number;
  settlementDelayDays: number;
  isDefault: boolean;
}

export interface AnticipationPricing {
  feeBpsPerMonth: number;
  settlementDelayDays: number;
  /** The plan that decided the terms; null when the seller's own configuration did. */
  pricingPlanId: string | null;
  source: 'override_plan' | 'default_plan' | 'seller';
}

export type PricingResolution =
  | { ok: true; pricing: AnticipationPricing }
  /** The local copy is not there yet (directory events arrive on their own topic): ask again shortly. */
  | { ok: false; reason: 'seller_unknown' | 'plan_unknown' };

export interface PricingInput {
  seller: SellerTerms | undefined;
  /** The plan named by seller.pricingPlanId, when the local copy has it. */
  overridePlan: PlanTerms | undefined;
  /** The tenant's default plan, if any. */
  defaultPlan: PlanTerms | undefined;
}

export function resolvePricing(input: PricingInput): PricingResolution {
  const { seller } = input;
  if (seller === undefined) return { ok: false, reason: 'seller_unknown' };
  if (seller.pricingPlanId !== null) {
    // An override plan we have not heard of yet must not silently price with other terms.
    const plan = input.overridePlan;
    if (plan === undefined || plan.pricingPlanId !== seller.pricingPlanId)
      return { ok: false, reason: 'plan_unknown' };
    return priced(plan, plan.pricingPlanId, 'override_plan');
  }
  const plan = input.defaultPlan;
  if (plan !== undefined) return priced(plan, plan.pricingPlanId, 'default_plan');
  return priced(seller, null, 'seller');
}

/** The terms of the plan or seller that decided them. */
function priced(
  terms: { feeBpsPerMonth: number; settlementDelayDays: number },
  pricingPlanId: string | null,
  source: AnticipationPricing['source'],
): PricingResolution {
  const { feeBpsPerMonth, settlementDelayDays } = terms;
  return { ok: true, pricing: { feeBpsPerMonth, settlementDelayDays, pricingPlanId, source } };
}
