import {
  asOperator,
  buyer,
  cardCharge,
  outboxEvents,
  post,
  runJob,
  setProviderMode,
} from '../testing/harness';
import { chargeLifecycle } from '../testing/lifecycle';

const life = chargeLifecycle();
const { create, refund, charge, chargeIn, pastDeadline, today } = life;

describe('job routes', () => {
  it('are for the operator only, validate as_of_date, and answer {job, as_of_date, processed}', async () => {
    // Proves the operator-only door and the body rules of contract §5's jobs.
    expect((await post(life.h, '/admin/v1/jobs/pix-expiry', life.m.key)).statusCode).toBe(401);
    const bad = await post(life.h, '/admin/v1/jobs/pix-expiry', asOperator(), {
      as_of_date: '2026-13-01',
    });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().error).toMatchObject({ code: 'parameter_invalid', param: 'as_of_date' });
    const unknown = await post(life.h, '/admin/v1/jobs/pix-expiry', asOperator(), { when: 'now' });
    expect(unknown.json().error).toMatchObject({ code: 'parameter_unknown', param: 'when' });
    const ok = await post(life.h, '/admin/v1/jobs/refund-reconciliation', asOperator());
    expect(ok.json()).toEqual({
      job: 'refund-reconciliation',
      as_of_date: today(),
      processed: 0,
      request_id: expect.any(String),
    });
    expect(
      (await post(life.h, '/admin/v1/jobs/receivables-release', asOperator())).statusCode,
    ).toBe(404);
  });
});

describe('refund-reconciliation: what a provider timeout left unknown, resolved by reference', () => {
  it('timeout at create: 201 pending; the reconciliation job finds the authorization by reference, without a second one', async () => {
    // Proves the unknown outcome path: the charge waits, then takes the acquirer's outcome.
    await setProviderMode(life.h, 'timeout');
    const c = await create(cardCharge(life.m.token()));
    expect(c.status).toBe('pending');
    await setProviderMode(life.h, 'normal');
    pastDeadline(); // older than the acquirer's deadline (ACQUIRER_TIMEOUT_MS=200), by the service's clock
    const run = await runJob(life.h, 'refund-reconciliation');
    expect(run.processed).toBeGreaterThanOrEqual(1);
    expect(await charge(c.id)).toMatchObject({ status: 'paid', captured: true });
    expect(life.h.acquirer.authorizeCalls.filter((r) => r === c.id)).toHaveLength(1);
    expect((await outboxEvents(life.h, c.id)).map((e) => e.type)).toEqual([
      'charges.charge-created.v1',
      'charges.charge-paid.v2',
    ]);
  });

  it('timeout at Pix and boleto creation: pending without the block; reconciliation completes it', async () => {
    // Proves the same recovery for the PSP and the bank.
    await setProviderMode(life.h, 'timeout');
    const pix = await create({ amount: 100, payment_method: 'PIX', buyer: buyer() });
    const slip = await create({ amount: 100, payment_method: 'BOLETO', buyer: buyer() });
    expect([pix.status, pix.pix, slip.status, slip.boleto]).toEqual([
      'pending',
      undefined,
      'pending',
      undefined,
    ]);
    await setProviderMode(life.h, 'normal');
    pastDeadline();
    await runJob(life.h, 'refund-reconciliation');
    expect((await charge(pix.id)).pix).toMatchObject({ qr_code: expect.any(String) });
    expect((await charge(slip.id)).boleto).toMatchObject({
      barcode: expect.stringMatching(/^\d{44}$/),
    });
  });

  it('timeout at refund: 201 processing, the amount held; reconciliation resolves it by reference', async () => {
    // Proves the unknown refund outcome: held against the remaining amount, then settled once.
    const c = await chargeIn('paid');
    await setProviderMode(life.h, 'timeout');
    const res = await refund(c.id);
    expect(res.statusCode).toBe(201);
    expect(res.json().status).toBe('processing');
    await setProviderMode(life.h, 'normal');
    expect((await refund(c.id, { amount_cents: 1 })).json().error.code).toBe(
      'refund_amount_exceeds_remaining',
    );
    pastDeadline();
    expect((await runJob(life.h, 'refund-reconciliation')).processed).toBeGreaterThanOrEqual(1);
    const row = await life.h.db.read((q) => q('refunds').where({ id: res.json().id }).first());
    expect(row.status).toBe('succeeded');
    expect((await charge(c.id)).status).toBe('refunded');
    expect(life.h.acquirer.authorizations.get(c.id)!.refunded_amount_cents).toBe(10_000);
  });

  it('a refund that never reached the acquirer is sent again by reconciliation, once', async () => {
    // Proves the not-found branch of reconciliation: the same reference is sent, and it succeeds once.
    const c = await chargeIn('paid');
    await setProviderMode(life.h, 'timeout');
    const res = await refund(c.id, { amount_cents: 700 });
    await setProviderMode(life.h, 'normal');
    life.h.acquirer.refunds.delete(res.json().id); // as if the request had been lost on the way
    life.h.acquirer.authorizations.get(c.id)!.refunded_amount_cents = 0;
    pastDeadline();
    await runJob(life.h, 'refund-reconciliation');
    expect(life.h.acquirer.refunds.get(res.json().id)?.status).toBe('succeeded');
    expect((await charge(c.id)).status).toBe('partially_refunded');
  });
});
