import { addDays } from '@pgw/domain';
import { createPgliteKnex } from '@pgw/platform-db';
import { ManualClock } from '@pgw/platform-service';
import { REFUND_DECLINED_CARD as REFUND_DECLINED_PAN } from '@pgw/acquirer-simulator';
import {
  asOperator,
  buyer,
  cardCharge,
  get,
  merchant,
  outboxEvents,
  post,
  runJob,
  setProviderMode,
  startCharges,
  type Harness,
  type Merchant,
} from '../testing/harness';
import type { ChargeStatus } from '@pgw/charges-domain/charge';

const knex = createPgliteKnex(null);
const clock = new ManualClock(new Date());
let h: Harness;
let m: Merchant;

beforeAll(async () => {
  h = await startCharges(knex, { clock });
  m = await merchant(h);
}, 60_000);

afterAll(async () => {
  await h.stop();
  await knex.destroy();
});

afterEach(async () => {
  await setProviderMode(h, 'normal');
});

// The service's clock and the test's are one: a run across midnight UTC cannot see two different days.
const today = () => clock.today();
/** Moves the clock past the acquirer's deadline: reconciliation picks intents by age on the service's clock. */
const pastDeadline = () => clock.set(new Date(clock.now().getTime() + 250));
type Charge = { id: string; status: ChargeStatus; amount_cents: number; [k: string]: unknown };

async function create(body: Record<string, unknown>): Promise<Charge> {
  const res = await post(h, '/api/v1/charges', m.key, body);
  if (res.statusCode !== 201) throw new Error(`create answered ${res.statusCode}: ${res.body}`);
  return res.json();
}
const refund = (id: string, body?: unknown) => post(h, `/api/v1/charges/${id}/refund`, m.key, body);
const capture = (id: string) => post(h, `/api/v1/charges/${id}/capture`, m.key);
const charge = async (id: string): Promise<Charge> =>
  (await get(h, `/api/v1/charges/${id}`, m.key)).json();

/** A fresh charge in `status`, reached through the API, the simulations and the jobs. */
async function chargeIn(status: ChargeStatus): Promise<Charge> {
  switch (status) {
    case 'pending':
      return create({ amount: 10_000, payment_method: 'PIX', buyer: buyer() });
    case 'authorized':
      return create(cardCharge(m.token(), { capture_method: 'manual' }));
    case 'paid':
      return create(cardCharge(m.token()));
    case 'refused':
      return create(cardCharge(m.token('4000000000000002')));
    case 'failed':
      return create(cardCharge(m.token('4000000000000119')));
    case 'canceled': {
      const c = await chargeIn('authorized');
      await runJob(h, 'authorization-expiry', addDays(today(), 7));
      return charge(c.id);
    }
    case 'refunded':
    case 'partially_refunded': {
      const c = await chargeIn('paid');
      expect(
        (await refund(c.id, status === 'refunded' ? {} : { amount_cents: 100 })).statusCode,
      ).toBe(201);
      return charge(c.id);
    }
    case 'chargeback': {
      const c = await chargeIn('paid');
      expect(
        (await post(h, '/admin/v1/simulations/chargebacks', asOperator(), { charge_id: c.id }))
          .statusCode,
      ).toBe(201);
      return charge(c.id);
    }
  }
}

const ALL: ChargeStatus[] = [
  'pending',
  'authorized',
  'paid',
  'refused',
  'canceled',
  'refunded',
  'partially_refunded',
  'chargeback',
  'failed',
];

