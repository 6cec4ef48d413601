import { FakePsp, makeThrowawayPki, type Pki } from '@pgw/acquirer/testing';
import { createPgliteKnex } from '@pgw/platform-db';
import { saveLiveRails } from '../data/live-rails.repository';
import { asOperator, merchant, startCharges, type Harness } from '../testing/harness';
import { pixAccountEnv } from '../testing/live-rail-env';

// PUT /admin/v1/tenants/{tenant_id}/live-rails/pix/webhook: the operator registers the webhook of a
// tenant's Pix account at its PSP (the API Pix PUT /webhook/{chave}), against the fake PSP over mutual TLS.
jest.setTimeout(60_000);

const knex = createPgliteKnex(null);
const CHAVE = '7d9f0335-8dcc-4054-9bf9-0dbd61d36906';
const SECRET = 'psp-secret-for-the-fake-only';
const WEBHOOK = 'https://pay.example/provider/v1/pix/notifications';
let pki: Pki;
let psp: FakePsp;
let h: Harness;

beforeAll(async () => {
  pki = makeThrowawayPki();
  psp = new FakePsp({
    tls: { ...pki.server, ca: pki.ca },
    clientId: 'gateway-client',
    clientSecret: SECRET,
    chave: CHAVE,
  });
  const account = { ...(await psp.start()), clientSecret: SECRET, chave: CHAVE };
  h = await startCharges(knex, {
    env: {
      ...pixAccountEnv('acme-pix', account, pki),
      // Incomplete: no secret, no certificate.
      LIVE_RAIL_HALF_PIX_BCB_BASE_URL: account.baseUrl,
    },
  });
});
afterAll(async () => {
  await h.stop();
  await knex.destroy();
  await psp.stop();
  pki.remove();
});

const inject = (method: 'PUT', url: string, payload: object, headers = asOperator()) =>
  h.app.inject({ method, url, headers, payload });

async function tenantWithPix(credentials: string | null): Promise<string> {
  const { tenantId } = await merchant(h, { livemode: true });
  if (credentials !== null) {
    // Saved as PUT live-rails saves it (which refuses incomplete credentials up front).
    await h.db.tx((trx) =>
      saveLiveRails(
        trx,
        tenantId,
        { card: null, pix: { provider: 'bcb-pix', credentials }, boleto: null },
        new Date(),
      ),
    );
  }
  return tenantId;
}

const register = (tenantId: string, webhookUrl: string, headers = asOperator()) =>
  inject(
    'PUT',
    `/admin/v1/tenants/${tenantId}/live-rails/pix/webhook`,
    { webhook_url: webhookUrl },
    headers,
  );

describe('PUT /admin/v1/tenants/{tenant_id}/live-rails/pix/webhook', () => {
  it('Proves the operator registers the webhook at the PSP of the tenant Pix rail, again idempotently, and the answer masks the key', async () => {
    const tenantId = await tenantWithPix('acme-pix');
    const first = await register(tenantId, WEBHOOK);
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({
      object: 'pix_webhook',
      tenant_id: tenantId,
      provider: 'bcb-pix',
      credentials: 'acme-pix',
      chave: '****6906',
      webhook_url: WEBHOOK,
      request_id: expect.any(String),
    });
    expect(psp.registeredWebhook).toBe(WEBHOOK);
    const puts = () => psp.seen.filter((r) => r.method === 'PUT' && r.path.includes('/webhook/'));
    expect(puts().map((r) => r.path)).toEqual([`/api/v2/webhook/${CHAVE}`]);
    expect((await register(tenantId, WEBHOOK)).statusCode).toBe(200);
    expect(psp.registeredWebhook).toBe(WEBHOOK);
    expect(JSON.stringify(first.json())).not.toContain(SECRET);
  });

  it('Proves a tenant without a Pix rail is 404, incomplete credentials name the variable, a plain-http URL is refused before the PSP is called, and a PSP that cannot answer is 502', async () => {
    const none = await register(await tenantWithPix(null), WEBHOOK);
    expect([none.statusCode, none.json().error.code]).toEqual([404, 'resource_not_found']);

    const half = await register(await tenantWithPix('half'), WEBHOOK);
    expect(half.statusCode).toBe(422);
    expect(half.json().error).toMatchObject({
      code: 'parameter_invalid',
      param: 'pix.credentials',
      message: expect.stringContaining('PIX_BCB_'),
    });

    const tenantId = await tenantWithPix('acme-pix');
    const before = psp.seen.length;
    const plain = await register(tenantId, 'http://pay.example/provider/v1/pix/notifications');
    expect(plain.statusCode).toBe(422);
    expect(plain.json().error).toMatchObject({ code: 'parameter_invalid', param: 'webhook_url' });
    expect(psp.seen.length).toBe(before);

    psp.inject({ status: 503 });
    const down = await register(tenantId, `${WEBHOOK}/v2`);
    expect([down.statusCode, down.json().error.code]).toEqual([502, 'provider_unavailable']);
    expect(psp.registeredWebhook).toBe(WEBHOOK);
  });

  it('Proves only the operator may register a webhook', async () => {
    const live = await merchant(h, { livemode: true });
    expect((await register(live.tenantId, WEBHOOK, live.key)).statusCode).toBe(401);
  });
});
