import { DEFAULT_MDR_BPS, resolvePricing, type PlanTerms, type SellerTerms } from './pricing';

const seller: SellerTerms = {
  sellerId: 'seller_1',
  tenantId: 'ten_1',
  settlementDelayDays: 14,
  mdrBps: { credit_card: 250 },
  pricingPlanId: null,
};
const plan = (id: string, over: Partial<PlanTerms> = {}): PlanTerms => ({
  pricingPlanId: id,
  tenantId: 'ten_1',
  settlementDelayDays: 2,
  mdrBps: { credit_card: 199 },
  isDefault: false,
  ...over,
});

describe('pricing resolution', () => {
  it("takes the seller's override plan over the tenant's default plan", () => {
    const r = resolvePricing({
      method: 'credit_card',
      seller: { ...seller, pricingPlanId: 'plan_o' },
      overridePlan: plan('plan_o', { mdrBps: { credit_card: 150 }, settlementDelayDays: 7 }),
      defaultPlan: plan('plan_d', { isDefault: true }),
    });
    expect(r).toEqual({
      ok: true,
      pricing: { pricingPlanId: 'plan_o', mdrBps: 150, settlementDelayDays: 7 },
    });
  });

  it("takes the tenant's default plan when the seller has no override", () => {
    expect(
      resolvePricing({
        method: 'credit_card',
        seller,
        overridePlan: undefined,
        defaultPlan: plan('plan_d', { isDefault: true }),
      }),
    ).toEqual({
      ok: true,
      pricing: { pricingPlanId: 'plan_d', mdrBps: 199, settlementDelayDays: 2 },
    });
  });

  it("falls back to the seller's config without a plan, then to the documented MDR defaults per method", () => {
    expect(
      resolvePricing({
        method: 'credit_card',
        seller,
        overridePlan: undefined,
        defaultPlan: undefined,
      }),
    ).toEqual({ ok: true, pricing: { pricingPlanId: null, mdrBps: 250, settlementDelayDays: 14 } });
    expect(
      resolvePricing({ method: 'pix', seller, overridePlan: undefined, defaultPlan: undefined }),
    ).toEqual({
      ok: true,
      pricing: { pricingPlanId: null, mdrBps: DEFAULT_MDR_BPS.pix, settlementDelayDays: 14 },
    });
    // A plan without a rate for the method leaves it to the seller's config.
    expect(
      resolvePricing({
        method: 'credit_card',
        seller,
        overridePlan: undefined,
        defaultPlan: plan('plan_d', { mdrBps: {} }),
      }),
    ).toMatchObject({ ok: true, pricing: { pricingPlanId: 'plan_d', mdrBps: 250 } });
  });

  it('waits rather than guess when the seller or its override plan is not known yet', () => {
    expect(
      resolvePricing({
        method: 'pix',
        seller: undefined,
        overridePlan: undefined,
        defaultPlan: undefined,
      }),
    ).toEqual({ ok: false, reason: 'seller_unknown' });
    expect(
      resolvePricing({
        method: 'pix',
        seller: { ...seller, pricingPlanId: 'plan_x' },
        overridePlan: undefined,
        defaultPlan: plan('plan_d'),
      }),
    ).toEqual({ ok: false, reason: 'plan_unknown' });
  });
});
