import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPgliteKnex } from '@pgw/platform-db';
import {
  asOperator,
  buyer,
  get,
  merchant,
  post,
  startCharges,
  type Harness,
} from '../testing/harness';

// The operator sets a tenant's live rails and reads them back masked; credentials the deployment does not
// hold are refused by the variable that is missing; where DEPLOYMENT_ENV=production a live charge goes
// through only on a kind the tenant has a rail for (contract §6), and a test charge still reaches the
// simulator.

const MERCHANT_KEY = 'KEYFORTHEFAKEONLY0123456789ABCDEFGHIJKLM';
const knex = createPgliteKnex(null);
const dir = mkdtempSync(join(tmpdir(), 'charges-live-rails-'));
let h: Harness;

beforeAll(async () => {
  h = await startCharges(knex, {
    env: {
      DEPLOYMENT_ENV: 'production',
      LIVE_RAIL_ACME_CIELO_MERCHANT_ID: '5e2c4b1a-7d3f-4a9e-8b6c-1f0e2d3c4b5a',
      LIVE_RAIL_ACME_CIELO_MERCHANT_KEY: MERCHANT_KEY,
      LIVE_RAIL_ACME_CIELO_ENVIRONMENT: 'sandbox',
      LIVE_RAIL_BB_CNAB240_CNPJ: '12345678000195',
      LIVE_RAIL_BB_CNAB240_COMPANY_NAME: 'Acme Pagamentos',
      LIVE_RAIL_BB_CNAB240_AGENCY: '1234',
      LIVE_RAIL_BB_CNAB240_AGENCY_DV: '5',
      LIVE_RAIL_BB_CNAB240_ACCOUNT: '98765',
      LIVE_RAIL_BB_CNAB240_ACCOUNT_DV: 'X',
      LIVE_RAIL_BB_CNAB240_AGREEMENT: '1234567',
      LIVE_RAIL_BB_CNAB240_WALLET: '17',
      LIVE_RAIL_BB_CNAB240_WALLET_VARIATION: '019',
      LIVE_RAIL_BB_CNAB240_STATE_FILE: join(dir, 'state.json'),
      LIVE_RAIL_BB_CNAB240_OUTBOX_DIR: join(dir, 'outbox'),
      LIVE_RAIL_BB_CNAB240_INBOX_DIR: join(dir, 'inbox'),
    },
  });
});
afterAll(async () => {
  await h.stop();
  await knex.destroy();
  rmSync(dir, { recursive: true, force: true });
});

const put = (tenantId: string, body: unknown, headers = asOperator()) =>
  h.app.inject({
    method: 'PUT',
    url: `/admin/v1/tenants/${tenantId}/live-rails`,
    headers,
    payload: body as object,
  });

