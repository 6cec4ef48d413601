import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request as httpsRequest } from 'node:https';
import { FakePsp, makeThrowawayPki, type Pki } from '@pgw/acquirer/testing';
import { createPgliteKnex } from '@pgw/platform-db';
import { asOperator, buyer, merchant, post, startCharges, type Harness } from '../testing/harness';
import { pixAccountEnv } from '../testing/live-rail-env';
import { pixNotificationsListenerOf } from './pix-notifications.route';

// A PSP's notification is taken only from the tenant's PSP, authenticated by the client certificate of
// its mutual TLS — on charges' own TLS listener (a real handshake here) or from the header the ingress
// that terminated it forwards through the gateway — and even then it is a hint: a charge moves only when
// its PSP confirms the payment. Anything unauthenticated is 401 and changes nothing.
jest.setTimeout(60_000);

const knex = createPgliteKnex(null);
const CHAVE = '7d9f0335-8dcc-4054-9bf9-0dbd61d36906';
const CERT_HEADER = 'x-client-cert';
let pki: Pki;
let psp: FakePsp;
let h: Harness;
let port: number;

beforeAll(async () => {
  pki = makeThrowawayPki();
  psp = new FakePsp({
    tls: { ...pki.server, ca: pki.ca },
    clientId: 'gateway-client',
    clientSecret: 'psp-secret-for-the-fake-only',
    chave: CHAVE,
  });
  const account = {
    ...(await psp.start()),
    clientSecret: 'psp-secret-for-the-fake-only',
    chave: CHAVE,
  };
  const pspFingerprint = new X509Certificate(pki.pspClient.cert).fingerprint256;
  h = await startCharges(knex, {
    env: {
      // Account psp_one's PSP is pinned by its certificate's fingerprint; account psp_two's by its CA (another authority).
      ...pixAccountEnv('psp_one', account, pki, { WEBHOOK_CLIENT_CERT_SHA256: pspFingerprint }),
      ...pixAccountEnv('psp_two', account, pki, { WEBHOOK_CLIENT_CA_FILE: pki.strangerCaFile }),
      ...pixAccountEnv('psp_none', account, pki),
      PIX_NOTIFY_CLIENT_CERT_HEADER: 'X-Client-Cert',
      PIX_NOTIFY_TLS_PORT: '0',
      PIX_NOTIFY_TLS_HOST: '127.0.0.1',
      PIX_NOTIFY_TLS_CERT_FILE: join(pki.dir, 'psp-server.crt'),
      PIX_NOTIFY_TLS_KEY_FILE: join(pki.dir, 'psp-server.key'),
    },
  });
  const listener = pixNotificationsListenerOf(h.app);
  if (listener === undefined) throw new Error('no TLS listener');
  port = listener.address.port;
});
afterAll(async () => {
  await h.stop();
  await knex.destroy();
  await psp.stop();
  pki.remove();
});

type ClientCert = { cert: Buffer; key: Buffer } | null;
const PSP_CERT = (): ClientCert => ({ cert: pki.pspClient.cert, key: pki.pspClient.key });
const OUR_CERT = (): ClientCert => ({ cert: pki.client.cert, key: pki.client.key });
const STRANGER_CERT = (): ClientCert => ({
  cert: readFileSync(pki.stranger.certFile),
  key: readFileSync(pki.stranger.keyFile),
});

