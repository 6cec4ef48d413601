import {
  CHARGE_STATUSES,
  CHARGE_TRIGGERS,
  disputableCents,
  isCapturable,
  isRefundable,
  refundableCents,
  refundTrigger,
  transition,
  type ChargeStatus,
  type ChargeTrigger,
} from './charge';

// The diagram of charge-states.md, written out once more as the test's oracle: every arrow it draws.
const ARROWS: Array<[ChargeStatus, ChargeTrigger, ChargeStatus]> = [
  ['pending', 'authorization_approved', 'authorized'],
  ['pending', 'sale_approved', 'paid'],
  ['pending', 'authorization_refused', 'refused'],
  ['pending', 'provider_failed', 'failed'],
  ['pending', 'payment_confirmed', 'paid'],
  ['pending', 'pix_expired', 'canceled'],
  ['authorized', 'capture', 'paid'],
  ['authorized', 'authorization_expired', 'canceled'],
  ['paid', 'refunded_in_full', 'refunded'],
  ['paid', 'refunded_in_part', 'partially_refunded'],
  ['partially_refunded', 'refunded_in_full', 'refunded'],
  ['partially_refunded', 'refunded_in_part', 'partially_refunded'],
  ['paid', 'chargeback_opened', 'chargeback'],
  ['partially_refunded', 'chargeback_opened', 'chargeback'],
  ['chargeback', 'chargeback_lost', 'chargeback'],
];

describe('the charge state machine', () => {
  const allowed = new Map(ARROWS.map(([from, trigger, to]) => [`${from} ${trigger}`, to]));
  const cases = CHARGE_STATUSES.flatMap((status) =>
    CHARGE_TRIGGERS.filter((t) => t !== 'chargeback_won').map(
      (trigger) => [status, trigger] as const,
    ),
  );

  it.each(cases)('from %s, %s goes where the diagram says, or nowhere', (status, trigger) => {
    // Proves each of the 9 × 12 (status, trigger) pairs: the drawn arrows are taken, every other is refused.
    const expected = allowed.get(`${status} ${trigger}`) ?? null;
    expect(transition({ status, statusBeforeChargeback: null }, trigger)).toBe(expected);
  });

  it.each(['paid', 'partially_refunded'] as const)(
    'a won chargeback returns the charge to %s, where it was before',
    (previous) => {
      // Proves that winning gives the charge back its pre-dispute status, and that it is refused elsewhere.
      expect(
        transition({ status: 'chargeback', statusBeforeChargeback: previous }, 'chargeback_won'),
      ).toBe(previous);
      for (const status of CHARGE_STATUSES.filter((s) => s !== 'chargeback')) {
        expect(
          transition({ status, statusBeforeChargeback: previous }, 'chargeback_won'),
        ).toBeNull();
      }
    },
  );

  it('treats a chargeback without its previous status as a broken invariant', () => {
    // Proves that corrupted state stops the operation instead of guessing a status.
    expect(() =>
      transition({ status: 'chargeback', statusBeforeChargeback: null }, 'chargeback_won'),
    ).toThrow(/charge.chargeback-keeps-previous-status/);
  });

  it('captures only authorized manual card charges', () => {
    // Proves the capture rule of contract §4 across statuses, capture methods and payment methods.
    for (const status of CHARGE_STATUSES) {
      for (const captureMethod of ['automatic', 'manual'] as const) {
        for (const paymentMethod of ['credit_card', 'debit_card', 'pix', 'boleto'] as const) {
          const expected =
            status === 'authorized' &&
            captureMethod === 'manual' &&
            (paymentMethod === 'credit_card' || paymentMethod === 'debit_card');
          expect(isCapturable({ status, captureMethod, paymentMethod })).toBe(expected);
        }
      }
    }
  });

  it('refunds only paid and partially refunded charges', () => {
    // Proves the refund rule of contract §4 for every status.
    expect(CHARGE_STATUSES.filter(isRefundable)).toEqual(['paid', 'partially_refunded']);
  });

  it('counts refunds in flight against what may still be refunded, and never goes below zero', () => {
    // Proves the arithmetic that keeps racing refunds under the amount.
    expect(refundableCents(10_000, 2_500, 1_500)).toBe(6_000);
    expect(refundableCents(10_000, 10_000, 0)).toBe(0);
    expect(() => refundableCents(10_000, 9_000, 2_000)).toThrow();
    expect(refundTrigger(10_000, 10_000)).toBe('refunded_in_full');
    expect(refundTrigger(10_000, 9_999)).toBe('refunded_in_part');
    expect(() => refundTrigger(10_000, 10_001)).toThrow();
  });

  it("lets a chargeback take only what is still the seller's: amount − refunds (succeeded, in flight) − open or lost chargebacks", () => {
    // Proves the chargeback limit's arithmetic, a lost chargeback's money included, and that it never goes below zero.
    expect(disputableCents(10_000, { succeededCents: 0, inFlightCents: 0 }, 0)).toBe(10_000);
    expect(disputableCents(10_000, { succeededCents: 1_000, inFlightCents: 5_000 }, 0)).toBe(4_000);
    expect(disputableCents(10_000, { succeededCents: 1_000, inFlightCents: 0 }, 3_000)).toBe(6_000);
    expect(disputableCents(10_000, { succeededCents: 1_000, inFlightCents: 2_000 }, 3_000)).toBe(
      4_000,
    );
    expect(disputableCents(10_000, { succeededCents: 6_000, inFlightCents: 0 }, 4_000)).toBe(0);
    expect(disputableCents(10_000, { succeededCents: 6_000, inFlightCents: 3_000 }, 4_000)).toBe(0);
  });
});