describe('PUT/GET /admin/v1/tenants/{tenant_id}/live-rails', () => {
  it('Proves a tenant without rails reads as none, and a set of rails reads back with its settings masked and no secret', async () => {
    const { tenantId } = await merchant(h, { livemode: true });
    const none = await get(h, `/admin/v1/tenants/${tenantId}/live-rails`, asOperator());
    expect(none.json()).toMatchObject({
      object: 'live_rails',
      tenant_id: tenantId,
      card: null,
      pix: null,
      boleto: null,
      updated_at: null,
    });

    const set = await put(tenantId, {
      card: { provider: 'cielo', credentials: 'acme' },
      pix: null,
      boleto: { provider: 'cnab240-bb', credentials: 'bb' },
    });
    expect(set.statusCode).toBe(200);
    const shown = (await get(h, `/admin/v1/tenants/${tenantId}/live-rails`, asOperator())).json();
    expect(shown).toMatchObject({
      card: {
        provider: 'cielo',
        credentials: 'acme',
        ready: true,
        settings: {
          api_url: 'https://apisandbox.cieloecommerce.cielo.com.br',
          merchant_id: '****4b5a',
        },
        problem: null,
      },
      pix: null,
      boleto: {
        provider: 'cnab240-bb',
        credentials: 'bb',
        ready: true,
        settings: { bank_code: '001', account: '****8765', agreement: '****4567' },
      },
      updated_at: expect.any(String),
    });
    expect(JSON.stringify(shown)).not.toContain(MERCHANT_KEY);
  });

  it('Proves credentials the deployment lacks are refused with the variable to set, and an unknown provider or a bad name is a 422', async () => {
    const { tenantId } = await merchant(h, { livemode: true });
    const missing = await put(tenantId, {
      card: null,
      pix: { provider: 'bcb-pix', credentials: 'psp' },
      boleto: null,
    });
    expect(missing.statusCode).toBe(422);
    expect(missing.json().error).toMatchObject({
      code: 'parameter_invalid',
      param: 'pix.credentials',
      message: expect.stringContaining('PIX_BCB_'),
    });
    expect(
      (
        await put(tenantId, {
          card: { provider: 'stone', credentials: 'acme' },
          pix: null,
          boleto: null,
        })
      ).statusCode,
    ).toBe(422);
    expect(
      (
        await put(tenantId, {
          card: { provider: 'cielo', credentials: '../etc' },
          pix: null,
          boleto: null,
        })
      ).statusCode,
    ).toBe(422);
    expect((await put(tenantId, { card: null })).statusCode).toBe(422);
    // Nothing was saved by the refused requests.
    expect(
      (await get(h, `/admin/v1/tenants/${tenantId}/live-rails`, asOperator())).json(),
    ).toMatchObject({ card: null, pix: null, boleto: null, updated_at: null });
  });

  it('Proves only the operator may read or set rails, and a malformed tenant id is a 404', async () => {
    const live = await merchant(h, { livemode: true });
    expect(
      (await get(h, `/admin/v1/tenants/${live.tenantId}/live-rails`, live.key)).statusCode,
    ).toBe(401);
    expect(
      (await put(live.tenantId, { card: null, pix: null, boleto: null }, live.key)).statusCode,
    ).toBe(401);
    expect((await get(h, '/admin/v1/tenants/nope/live-rails', asOperator())).statusCode).toBe(404);
  });
});

describe('the live-mode guard with rails, where DEPLOYMENT_ENV=production', () => {
  it("Proves a live boleto goes to the tenant's bank while a live Pix, which has no rail, is refused and a test Pix reaches the simulator", async () => {
    const live = await merchant(h, { livemode: true });
    expect(
      (
        await put(live.tenantId, {
          card: null,
          pix: null,
          boleto: { provider: 'cnab240-bb', credentials: 'bb' },
        })
      ).statusCode,
    ).toBe(200);
    const slip = await post(
      h,
      '/api/v1/charges',
      { ...live.key, 'idempotency-key': 'live-boleto' },
      { amount: 2_500, payment_method: 'BOLETO', buyer: buyer() },
    );
    expect(slip.statusCode).toBe(201);
    expect(slip.json()).toMatchObject({
      payment_method: 'boleto',
      status: 'pending',
      boleto: { barcode: expect.stringMatching(/^001\d{41}$/) },
    });
    const row = await h.db.read((q) =>
      q('charges').where({ id: slip.json().id }).first('acquirer_code'),
    );
    expect(row).toEqual({ acquirer_code: 'cnab240-001' });

    const pix = await post(
      h,
      '/api/v1/charges',
      { ...live.key, 'idempotency-key': 'live-pix' },
      { amount: 1_000, payment_method: 'PIX', buyer: buyer() },
    );
    expect(pix.statusCode).toBe(403);
    expect(pix.json().error).toMatchObject({ code: 'permission_denied' });

    const test = await merchant(h);
    const testPix = await post(
      h,
      '/api/v1/charges',
      { ...test.key, 'idempotency-key': 'test-pix' },
      { amount: 1_000, payment_method: 'PIX', buyer: buyer() },
    );
    expect(testPix.statusCode).toBe(201);
    expect(
      await h.db.read((q) => q('charges').where({ id: testPix.json().id }).first('acquirer_code')),
    ).toEqual({ acquirer_code: 'simulator' });
  });
});
