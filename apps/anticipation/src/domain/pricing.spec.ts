import { resolvePricing, type PlanTerms, type SellerTerms } from './pricing';

const seller = (over: Partial<SellerTerms> = {}): SellerTerms => ({
  sellerId: 'seller_a',
  tenantId: 'ten_a',
  anticipationLimitCents: 0,
  feeBpsPerMonth: 199,
  settlementDelayDays: 30,
  pricingPlanId: null,
  ...over,
});
const plan = (id: string, over: Partial<PlanTerms> = {}): PlanTerms => ({
  pricingPlanId: id,
  tenantId: 'ten_a',
  feeBpsPerMonth: 150,
  settlementDelayDays: 15,
  isDefault: false,
  ...over,
});

describe('anticipation pricing resolution', () => {
  it('takes the seller override plan before the tenant default plan', () => {
    // Proves the first source of api-v1's order wins when both plans exist.
    const r = resolvePricing({
      seller: seller({ pricingPlanId: 'plan_o' }),
      overridePlan: plan('plan_o', { feeBpsPerMonth: 120, settlementDelayDays: 2 }),
      defaultPlan: plan('plan_d', { isDefault: true }),
    });
    expect(r).toEqual({
      ok: true,
      pricing: {
        feeBpsPerMonth: 120,
        settlementDelayDays: 2,
        pricingPlanId: 'plan_o',
        source: 'override_plan',
      },
    });
  });

  it('takes the default plan when the seller has no override', () => {
    // Proves the second source.
    const r = resolvePricing({
      seller: seller(),
      overridePlan: undefined,
      defaultPlan: plan('plan_d', {
        isDefault: true,
        feeBpsPerMonth: 175,
        settlementDelayDays: 14,
      }),
    });
    expect(r).toEqual({
      ok: true,
      pricing: {
        feeBpsPerMonth: 175,
        settlementDelayDays: 14,
        pricingPlanId: 'plan_d',
        source: 'default_plan',
      },
    });
  });

  it("falls back to the seller's own configuration, with a null plan id", () => {
    // Proves the third source and its null pricing_plan_id.
    expect(
      resolvePricing({
        seller: seller({ feeBpsPerMonth: 210, settlementDelayDays: 31 }),
        overridePlan: undefined,
        defaultPlan: undefined,
      }),
    ).toEqual({
      ok: true,
      pricing: {
        feeBpsPerMonth: 210,
        settlementDelayDays: 31,
        pricingPlanId: null,
        source: 'seller',
      },
    });
  });

  it('refuses to price before the seller, or its override plan, is known here', () => {
    // Proves an override not yet copied never silently falls through to the default plan.
    expect(
      resolvePricing({ seller: undefined, overridePlan: undefined, defaultPlan: plan('plan_d') }),
    ).toEqual({ ok: false, reason: 'seller_unknown' });
    expect(
      resolvePricing({
        seller: seller({ pricingPlanId: 'plan_o' }),
        overridePlan: undefined,
        defaultPlan: plan('plan_d'),
      }),
    ).toEqual({ ok: false, reason: 'plan_unknown' });
  });
});