/** The PSP's call over TLS to charges' listener, presenting `client` (or no certificate). */
function overTls(body: unknown, client: ClientCert): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: '127.0.0.1',
        port,
        path: '/provider/v1/pix/notifications/pix',
        method: 'POST',
        ca: pki.ca,
        headers: { 'content-type': 'application/json' },
        ...(client ?? {}),
      },
      (res) => {
        let text = '';
        res.on('data', (chunk) => (text += String(chunk)));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/** Through the ingress and the gateway: the gateway's principal, and the certificate the ingress forwards. */
const viaIngress = (body: unknown, client: ClientCert, principal = asOperator()) =>
  post(
    h,
    '/provider/v1/pix/notifications/pix',
    {
      ...principal,
      ...(client === null
        ? {}
        : { [CERT_HEADER]: encodeURIComponent(client.cert.toString('utf8')) }),
    },
    body,
  );

const received = (txid: string) => ({
  endToEndId: 'E12345678202603021200abcdefghijk',
  txid,
  valor: '10.00',
  horario: '2026-03-02T12:00:00.000Z',
});

/** A pending live Pix charge of a tenant whose Pix rail is `account`, paid at the PSP (not yet here). */
async function paidAtPsp(account: string): Promise<{ id: string; txid: string }> {
  const live = await merchant(h, { livemode: true });
  const set = await h.app.inject({
    method: 'PUT',
    url: `/admin/v1/tenants/${live.tenantId}/live-rails`,
    headers: asOperator(),
    payload: { card: null, pix: { provider: 'bcb-pix', credentials: account }, boleto: null },
  });
  expect(set.statusCode).toBe(200);
  const created = await post(
    h,
    '/api/v1/charges',
    { ...live.key, 'idempotency-key': `pix-${account}-${Math.random()}` },
    { amount: 1_000, payment_method: 'PIX', buyer: buyer() },
  );
  expect(created.statusCode).toBe(201);
  const txid = created.json().acquirer_transaction_id as string;
  await psp.pay(txid);
  return { id: created.json().id, txid };
}

const statusOf = async (id: string) =>
  (await h.db.read((q) => q('charges').where({ id }).first('status'))).status;

const UNAUTHENTICATED = {
  error: {
    type: 'authentication_error',
    code: 'principal_invalid',
    message:
      "The notification is not authenticated as a tenant's Pix provider (mutual TLS client certificate).",
    param: null,
  },
  request_id: expect.stringMatching(/^req_/),
};

describe("POST /provider/v1/pix/notifications/pix on charges' TLS listener (mutual TLS)", () => {
  it("Proves the PSP's pinned certificate is let in and its paid Pix pays the charge once; a notification before the payment moves nothing", async () => {
    const live = await merchant(h, { livemode: true });
    await h.app.inject({
      method: 'PUT',
      url: `/admin/v1/tenants/${live.tenantId}/live-rails`,
      headers: asOperator(),
      payload: { card: null, pix: { provider: 'bcb-pix', credentials: 'psp_one' }, boleto: null },
    });
    const created = await post(
      h,
      '/api/v1/charges',
      { ...live.key, 'idempotency-key': 'pix-tls-1' },
      { amount: 1_000, payment_method: 'PIX', buyer: buyer() },
    );
    const txid = created.json().acquirer_transaction_id as string;

    const early = await overTls(
      { pix: [received(txid), received('notoursnotoursnotoursnotours12')] },
      PSP_CERT(),
    );
    expect([early.status, early.body]).toEqual([
      200,
      { received: 2, paid: 0, refunds_settled: 0, request_id: expect.any(String) },
    ]);
    expect(await statusOf(created.json().id)).toBe('pending');

    await psp.pay(txid);
    expect((await overTls({ pix: [received(txid)] }, PSP_CERT())).body).toMatchObject({
      received: 1,
      paid: 1,
    });
    expect((await overTls({ pix: [received(txid)] }, PSP_CERT())).body).toMatchObject({
      received: 1,
      paid: 0,
    });
    expect(await statusOf(created.json().id)).toBe('paid');
  });

  it.each([
    ['no client certificate', () => null],
    [
      'a certificate of the same CA that is not the pinned one (our own client certificate)',
      OUR_CERT,
    ],
  ])(
    'Proves a notification with %s is 401 with the contract body and the paid charge stays pending',
    async (_name, client) => {
      const charge = await paidAtPsp('psp_one');
      const res = await overTls({ pix: [received(charge.txid)] }, client());
      expect([res.status, res.body]).toEqual([401, UNAUTHENTICATED]);
      // Not even the body is looked at first: a malformed one is 401 too.
      expect((await overTls({ nonsense: true }, client())).status).toBe(401);
      expect(await statusOf(charge.id)).toBe('pending');
      // The PSP itself then pays it.
      expect((await overTls({ pix: [received(charge.txid)] }, PSP_CERT())).body).toMatchObject({
        paid: 1,
      });
    },
  );

  it("Proves another account's PSP (trusted by its CA) cannot pay this account's charges, only its own", async () => {
    const mine = await paidAtPsp('psp_one');
    const theirs = await paidAtPsp('psp_two');
    const res = await overTls(
      { pix: [received(mine.txid), received(theirs.txid)] },
      STRANGER_CERT(),
    );
    expect([res.status, res.body]).toEqual([
      200,
      expect.objectContaining({ received: 2, paid: 1 }),
    ]);
    expect([await statusOf(mine.id), await statusOf(theirs.id)]).toEqual(['pending', 'paid']);
  });

  it('Proves a charge of an account that names no PSP certificate is never paid by a notification (the poll confirms it)', async () => {
    const charge = await paidAtPsp('psp_none');
    for (const client of [PSP_CERT(), STRANGER_CERT()])
      expect((await overTls({ pix: [received(charge.txid)] }, client)).body).toMatchObject({
        paid: 0,
      });
    expect(await statusOf(charge.id)).toBe('pending');
  });
});

describe('POST /provider/v1/pix/notifications/pix behind an ingress that terminates the mutual TLS', () => {
  it('Proves the certificate the ingress forwards in PIX_NOTIFY_CLIENT_CERT_HEADER authenticates the PSP; without it, or with an unknown one, 401 and nothing changes', async () => {
    const charge = await paidAtPsp('psp_one');
    for (const client of [null, OUR_CERT()]) {
      const res = await viaIngress({ pix: [received(charge.txid)] }, client);
      expect([res.statusCode, res.json()]).toEqual([401, UNAUTHENTICATED]);
    }
    expect(await statusOf(charge.id)).toBe('pending');
    const res = await viaIngress({ pix: [received(charge.txid)] }, PSP_CERT());
    expect([res.statusCode, res.json()]).toEqual([
      200,
      { received: 1, paid: 1, refunds_settled: 0, request_id: expect.any(String) },
    ]);
    expect(await statusOf(charge.id)).toBe('paid');
  });

  it('Proves the header counts only on a request the gateway signed for this path, and an authenticated malformed body is still refused whole', async () => {
    const charge = await paidAtPsp('psp_one');
    const live = await merchant(h, { livemode: true });
    expect(
      (await viaIngress({ pix: [received(charge.txid)] }, PSP_CERT(), live.key)).statusCode,
    ).toBe(401);
    expect((await viaIngress({ pix: [received(charge.txid)] }, PSP_CERT(), {})).statusCode).toBe(
      401,
    );
    expect(await statusOf(charge.id)).toBe('pending');
    expect((await viaIngress({ pix: [{ txid: 'x' }] }, PSP_CERT())).statusCode).toBe(422);
    expect((await viaIngress({ other: true }, PSP_CERT())).statusCode).toBe(422);
  });
});