describe('capture (every allowed and refused transition)', () => {
  it('captures an authorized manual charge: paid, captured, paid_at set, charge-paid written', async () => {
    // Proves authorized → paid by capture, its answer and its event.
    const c = await chargeIn('authorized');
    expect(c.status).toBe('authorized');
    const res = await capture(c.id);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      id: c.id,
      status: 'paid',
      captured: true,
      paid_at: expect.any(String),
    });
    expect(h.acquirer.authorizations.get(c.id)?.status).toBe('captured');
    const events = await outboxEvents(h, c.id);
    expect(events.map((e) => e.type)).toEqual([
      'charges.charge-created.v1',
      'charges.charge-authorized.v1',
      'charges.charge-paid.v2',
    ]);
    const paid = events[2]!.event as {
      charge: { paid_at: number; captured: boolean; status: string };
      resource_json: string;
      brand: string | null;
      authorization_code: string | null;
    };
    expect(paid.charge).toMatchObject({
      status: 'paid',
      captured: true,
      paid_at: new Date(res.json().paid_at).getTime(),
    });
    // v2 carries the vault's brand of the token and the acquirer's authorization code, as the API shows it.
    expect([paid.brand, paid.authorization_code]).toEqual(['visa', res.json().authorization_code]);
    expect(paid.authorization_code).toEqual(expect.any(String));
    const { request_id: _r, ...resource } = (await get(h, `/api/v1/charges/${c.id}`, m.key)).json();
    expect(JSON.parse(paid.resource_json)).toEqual(resource);
  });

  it.each(ALL.filter((s) => s !== 'authorized'))(
    'refuses to capture a %s charge: 422 charge_not_capturable',
    async (status) => {
      // Proves capture is refused from every status but authorized, and nothing changes.
      const c = await chargeIn(status);
      expect(c.status).toBe(status);
      const res = await capture(c.id);
      expect(res.statusCode).toBe(422);
      expect(res.json().error).toMatchObject({
        type: 'invalid_request_error',
        code: 'charge_not_capturable',
      });
      expect((await charge(c.id)).status).toBe(status);
    },
  );

  it('refuses an unknown field in the capture body, and an id that is not a charge id is 404', async () => {
    // Proves capture takes no body fields and path ids are checked against their pattern.
    const c = await chargeIn('authorized');
    expect(
      (await post(h, `/api/v1/charges/${c.id}/capture`, m.key, { amount: 1 })).json().error,
    ).toMatchObject({ code: 'parameter_unknown', param: 'amount' });
    expect((await capture('ch_not-an-id')).statusCode).toBe(404);
    expect((await capture('ch_doesnotexist')).statusCode).toBe(404);
  });

  it('answers 502 when the acquirer cannot be reached, leaves the charge authorized, and a later capture works', async () => {
    // Proves a capture that did not happen is not recorded, and is retryable.
    const c = await chargeIn('authorized');
    for (const mode of ['unavailable', 'timeout'] as const) {
      await setProviderMode(h, mode);
      const res = await capture(c.id);
      expect(res.statusCode).toBe(502);
      expect(res.json().error).toMatchObject({
        type: 'provider_error',
        code: 'provider_unavailable',
      });
      expect((await charge(c.id)).status).toBe('authorized');
    }
    await setProviderMode(h, 'normal');
    expect((await capture(c.id)).json().status).toBe('paid');
  });
});

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

    const events = await outboxEvents(h, c.id);
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
    const before = await h.db.read((q) => q('refunds').where({ charge_id: c.id }));
    const res = await refund(c.id, { amount_cents: 1 });
    expect(res.statusCode).toBe(422);
    expect(res.json().error.code).toBe('charge_not_refundable');
    expect(await h.db.read((q) => q('refunds').where({ charge_id: c.id }))).toHaveLength(
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
      expect(h.acquirer.authorizations.get(c.id)!.refunded_amount_cents).toBe(10_000);
    }
  });

  it('many concurrent partial refunds never refund more than the amount', async () => {
    // Proves the invariant under wider concurrency: 6 refunds of 30 % each, only 3 fit.
    const c = await chargeIn('paid');
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => refund(c.id, { amount_cents: 3_000 })),
    );
    expect(answers.filter((a) => a.statusCode === 201)).toHaveLength(3);
    const rows = await h.db.read((q) =>
      q('refunds').where({ charge_id: c.id, status: 'succeeded' }),
    );
    expect(rows.reduce((sum, r) => sum + Number(r.amount_cents), 0)).toBe(9_000);
  });

  it('a refund the acquirer declines is 201 failed, the charge unchanged, refund-failed written', async () => {
    // Proves the failed outcome of a refund.
    const c = await create(cardCharge(m.token(REFUND_DECLINED_PAN)));
    const res = await refund(c.id);
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ status: 'failed', succeeded_at: null });
    expect((await charge(c.id)).status).toBe('paid');
    expect((await outboxEvents(h, c.id)).map((e) => e.type).at(-1)).toBe(
      'charges.refund-failed.v1',
    );
    // The failed refund does not hold the amount: the whole of it may be refunded again.
    expect((await refund(c.id, { amount_cents: 10_000 })).json().error).toBeUndefined();
  });

  it('refunds a paid Pix at once (no provider refund in the simulator)', async () => {
    // Proves refunds of Pix and boleto charges succeed and move the charge like card refunds.
    const c = await chargeIn('pending');
    expect(
      (await post(h, `/admin/v1/simulations/charges/${c.id}/pay`, asOperator())).json().status,
    ).toBe('paid');
    expect((await refund(c.id, { amount_cents: 4_000 })).json()).toMatchObject({
      status: 'succeeded',
      provider_reference: null,
    });
    expect((await charge(c.id)).status).toBe('partially_refunded');
  });
});

