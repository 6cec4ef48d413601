import { createPgliteKnex } from '@pgw/platform-db';
import { PRINCIPAL_HEADER } from '@pgw/platform-http';
import {
  apiKey,
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

const knex = createPgliteKnex(null);
let h: Harness;
let m: Merchant;

beforeAll(async () => {
  h = await startCharges(knex);
  m = await merchant(h);
}, 60_000);

afterAll(async () => {
  await h.stop();
  await knex.destroy();
});

const create = async (body: Record<string, unknown>, who: Merchant = m) =>
  (await post(h, '/api/v1/charges', who.key, body)).json();
const pay = (id: string) => post(h, `/admin/v1/simulations/charges/${id}/pay`, asOperator());
const openChargeback = (body: Record<string, unknown>) =>
  post(h, '/admin/v1/simulations/chargebacks', asOperator(), body);
const resolve = (id: string, outcome: string) =>
  post(h, `/admin/v1/simulations/chargebacks/${id}/resolve`, asOperator(), { outcome });
const charge = async (id: string) => (await get(h, `/api/v1/charges/${id}`, m.key)).json();

describe('POST /admin/v1/simulations/charges/{charge_id}/pay', () => {
  it.each(['PIX', 'BOLETO'])(
    'pays a pending %s: paid, captured, paid_at, charge-paid written; paying again changes nothing',
    async (method) => {
      // Proves the provider's confirmation path of contract §5, and that the operator's retry is harmless.
      const c = await create({ amount: 2_000, payment_method: method, buyer: buyer() });
      const res = await pay(c.id);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({
        id: c.id,
        status: 'paid',
        captured: true,
        paid_at: expect.any(String),
        payment_method: method.toLowerCase(),
      });
      expect((await pay(c.id)).json().status).toBe('paid');
      const events = await outboxEvents(h, c.id);
      expect(events.map((e) => e.type)).toEqual([
        'charges.charge-created.v1',
        'charges.charge-paid.v2',
      ]);
      const paid = events[1]!.event as {
        charge: {
          paid_at: number;
          installments: number;
          payment_method: string;
          seller_id: string;
        };
        brand: string | null;
        authorization_code: string | null;
      };
      expect(paid.charge).toMatchObject({
        paid_at: new Date(res.json().paid_at).getTime(),
        installments: 1,
        payment_method: method.toLowerCase(),
        seller_id: m.sellerId,
      });
      // No card: charge-paid v2's brand and authorization code are null.
      expect([paid.brand, paid.authorization_code]).toEqual([null, null]);
    },
  );

  it('refuses to pay a card charge, and answers 404 for an unknown or malformed id', async () => {
    // Proves only pending Pix and boleto charges are paid by the simulation.
    const c = await create(cardCharge(m.token(), { capture_method: 'manual' }));
    const res = await pay(c.id);
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toMatchObject({ code: 'parameter_invalid', param: 'charge_id' });
    expect((await pay('ch_unknown')).statusCode).toBe(404);
    expect((await pay('nope')).statusCode).toBe(404);
  });

  it('is for the operator only', async () => {
    // Proves an API key cannot drive the simulation.
    const c = await create({ amount: 2_000, payment_method: 'PIX', buyer: buyer() });
    expect((await post(h, `/admin/v1/simulations/charges/${c.id}/pay`, m.key)).statusCode).toBe(
      401,
    );
  });
});

describe('chargebacks: opened and resolved by the operator, read by the integrator', () => {
  it('opens a chargeback for what is left after refunds: open, evidence due in 7 days, the charge in chargeback, both events', async () => {
    // Proves contract §4a's new chargeback and that the charge becomes chargeback (and leaves refundable states).
    const c = await create(cardCharge(m.token()));
    await post(h, `/api/v1/charges/${c.id}/refund`, m.key, { amount_cents: 1_500 });
    const res = await openChargeback({ charge_id: c.id, reason_code: '4837' });
    expect(res.statusCode).toBe(201);
    const cb = res.json();
    expect(cb).toEqual({
      object: 'chargeback',
      id: expect.stringMatching(/^cb_[A-Za-z0-9]+$/),
      charge_id: c.id,
      amount_cents: 8_500,
      currency: 'BRL',
      status: 'open',
      reason_code: '4837',
      evidence_due_at: expect.any(String),
      opened_at: expect.any(String),
      resolved_at: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      request_id: expect.stringMatching(/^req_/),
    });
    expect(new Date(cb.evidence_due_at).getTime() - new Date(cb.opened_at).getTime()).toBe(
      7 * 86_400_000,
    );
    expect((await charge(c.id)).status).toBe('chargeback');
    const events = await outboxEvents(h, c.id);
    expect(events.slice(-2).map((e) => e.type)).toEqual([
      'charges.chargeback-opened.v1',
      'charges.charge-charged-back.v1',
    ]);
    const opened = events.at(-2)!.event as {
      chargeback: { amount_cents: number; chargeback_id: string };
      charge: { chargeback_cents: number; status: string };
    };
    expect(opened.chargeback).toMatchObject({ amount_cents: 8_500, chargeback_id: cb.id });
    expect(opened.charge).toMatchObject({ chargeback_cents: 8_500, status: 'chargeback' });
    // A charge in chargeback is neither refundable nor capturable, nor charged back twice.
    expect((await post(h, `/api/v1/charges/${c.id}/refund`, m.key, {})).json().error.code).toBe(
      'charge_not_refundable',
    );
    expect((await post(h, `/api/v1/charges/${c.id}/capture`, m.key)).json().error.code).toBe(
      'charge_not_capturable',
    );
    expect((await openChargeback({ charge_id: c.id })).statusCode).toBe(422);
  });

  it('refuses a chargeback on a charge that is not paid, or for more than is left, or on an unknown charge', async () => {
    // Proves the simulation's own rules.
    const pending = await create({ amount: 2_000, payment_method: 'PIX', buyer: buyer() });
    expect((await openChargeback({ charge_id: pending.id })).json().error).toMatchObject({
      code: 'parameter_invalid',
      param: 'charge_id',
    });
    const paid = await create(cardCharge(m.token()));
    expect(
      (await openChargeback({ charge_id: paid.id, amount_cents: 10_001 })).json().error,
    ).toMatchObject({ code: 'parameter_invalid', param: 'amount_cents' });
    expect((await openChargeback({ charge_id: 'ch_unknown' })).statusCode).toBe(404);
    expect((await openChargeback({ charge_id: paid.id, extra: 1 })).json().error).toMatchObject({
      code: 'parameter_unknown',
      param: 'extra',
    });
    expect(
      (await post(h, '/admin/v1/simulations/chargebacks', m.key, { charge_id: paid.id }))
        .statusCode,
    ).toBe(401);
  });

  it("a chargeback takes at most what is still the seller's: a refund in flight counts, and the sum never passes the amount", async () => {
    // Proves amount − refunds (succeeded and in flight) − open/lost chargebacks: a refund whose answer is
    // late is not the seller's money to dispute, so receivables never get more taken back than was paid.
    const c = await create(cardCharge(m.token()));
    await post(h, `/api/v1/charges/${c.id}/refund`, m.key, { amount_cents: 1_000 });
    await setProviderMode(h, 'timeout');
    const late = await post(h, `/api/v1/charges/${c.id}/refund`, m.key, { amount_cents: 5_000 });
    await setProviderMode(h, 'normal');
    expect(late.json()).toMatchObject({ status: 'processing', amount_cents: 5_000 });

    const tooMuch = await openChargeback({ charge_id: c.id, amount_cents: 4_001 });
    expect(tooMuch.statusCode).toBe(422);
    expect(tooMuch.json().error).toMatchObject({
      code: 'parameter_invalid',
      param: 'amount_cents',
      message: expect.stringContaining('4000'),
    });
    expect((await charge(c.id)).status).toBe('partially_refunded');
    const cb = (await openChargeback({ charge_id: c.id })).json();
    expect(cb).toMatchObject({ status: 'open', amount_cents: 4_000 });
    expect((await resolve(cb.id, 'lost')).json().status).toBe('lost');

    // The late refund succeeds after all: refunds and the lost chargeback add up to the amount, not more.
    await new Promise((r) => setTimeout(r, 250)); // past the harness's 200 ms acquirer deadline
    await runJob(h, 'refund-reconciliation');
    const settled = (await outboxEvents(h, c.id)).filter(
      (e) => e.type === 'charges.refund-succeeded.v1',
    );
    expect(settled).toHaveLength(2);
    const last = settled.at(-1)!.event as {
      charge: {
        refunded_cents: number;
        chargeback_cents: number;
        amount_cents: number;
        status: string;
      };
    };
    expect(last.charge).toMatchObject({
      amount_cents: 10_000,
      refunded_cents: 6_000,
      chargeback_cents: 4_000,
      status: 'chargeback',
    });
  });

  it('won: the charge returns to its previous status and chargeback-won is written; the outcome cannot change afterwards', async () => {
    // Proves chargeback → previous status on a win, with its event, and that a resolved chargeback stays resolved.
    const c = await create(cardCharge(m.token()));
    await post(h, `/api/v1/charges/${c.id}/refund`, m.key, { amount_cents: 1_000 });
    const cb = (await openChargeback({ charge_id: c.id })).json();
    const won = await resolve(cb.id, 'won');
    expect(won.statusCode).toBe(200);
    expect(won.json()).toMatchObject({ status: 'won', resolved_at: expect.any(String) });
    expect((await charge(c.id)).status).toBe('partially_refunded');
    const last = (await outboxEvents(h, c.id)).at(-1)!;
    expect(last.type).toBe('charges.chargeback-won.v1');
    expect(
      (last.event as { charge: { status: string; chargeback_cents: number } }).charge,
    ).toMatchObject({ status: 'partially_refunded', chargeback_cents: 0 });
    expect((await resolve(cb.id, 'won')).statusCode).toBe(200);
    expect((await resolve(cb.id, 'lost')).json().error).toMatchObject({
      code: 'parameter_invalid',
      param: 'outcome',
    });
  });

  it('lost: the charge stays charged back and chargeback-lost is written', async () => {
    // Proves chargeback → chargeback on a loss, with its event.
    const c = await create(cardCharge(m.token()));
    const cb = (await openChargeback({ charge_id: c.id, amount_cents: 4_000 })).json();
    expect((await resolve(cb.id, 'lost')).json()).toMatchObject({
      status: 'lost',
      amount_cents: 4_000,
    });
    expect((await charge(c.id)).status).toBe('chargeback');
    expect((await outboxEvents(h, c.id)).at(-1)!.type).toBe('charges.chargeback-lost.v1');
    expect((await resolve(cb.id, 'draw')).json().error).toMatchObject({
      code: 'parameter_invalid',
      param: 'outcome',
    });
    expect((await resolve('cb_unknown', 'won')).statusCode).toBe(404);
  });

  it('GET /api/v1/chargebacks lists the tenant’s chargebacks, most recent first, paged; GET by id shows one', async () => {
    // Proves the list envelope, its order and paging, and the single read.
    const own = await merchant(h);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const c = await create(cardCharge(own.token()), own);
      ids.push((await openChargeback({ charge_id: c.id })).json().id);
    }
    const first = await get(h, '/api/v1/chargebacks?limit=2', own.key);
    expect(first.statusCode).toBe(200);
    expect(first.json()).toMatchObject({
      object: 'list',
      page: 1,
      limit: 2,
      total: 3,
      total_pages: 2,
      request_id: expect.stringMatching(/^req_/),
    });
    expect(first.json().data.map((cb: { id: string }) => cb.id)).toEqual([ids[2], ids[1]]);
    expect(first.json().data[0].request_id).toBeUndefined();
    const second = (await get(h, '/api/v1/chargebacks?page=2&limit=2', own.key)).json();
    expect(second.data.map((cb: { id: string }) => cb.id)).toEqual([ids[0]]);
    expect((await get(h, '/api/v1/chargebacks?page=3&limit=2', own.key)).json().data).toEqual([]);
    const defaults = (await get(h, '/api/v1/chargebacks', own.key)).json();
    expect(defaults).toMatchObject({ page: 1, limit: 50, total: 3 });
    const one = await get(h, `/api/v1/chargebacks/${ids[0]}`, own.key);
    expect(one.json()).toMatchObject({
      object: 'chargeback',
      id: ids[0],
      status: 'open',
      request_id: expect.stringMatching(/^req_/),
    });
  });

  it.each([
    ['page=0', 'page'],
    ['page=-1', 'page'],
    ['page=abc', 'page'],
    ['page=1.5', 'page'],
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=x', 'limit'],
  ])('GET /api/v1/chargebacks?%s → 422 parameter_invalid', async (query, param) => {
    // Proves contract §4a's paging rules on the chargeback list.
    const res = await get(h, `/api/v1/chargebacks?${query}`, m.key);
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toMatchObject({ code: 'parameter_invalid', param });
  });

  it('needs chargebacks:read', async () => {
    // Proves the permission check of both chargeback reads.
    const key = {
      [PRINCIPAL_HEADER]: apiKey({
        tenantId: m.tenantId,
        sellerId: m.sellerId,
        permissions: ['charges:read'],
      }),
    };
    expect((await get(h, '/api/v1/chargebacks', key)).json().error.code).toBe('permission_denied');
    expect((await get(h, '/api/v1/chargebacks/cb_x', key)).json().error.code).toBe(
      'permission_denied',
    );
  });
});
