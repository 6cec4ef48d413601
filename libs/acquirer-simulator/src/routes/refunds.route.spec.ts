// POST /acquirer/v1/refunds: once per reference, only what was captured, the refund-declined card.
import { REFUND_DECLINED_CARD } from '@pgw/acquirer-simulator-domain/test-cards';
import { simHarness } from '../testing/sim-harness';

const { acquirer, card, ref, value } = simHarness();

describe('POST /acquirer/v1/refunds', () => {
  it('refunds once per reference, so a retried refund never moves money twice', async () => {
    const cardRef = await card('4111111111111111');
    const auth = value(
      await acquirer.authorize({
        reference: ref('auth'),
        cardRef,
        amountCents: 1000,
        installments: 1,
        capture: true,
      }),
    );
    const input = { reference: ref('refund'), transactionId: auth.transactionId, amountCents: 600 };
    const a = value(await acquirer.refund(input));
    const b = value(await acquirer.refund(input));
    expect(b).toEqual(a);
    expect(a.status).toBe('succeeded');
    expect(value(await acquirer.getAuthorization(auth.reference)).refundedAmountCents).toBe(600);
    // 600 of 1000 refunded: 500 more is above what remains, 400 is exactly what remains.
    expect(
      await acquirer.refund({
        reference: ref('refund'),
        transactionId: auth.transactionId,
        amountCents: 500,
      }),
    ).toMatchObject({
      ok: false,
      kind: 'rejected',
      code: 'refund_amount_exceeds_captured',
    });
    expect(
      value(
        await acquirer.refund({
          reference: ref('refund'),
          transactionId: auth.transactionId,
          amountCents: 400,
        }),
      ).status,
    ).toBe('succeeded');
    expect(value(await acquirer.getRefund(input.reference))).toEqual(a);
    expect(await acquirer.getRefund('never-sent')).toMatchObject({ ok: false, kind: 'not_found' });
  });

  it('declines refunds of the refund-declined card with status failed, and counts nothing as refunded', async () => {
    const cardRef = await card(REFUND_DECLINED_CARD);
    const auth = value(
      await acquirer.authorize({
        reference: ref('auth'),
        cardRef,
        amountCents: 900,
        installments: 1,
        capture: true,
      }),
    );
    expect(auth.status).toBe('captured');
    const refund = value(
      await acquirer.refund({
        reference: ref('refund'),
        transactionId: auth.transactionId,
        amountCents: 900,
      }),
    );
    expect(refund).toMatchObject({ status: 'failed', failureReason: 'refund_declined' });
    expect(value(await acquirer.getAuthorization(auth.reference)).refundedAmountCents).toBe(0);
  });
});