describe('fault modes of the provider (contract §5) on charge and refund', () => {
  it('unavailable at create: the charge is failed (201), nothing was authorized', async () => {
    // Proves "nothing happened" becomes a failed charge with the reason in acquirer_return_message.
    await setProviderMode(h, 'unavailable');
    const c = await create(cardCharge(m.token()));
    expect(c).toMatchObject({
      status: 'failed',
      refused_reason: null,
      acquirer_return_message: expect.stringMatching(/could not be reached/),
    });
    expect(h.acquirer.authorizations.has(c.id)).toBe(false);
    const pix = await create({ amount: 100, payment_method: 'PIX', buyer: buyer() });
    expect(pix.status).toBe('failed');
  });

  it('timeout at create: 201 pending; the reconciliation job finds the authorization by reference, without a second one', async () => {
    // Proves the unknown outcome path: the charge waits, then takes the acquirer's outcome.
    await setProviderMode(h, 'timeout');
    const c = await create(cardCharge(m.token()));
    expect(c.status).toBe('pending');
    await setProviderMode(h, 'normal');
    pastDeadline(); // older than the acquirer's deadline (ACQUIRER_TIMEOUT_MS=200), by the service's clock
    const run = await runJob(h, 'refund-reconciliation');
    expect(run.processed).toBeGreaterThanOrEqual(1);
    expect(await charge(c.id)).toMatchObject({ status: 'paid', captured: true });
    expect(h.acquirer.authorizeCalls.filter((r) => r === c.id)).toHaveLength(1);
    expect((await outboxEvents(h, c.id)).map((e) => e.type)).toEqual([
      'charges.charge-created.v1',
      'charges.charge-paid.v2',
    ]);
  });

  it('timeout at Pix and boleto creation: pending without the block; reconciliation completes it', async () => {
    // Proves the same recovery for the PSP and the bank.
    await setProviderMode(h, 'timeout');
    const pix = await create({ amount: 100, payment_method: 'PIX', buyer: buyer() });
    const slip = await create({ amount: 100, payment_method: 'BOLETO', buyer: buyer() });
    expect([pix.status, pix.pix, slip.status, slip.boleto]).toEqual([
      'pending',
      undefined,
      'pending',
      undefined,
    ]);
    await setProviderMode(h, 'normal');
    pastDeadline();
    await runJob(h, 'refund-reconciliation');
    expect((await charge(pix.id)).pix).toMatchObject({ qr_code: expect.any(String) });
    expect((await charge(slip.id)).boleto).toMatchObject({
      barcode: expect.stringMatching(/^\d{44}$/),
    });
  });

  it('unavailable at refund: 502 provider_unavailable, nothing refunded, nothing left half-done', async () => {
    // Proves contract §4's 502 path: the refund is canceled, the amount stays refundable, the charge unchanged.
    const c = await chargeIn('paid');
    await setProviderMode(h, 'unavailable');
    const res = await refund(c.id);
    expect(res.statusCode).toBe(502);
    expect(res.json().error).toMatchObject({
      type: 'provider_error',
      code: 'provider_unavailable',
    });
    expect((await charge(c.id)).status).toBe('paid');
    const rows = await h.db.read((q) => q('refunds').where({ charge_id: c.id }));
    expect(rows.map((r) => r.status)).toEqual(['canceled']);
    expect((await outboxEvents(h, c.id)).map((e) => e.type)).toEqual([
      'charges.charge-created.v1',
      'charges.charge-paid.v2',
    ]);
    await setProviderMode(h, 'normal');
    expect((await refund(c.id)).json()).toMatchObject({
      status: 'succeeded',
      amount_cents: 10_000,
    });
  });

  it('timeout at refund: 201 processing, the amount held; reconciliation resolves it by reference', async () => {
    // Proves the unknown refund outcome: held against the remaining amount, then settled once.
    const c = await chargeIn('paid');
    await setProviderMode(h, 'timeout');
    const res = await refund(c.id);
    expect(res.statusCode).toBe(201);
    expect(res.json().status).toBe('processing');
    await setProviderMode(h, 'normal');
    expect((await refund(c.id, { amount_cents: 1 })).json().error.code).toBe(
      'refund_amount_exceeds_remaining',
    );
    pastDeadline();
    expect((await runJob(h, 'refund-reconciliation')).processed).toBeGreaterThanOrEqual(1);
    const row = await h.db.read((q) => q('refunds').where({ id: res.json().id }).first());
    expect(row.status).toBe('succeeded');
    expect((await charge(c.id)).status).toBe('refunded');
    expect(h.acquirer.authorizations.get(c.id)!.refunded_amount_cents).toBe(10_000);
  });

  it('a refund that never reached the acquirer is sent again by reconciliation, once', async () => {
    // Proves the not-found branch of reconciliation: the same reference is sent, and it succeeds once.
    const c = await chargeIn('paid');
    await setProviderMode(h, 'timeout');
    const res = await refund(c.id, { amount_cents: 700 });
    await setProviderMode(h, 'normal');
    h.acquirer.refunds.delete(res.json().id); // as if the request had been lost on the way
    h.acquirer.authorizations.get(c.id)!.refunded_amount_cents = 0;
    pastDeadline();
    await runJob(h, 'refund-reconciliation');
    expect(h.acquirer.refunds.get(res.json().id)?.status).toBe('succeeded');
    expect((await charge(c.id)).status).toBe('partially_refunded');
  });
});
