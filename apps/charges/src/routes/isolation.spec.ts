import { newId } from '@pgw/domain';
import { createPgliteKnex } from '@pgw/platform-db';
import { PRINCIPAL_HEADER } from '@pgw/platform-http';
import { apiKey, asOperator, cardCharge, get, merchant, post, startCharges, type Harness, type Merchant } from '../testing/harness';

const knex = createPgliteKnex(null);
let h: Harness;
let m: Merchant;
let manualId: string;
let paidId: string;
let chargebackId: string;

beforeAll(async () => {
  h = await startCharges(knex);
  m = await merchant(h);
  manualId = (await post(h, '/api/v1/charges', m.key, cardCharge(m.token(), { capture_method: 'manual' }))).json().id;
  paidId = (await post(h, '/api/v1/charges', m.key, cardCharge(m.token()))).json().id;
  const cbPaid = (await post(h, '/api/v1/charges', m.key, cardCharge(m.token()))).json().id;
  chargebackId = (await post(h, '/admin/v1/simulations/chargebacks', asOperator(), { charge_id: cbPaid })).json().id;
}, 60_000);

afterAll(async () => {
  await h.stop();
  await knex.destroy();
});

const key = (who: { tenantId: string; sellerId: string | null; livemode?: boolean }) => ({ [PRINCIPAL_HEADER]: apiKey(who) });

const outsiders: Array<[string, () => Record<string, string>]> = [
  ['another tenant', () => key({ tenantId: newId('ten_'), sellerId: null })],
  ['the same tenant in live mode', () => key({ tenantId: m.tenantId, sellerId: m.sellerId, livemode: true })],
  ['the same tenant live and tenant-wide', () => key({ tenantId: m.tenantId, sellerId: null, livemode: true })],
  ['another seller of the same tenant', () => key({ tenantId: m.tenantId, sellerId: newId('seller_') })],
];

describe('tenant and environment isolation on every charges route', () => {
  it.each(outsiders)('%s gets 404 on every route, and the charge is untouched', async (_name, headers) => {
    // Proves every query filters on tenant, environment (and the key's seller): a foreign object is a 404.
    const who = headers();
    for (const res of [
      await get(h, `/api/v1/charges/${paidId}`, who),
      await post(h, `/api/v1/charges/${manualId}/capture`, who),
      await post(h, `/api/v1/charges/${paidId}/refund`, who, { amount_cents: 1 }),
      await get(h, `/api/v1/chargebacks/${chargebackId}`, who),
    ]) {
      expect(res.statusCode).toBe(404);
      expect(res.json().error).toEqual({ type: 'not_found_error', code: 'resource_not_found', message: expect.any(String), param: null });
    }
    expect((await get(h, '/api/v1/chargebacks', who)).json()).toMatchObject({ data: [], total: 0 });
    const own = (await get(h, `/api/v1/charges/${manualId}`, m.key)).json();
    expect(own.status).toBe('authorized');
    expect(await h.db.read((q) => q('refunds').where({ charge_id: paidId }))).toHaveLength(0);
  });

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
