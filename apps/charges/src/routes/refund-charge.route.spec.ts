import { REFUND_DECLINED_CARD as REFUND_DECLINED_PAN } from '@pgw/acquirer-simulator';
import { asOperator, cardCharge, outboxEvents, post, setProviderMode } from '../testing/harness';
import { chargeLifecycle } from '../testing/lifecycle';

const life = chargeLifecycle();
const { create, refund, charge, chargeIn } = life;

describe('refund (every allowed and refused transition)', () => {
  it('a partial refund leaves the charge partially_refunded; the rest refunds it in full', async () => {
    // Proves paid → partially_refunded → partially_refunded → refunded, with the refund resource and events.
    const c = await chargeIn('paid');
    const first = await refund(c.id, { amount_cents: 2_500, reason: 'requested_by_customer' });
    expect(first.statusCode).toBe(201);
    expect(first.json()).toEqual({
      id: expect.stringMatching(/^rf_[A-Za-z0-9]+$/),
      object: 'refund',
      status: 'succeeded',
      charge_id: c.id,
      amount_cents: 2_500,
      currency: 'BRL',
      reason: 'requested_by_customer',
      provider_reference: expect.stringMatching(/^rfd_/),
      succeeded_at: expect.any(String),
      created_at: expect.any(String),
      updated_at: expect.any(String),
      request_id: expect.stringMatching(/^req_/),
    });
    expect((await charge(c.id)).status).toBe('partially_refunded');
    expect((await refund(c.id, { amount_cents: 2_500 })).json().status).toBe('succeeded');
    expect((await charge(c.id)).status).toBe('partially_refunded');
    const rest = await refund(c.id);
    expect(rest.json()).toMatchObject({ status: 'succeeded', amount_cents: 5_000 });
    expect((await charge(c.id)).status).toBe('refunded');

    const events = await outboxEvents(life.h, c.id);
    expect(events.map((e) => e.type)).toEqual([
      'charges.charge-created.v1',
      'charges.charge-paid.v2',
      'charges.refund-succeeded.v1',
      'charges.charge-partially-refunded.v1',
      'charges.refund-succeeded.v1',
      'charges.charge-partially-refunded.v1',
      'charges.refund-succeeded.v1',
      'charges.charge-refunded.v1',
    ]);
    const last = events[6]!.event as {
      refund: { amount_cents: number; refund_id: string };
      charge: { refunded_cents: number; status: string };
      resource_json: string;
    };
    expect(last.refund).toMatchObject({ amount_cents: 5_000, refund_id: rest.json().id });
    expect(last.charge).toMatchObject({ refunded_cents: 10_000, status: 'refunded' });
    const { request_id: _r, ...resource } = rest.json();
    expect(JSON.parse(last.resource_json)).toEqual(resource);
  });

  it.each([
    'pending',
    'authorized',
    'refused',
    'canceled',
    'refunded',
    'chargeback',
    'failed',
  ] as const)('refuses to refund a %s charge: 422 charge_not_refundable', async (status) => {
    // Proves refund is refused from every status but paid and partially_refunded, and no refund row is left.
    const c = await chargeIn(status);
    const before = await life.h.db.read((q) => q('refunds').where({ charge_id: c.id }));
    const res = await refund(c.id, { amount_cents: 1 });
    expect(res.statusCode).toBe(422);
    expect(res.json().error.code).toBe('charge_not_refundable');
    expect(await life.h.db.read((q) => q('refunds').where({ charge_id: c.id }))).toHaveLength(
      before.length,
    );
  });

  it('refuses more than the remaining amount: 422 refund_amount_exceeds_remaining on amount_cents', async () => {
    // Proves the remaining-amount rule after a partial refund.
    const c = await chargeIn('partially_refunded');
    const res = await refund(c.id, { amount_cents: 9_901 });
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toMatchObject({
      code: 'refund_amount_exceeds_remaining',
      param: 'amount_cents',
    });
    expect((await refund(c.id, { amount_cents: 9_900 })).json().status).toBe('succeeded');
  });

  it.each([
    [{ amount_cents: 0 }, 'parameter_invalid', 'amount_cents'],
    [{ amount_cents: '10' }, 'parameter_invalid', 'amount_cents'],
    [{ reason: '' }, 'parameter_invalid', 'reason'],
    [{ reason: 'r'.repeat(121) }, 'parameter_invalid', 'reason'],
    [{ metadata: {} }, 'parameter_unknown', 'metadata'],
  ])('validates the refund body %j', async (body, code, param) => {
    // Proves each refund field rule with its param.
    const c = await chargeIn('paid');
    const res = await refund(c.id, body);
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toMatchObject({ code, param });
  });

  it('two concurrent refunds of the whole remaining amount: exactly one succeeds', async () => {
    // Proves the row lock and the in-flight count: racing refunds never exceed the amount.
    for (let round = 0; round < 3; round++) {
      const c = await chargeIn('partially_refunded');
      const answers = await Promise.all([
        refund(c.id, { amount_cents: 9_900 }),
        refund(c.id, { amount_cents: 9_900 }),
      ]);
      expect(answers.map((a) => a.statusCode).sort()).toEqual([201, 422]);
      expect(answers.find((a) => a.statusCode === 422)!.json().error.code).toBe(
        'refund_amount_exceeds_remaining',
      );
      const after = await charge(c.id);
      expect(after.status).toBe('refunded');
      expect(life.h.acquirer.authorizations.get(c.id)!.refunded_amount_cents).toBe(10_000);
    }
  });

  it('many concurrent partial refunds never refund more than the amount', async () => {
    // Proves the invariant under wider concurrency: 6 refunds of 30 % each, only 3 fit.
    const c = await chargeIn('paid');
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => refund(c.id, { amount_cents: 3_000 })),
    );
    expect(answers.filter((a) => a.statusCode === 201)).toHaveLength(3);
    const rows = await life.h.db.read((q) =>
      q('refunds').where({ charge_id: c.id, status: 'succeeded' }),
    );
    expect(rows.reduce((sum, r) => sum + Number(r.amount_cents), 0)).toBe(9_000);
  });

  it('a refund the acquirer declines is 201 failed, the charge unchanged, refund-failed written', async () => {
    // Proves the failed outcome of a refund.
    const c = await create(cardCharge(life.m.token(REFUND_DECLINED_PAN)));
    const res = await refund(c.id);
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ status: 'failed', succeeded_at: null });
    expect((await charge(c.id)).status).toBe('paid');
    expect((await outboxEvents(life.h, c.id)).map((e) => e.type).at(-1)).toBe(
      'charges.refund-failed.v1',
    );
    // The failed refund does not hold the amount: the whole of it may be refunded again.
    expect((await refund(c.id, { amount_cents: 10_000 })).json().error).toBeUndefined();
  });

  it('refunds a paid Pix at once (no provider refund in the simulator)', async () => {
    // Proves refunds of Pix and boleto charges succeed and move the charge like card refunds.
    const c = await chargeIn('pending');
    expect(
      (await post(life.h, `/admin/v1/simulations/charges/${c.id}/pay`, asOperator())).json().status,
    ).toBe('paid');
    expect((await refund(c.id, { amount_cents: 4_000 })).json()).toMatchObject({
      status: 'succeeded',
      provider_reference: null,
    });
    expect((await charge(c.id)).status).toBe('partially_refunded');
  });
});

describe('refund when the acquirer cannot be reached (contract §5)', () => {
  it('unavailable at refund: 502 provider_unavailable, nothing refunded, nothing left half-done', async () => {
    // Proves contract §4's 502 path: the refund is canceled, the amount stays refundable, the charge unchanged.
    const c = await chargeIn('paid');
    await setProviderMode(life.h, 'unavailable');
    const res = await refund(c.id);
    expect(res.statusCode).toBe(502);
    expect(res.json().error).toMatchObject({
      type: 'provider_error',
      code: 'provider_unavailable',
    });
    expect((await charge(c.id)).status).toBe('paid');
    const rows = await life.h.db.read((q) => q('refunds').where({ charge_id: c.id }));
    expect(rows.map((r) => r.status)).toEqual(['canceled']);
    expect((await outboxEvents(life.h, c.id)).map((e) => e.type)).toEqual([
      'charges.charge-created.v1',
      'charges.charge-paid.v2',
    ]);
    await setProviderMode(life.h, 'normal');
    expect((await refund(c.id)).json()).toMatchObject({
      status: 'succeeded',
      amount_cents: 10_000,
    });
  });
});
