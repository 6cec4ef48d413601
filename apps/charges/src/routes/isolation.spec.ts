import { newId } from '@pgw/domain';
import { createPgliteKnex } from '@pgw/platform-db';
import { PRINCIPAL_HEADER } from '@pgw/platform-http';
import {
  apiKey,
  asOperator,
  buyer,
  cardCharge,
  get,
  merchant,
  post,
  publishSeller,
  startCharges,
  type Harness,
  type Merchant,
} from '../testing/harness';

const knex = createPgliteKnex(null);
let h: Harness;
let m: Merchant;
let manualId: string;
let paidId: string;
let chargebackId: string;

beforeAll(async () => {
  h = await startCharges(knex);
  m = await merchant(h);
  manualId = (
    await post(h, '/api/v1/charges', m.key, cardCharge(m.token(), { capture_method: 'manual' }))
  ).json().id;
  paidId = (await post(h, '/api/v1/charges', m.key, cardCharge(m.token()))).json().id;
  const cbPaid = (await post(h, '/api/v1/charges', m.key, cardCharge(m.token()))).json().id;
  chargebackId = (
    await post(h, '/admin/v1/simulations/chargebacks', asOperator(), { charge_id: cbPaid })
  ).json().id;
}, 60_000);

afterAll(async () => {
  await h.stop();
  await knex.destroy();
});

const key = (who: { tenantId: string; sellerId: string | null; livemode?: boolean }) => ({
  [PRINCIPAL_HEADER]: apiKey(who),
});

const outsiders: Array<[string, () => Record<string, string>]> = [
  ['another tenant', () => key({ tenantId: newId('ten_'), sellerId: null })],
  [
    'the same tenant in live mode',
    () => key({ tenantId: m.tenantId, sellerId: m.sellerId, livemode: true }),
  ],
  [
    'the same tenant live and tenant-wide',
    () => key({ tenantId: m.tenantId, sellerId: null, livemode: true }),
  ],
  [
    'another seller of the same tenant',
    () => key({ tenantId: m.tenantId, sellerId: newId('seller_') }),
  ],
];

describe('tenant and environment isolation on every charges route', () => {
  it.each(outsiders)(
    '%s gets 404 on every route, and the charge is untouched',
    async (_name, headers) => {
      // Proves every query filters on tenant, environment (and the key's seller): a foreign object is a 404.
      const who = headers();
      for (const res of [
        await get(h, `/api/v1/charges/${paidId}`, who),
        await post(h, `/api/v1/charges/${manualId}/capture`, who),
        await post(h, `/api/v1/charges/${paidId}/refund`, who, { amount_cents: 1 }),
        await get(h, `/api/v1/chargebacks/${chargebackId}`, who),
      ]) {
        expect(res.statusCode).toBe(404);
        expect(res.json().error).toEqual({
          type: 'not_found_error',
          code: 'resource_not_found',
          message: expect.any(String),
          param: null,
        });
      }
      expect((await get(h, '/api/v1/chargebacks', who)).json()).toMatchObject({
        data: [],
        total: 0,
      });
      const own = (await get(h, `/api/v1/charges/${manualId}`, m.key)).json();
      expect(own.status).toBe('authorized');
      expect(await h.db.read((q) => q('refunds').where({ charge_id: paidId }))).toHaveLength(0);
    },
  );

  it('the owner and a tenant-wide key of the same environment see the same objects', async () => {
    // Proves the positive side: the scope lets its own objects through.
    for (const who of [m.key, key({ tenantId: m.tenantId, sellerId: null })]) {
      expect((await get(h, `/api/v1/charges/${paidId}`, who)).statusCode).toBe(200);
      expect((await get(h, `/api/v1/chargebacks/${chargebackId}`, who)).statusCode).toBe(200);
      expect((await get(h, '/api/v1/chargebacks', who)).json().total).toBe(1);
    }
  });

  it.each([
    ['GET', '/api/v1/charges/ch_'],
    ['GET', '/api/v1/charges/ch_abc-def'],
    ['GET', '/api/v1/charges/rf_abc'],
    ['POST', '/api/v1/charges/cb_abc/capture'],
    ['POST', '/api/v1/charges/ch_a%20b/refund'],
    ['GET', '/api/v1/chargebacks/ch_abc'],
    ['GET', '/api/v1/chargebacks/cb_a_b'],
  ])('%s %s: an id that does not match its pattern is 404', async (method, url) => {
    // Proves contract §2: a malformed id is a 404, never a 422 or a 500.
    const res = method === 'GET' ? await get(h, url, m.key) : await post(h, url, m.key);
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('resource_not_found');
  });
});

