// The commercial terms a seller gets when the operator does not say otherwise. One place, so that the
// operator API, the demo and the documentation agree.

export const PAYMENT_METHODS = ['credit_card', 'debit_card', 'pix', 'boleto'] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];
export type MdrBps = Record<PaymentMethod, number>;

export const SELLER_DEFAULTS = {
  /** MDR (merchant discount rate) by payment method, basis points of the gross amount. */
  mdrBps: { credit_card: 299, debit_card: 199, pix: 99, boleto: 149 } satisfies MdrBps,
  /** Anticipation price, basis points per month, pro rata per day. */
  feeBpsPerMonth: 199,
  /** D+N for credit card receivables (contract §4). */
  settlementDelayDays: 30,
  /**
   * How much of its future receivables a seller may anticipate. Zero: anticipation is credit the
   * platform extends, so it is granted explicitly by the operator, never by default.
   */
  anticipationLimitCents: 0,
  kycStatus: 'pending',
} as const;

export const TENANT_DEFAULTS = {
  /** Cash the tenant's treasury can pay out for anticipations; zero until the operator funds it. */
  treasuryAvailableCashCents: 0,
} as const;

/** Upper bounds of the operator API's numbers: far above any real value, well inside a safe integer. */
export const LIMITS = {
  bpsMax: 10_000,
  settlementDelayDaysMax: 366,
  amountCentsMax: 10_000_000_000_000,
  nameLengthMax: 255,
  rateLimitPerSecondMax: 100_000,
  urlLengthMax: 2_048,
} as const;

/** MDR by method: the defaults, overridden method by method. */
export function mdrWithDefaults(base: MdrBps, override: Partial<MdrBps> | undefined): MdrBps {
  return {
    credit_card: override?.credit_card ?? base.credit_card,
    debit_card: override?.debit_card ?? base.debit_card,
    pix: override?.pix ?? base.pix,
    boleto: override?.boleto ?? base.boleto,
  };
}
