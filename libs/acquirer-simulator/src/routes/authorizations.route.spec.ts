// The authorizations routes: authorize (the test cards' outcomes, contract §6), read, capture and cancel.
import { simHarness } from '../testing/sim-harness';

const { acquirer, card, ref, value } = simHarness();

describe('the authorizations routes', () => {
  it('gives each test card its brand and its authorization outcome, and approves any other Luhn-valid number', async () => {
    const cases: Array<[string, string, Record<string, unknown>]> = [
      ['4111111111111111', 'visa', { status: 'captured', refusedReason: null, returnCode: '00' }],
      [
        '5555555555554444',
        'mastercard',
        { status: 'captured', refusedReason: null, returnCode: '00' },
      ],
      ['378282246310005', 'amex', { status: 'captured', refusedReason: null, returnCode: '00' }],
      [
        '4000000000000002',
        'visa',
        {
          status: 'refused',
          refusedReason: 'card_declined',
          returnCode: '05',
          authorizationCode: null,
        },
      ],
      [
        '4000000000009995',
        'visa',
        {
          status: 'refused',
          refusedReason: 'insufficient_funds',
          returnCode: '51',
          authorizationCode: null,
        },
      ],
      [
        '4000000000000069',
        'visa',
        {
          status: 'refused',
          refusedReason: 'expired_card',
          returnCode: '54',
          authorizationCode: null,
        },
      ],
      [
        '4000000000000119',
        'visa',
        {
          status: 'failed',
          refusedReason: 'processing_error',
          authorizationCode: null,
          capturedAmountCents: 0,
        },
      ],
      ['6362970000457013', 'elo', { status: 'captured', refusedReason: null, returnCode: '00' }],
    ];
    for (const [number, brand, expected] of cases) {
      const stored = value(
        await acquirer.storeCard({
          reference: ref('card'),
          number,
          expMonth: 1,
          expYear: 2031,
          holderName: 'ANA',
        }),
      );
      expect([number, stored.brand, stored.last4]).toEqual([number, brand, number.slice(-4)]);
      const auth = value(
        await acquirer.authorize({
          reference: ref('auth'),
          cardRef: stored.cardRef,
          amountCents: 1000,
          installments: 1,
          capture: true,
        }),
      );
      expect([number, auth]).toEqual([number, expect.objectContaining(expected)]);
      if (auth.status === 'captured') expect(auth.authorizationCode).toMatch(/^[A-Z0-9]{6}$/);
    }
  });

  it('captures an authorization once, cancels only what is not captured, and refunds only what is captured', async () => {
    const cardRef = await card('4111111111111111');
    const held = value(
      await acquirer.authorize({
        reference: ref('auth'),
        cardRef,
        amountCents: 5000,
        installments: 2,
        capture: false,
      }),
    );
    expect(held).toMatchObject({ status: 'authorized', capturedAmountCents: 0, capturedAt: null });
    expect(
      await acquirer.refund({
        reference: ref('refund'),
        transactionId: held.transactionId,
        amountCents: 1,
      }),
    ).toMatchObject({ kind: 'rejected', code: 'not_refundable' });
    const captured = value(await acquirer.capture({ transactionId: held.transactionId }));
    expect(captured).toMatchObject({
      status: 'captured',
      capturedAmountCents: 5000,
      capturedAt: '2026-03-01T12:00:00.000Z',
    });
    expect(value(await acquirer.capture({ transactionId: held.transactionId }))).toEqual(captured);
    expect(await acquirer.cancel({ transactionId: held.transactionId })).toMatchObject({
      ok: false,
      kind: 'rejected',
      code: 'not_cancelable',
    });

    const other = value(
      await acquirer.authorize({
        reference: ref('auth'),
        cardRef,
        amountCents: 700,
        installments: 1,
        capture: false,
      }),
    );
    const canceled = value(await acquirer.cancel({ transactionId: other.transactionId }));
    expect(canceled.status).toBe('canceled');
    expect(value(await acquirer.cancel({ transactionId: other.transactionId }))).toEqual(canceled);
    expect(await acquirer.capture({ transactionId: other.transactionId })).toMatchObject({
      ok: false,
      kind: 'rejected',
      code: 'not_capturable',
    });
    expect(await acquirer.capture({ transactionId: 'txn_doesnotexist' })).toMatchObject({
      ok: false,
      kind: 'not_found',
    });
  });

  it('refuses an authorization on a card_ref it never issued', async () => {
    const result = await acquirer.authorize({
      reference: ref('auth'),
      cardRef: 'card_unknown',
      amountCents: 1,
      installments: 1,
      capture: true,
    });
    expect(result).toMatchObject({ ok: false, kind: 'rejected', code: 'card_not_found' });
  });
});