describe("Idempotency-Key scope (contract §3): the key's seller and the canonical path", () => {
  /** A second seller of `m`'s tenant, with a seller-scoped key of its own. */
  const otherSeller = async () => {
    const sellerId = newId('seller_');
    await publishSeller(h.bus, { sellerId, tenantId: m.tenantId });
    return { sellerId, key: key({ tenantId: m.tenantId, sellerId }) };
  };
  const withKey = (who: Record<string, string>, idempotencyKey: string) => ({
    ...who,
    'idempotency-key': idempotencyKey,
  });

  it("two sellers' keys sending the same Idempotency-Key and body get two charges, each seeing only its own", async () => {
    // Proves a seller-scoped key has a namespace of its own: no replay of another seller's charge (and buyer).
    const other = await otherSeller();
    const k = newId('req_');
    const body = { amount: 2_500, payment_method: 'PIX', buyer: buyer({ name: 'Compradora Um' }) };
    const first = await post(h, '/api/v1/charges', withKey(m.key, k), body);
    const second = await post(h, '/api/v1/charges', withKey(other.key, k), body);
    expect([first.statusCode, second.statusCode]).toEqual([201, 201]);
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    expect(second.json().id).not.toBe(first.json().id);
    const owners = await h.db.read((q) =>
      q('charges').whereIn('id', [first.json().id, second.json().id]).select('id', 'seller_id'),
    );
    expect(Object.fromEntries(owners.map((c) => [c.id, c.seller_id]))).toEqual({
      [first.json().id]: m.sellerId,
      [second.json().id]: other.sellerId,
    });
    expect((await get(h, `/api/v1/charges/${first.json().id}`, other.key)).statusCode).toBe(404);
    expect((await get(h, `/api/v1/charges/${second.json().id}`, m.key)).statusCode).toBe(404);
    // Each seller's retry replays its own charge.
    const retried = await post(h, '/api/v1/charges', withKey(other.key, k), body);
    expect([retried.headers['idempotent-replayed'], retried.json().id]).toEqual([
      'true',
      second.json().id,
    ]);
  });

  it('another seller sending the Idempotency-Key of a capture or a refund gets 404, not the stored answer', async () => {
    // Proves the capture and refund answers are not replayed across sellers of a tenant.
    const other = await otherSeller();
    const manual = (
      await post(h, '/api/v1/charges', m.key, cardCharge(m.token(), { capture_method: 'manual' }))
    ).json().id;
    const paid = (await post(h, '/api/v1/charges', m.key, cardCharge(m.token()))).json().id;
    const k = newId('req_');
    expect((await post(h, `/api/v1/charges/${manual}/capture`, withKey(m.key, k))).statusCode).toBe(
      200,
    );
    expect(
      (await post(h, `/api/v1/charges/${paid}/refund`, withKey(m.key, k), { amount_cents: 100 }))
        .statusCode,
    ).toBe(201);
    for (const res of [
      await post(h, `/api/v1/charges/${manual}/capture`, withKey(other.key, k)),
      await post(h, `/api/v1/charges/${paid}/refund`, withKey(other.key, k), { amount_cents: 100 }),
    ]) {
      expect(res.statusCode).toBe(404);
      expect(res.headers['idempotent-replayed']).toBeUndefined();
      expect(res.json().error.code).toBe('resource_not_found');
    }
    expect(await h.db.read((q) => q('refunds').where({ charge_id: paid }))).toHaveLength(1);
  });

  it('a stored charge or refund is replayed only to a caller that may read it, even found in its namespace', async () => {
    // Proves the replay check (mayRead): an answer naming another seller's charge is refused as a reused key.
    const other = await otherSeller();
    const paid = (await post(h, '/api/v1/charges', m.key, cardCharge(m.token()))).json().id;
    const k = newId('req_');
    const body = { amount: 3_000, payment_method: 'PIX', buyer: buyer() };
    const charge = (await post(h, '/api/v1/charges', withKey(m.key, k), body)).json();
    const refund = (
      await post(h, `/api/v1/charges/${paid}/refund`, withKey(m.key, k), { amount_cents: 100 })
    ).json();
    // As if the answers had been kept in the other seller's namespace.
    await h.db.tx((trx) =>
      trx('idempotency_keys').where({ key: k }).update({ seller_scope: other.sellerId }),
    );
    const charges = await post(h, '/api/v1/charges', withKey(other.key, k), body);
    const refunds = await post(h, `/api/v1/charges/${paid}/refund`, withKey(other.key, k), {
      amount_cents: 100,
    });
    for (const res of [charges, refunds]) {
      expect(res.statusCode).toBe(409);
      expect(res.json().error.code).toBe('idempotency_key_reused');
    }
    expect(charges.body).not.toContain(charge.id);
    expect(refunds.body).not.toContain(refund.id);
  });

  it('a refund sent again on the percent-encoded path replays the first refund instead of refunding twice', async () => {
    // Proves the path in the key's scope is canonical: `/charges/%63h_…/refund` is `/charges/ch_…/refund`.
    const paid = (await post(h, '/api/v1/charges', m.key, cardCharge(m.token()))).json().id;
    const k = newId('req_');
    const first = await post(h, `/api/v1/charges/${paid}/refund`, withKey(m.key, k), {
      amount_cents: 100,
    });
    const encoded = await post(
      h,
      `/api/v1/charges/%63h_${paid.slice('ch_'.length)}/refund`,
      withKey(m.key, k),
      { amount_cents: 100 },
    );
    expect([first.statusCode, encoded.statusCode]).toEqual([201, 201]);
    expect(encoded.headers['idempotent-replayed']).toBe('true');
    expect(encoded.json().id).toBe(first.json().id);
    expect(await h.db.read((q) => q('refunds').where({ charge_id: paid }))).toHaveLength(1);
    expect(
      Number((await h.db.read((q) => q('charges').where({ id: paid }).first())).refunded_cents),
    ).toBe(100);
  });
});
