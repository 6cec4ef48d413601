// Which MDR rate and which D+N apply to a charge: contract §4 and api-v1 (anticipation pricing) say the
// white-label's commercial plan decides when one is set (the seller's override plan, else the tenant's
// default plan), and the seller's own config otherwise. Pure: the caller loads the local copies.

export const PAYMENT_METHODS = ['credit_card', 'debit_card', 'pix', 'boleto'] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

export function isPaymentMethod(value: string): value is PaymentMethod {
  return (PAYMENT_METHODS as readonly string[]).includes(value);
}

/**
 * MDR when neither the plan nor the seller's config names a rate for the method: the same values the
 * gateway gives a new seller (apps/gateway directory defaults), so that both sides tell one story.
 * Basis points of the gross amount, one rate per method (not tiered by installment count in v1).
 */
export const DEFAULT_MDR_BPS: Readonly<Record<PaymentMethod, number>> = {
  credit_card: 299,
  debit_card: 199,
  pix: 99,
  boleto: 149,
};

/** D+N of credit card receivables when the seller's config does not say (contract §4: default 30). */
export const DEFAULT_CREDIT_DELAY_DAYS = 30;

export interface SellerTerms {
  sellerId: string;
  tenantId: string;
  settlementDelayDays: number;
  mdrBps: Record<string, number>;
  /** The seller's override plan, if any. */
  pricingPlanId: string | null;
}

export interface PlanTerms {
  pricingPlanId: string;
  tenantId: string;
  settlementDelayDays: number;
  mdrBps: Record<string, number>;
  isDefault: boolean;
}

export interface ResolvedPricing {
  /** The plan that decided the terms; null when the seller's own config did. */
  pricingPlanId: string | null;
  mdrBps: number;
  settlementDelayDays: number;
}

export type PricingResolution =
  | { ok: true; pricing: ResolvedPricing }
  /** The local copy is not there yet (directory events arrive on their own topic): try again when it is. */
  | { ok: false; reason: 'seller_unknown' | 'plan_unknown' };

export interface PricingInput {
  method: PaymentMethod;
  seller: SellerTerms | undefined;
  /** The plan named by seller.pricingPlanId, when the local copy has it. */
  overridePlan: PlanTerms | undefined;
  /** The tenant's default plan, if any. */
  defaultPlan: PlanTerms | undefined;
}

function bpsOf(map: Record<string, number> | undefined, method: PaymentMethod): number | undefined {
  const value = map?.[method];
  return value !== undefined && Number.isSafeInteger(value) && value >= 0 && value <= 10_000
    ? value
    : undefined;
}

export function resolvePricing(input: PricingInput): PricingResolution {
  const { seller, method } = input;
  if (seller === undefined) return { ok: false, reason: 'seller_unknown' };
  // An override plan we have not heard of yet must not silently price the charge with other terms.
  if (seller.pricingPlanId !== null && input.overridePlan === undefined)
    return { ok: false, reason: 'plan_unknown' };
  const plan = input.overridePlan ?? input.defaultPlan;
  // A plan without a rate for the method leaves that method to the seller's config, then to the defaults.
  const mdrBps =
    bpsOf(plan?.mdrBps, method) ?? bpsOf(seller.mdrBps, method) ?? DEFAULT_MDR_BPS[method];
  const delay = plan?.settlementDelayDays ?? seller.settlementDelayDays;
  const settlementDelayDays =
    Number.isSafeInteger(delay) && delay >= 0 ? delay : DEFAULT_CREDIT_DELAY_DAYS;
  return {
    ok: true,
    pricing: { pricingPlanId: plan?.pricingPlanId ?? null, mdrBps, settlementDelayDays },
  };
}
