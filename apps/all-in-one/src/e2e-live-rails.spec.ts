// End to end with live rails (issue 23): a tenant configured through the operator API sends its live
// (`sk_live_`) traffic to the live adapters, pointed here at the fakes their specs are proven against —
// Cielo (cards), a PSP speaking the BCB API Pix over mutual TLS (Pix), a Banco do Brasil CNAB 240 drop
// folder (boleto) — while its test key keeps the simulator. The same day is run with both keys, and the
// seller's receivables and balance come out the same in both modes.
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import {
  createServer as createHttpsServer,
  request as httpsRequest,
  type Server,
} from 'node:https';
import { tmpdir } from 'node:os';
import type { TLSSocket } from 'node:tls';
import { join } from 'node:path';
import { isValidBarcode, verifyBrCode } from '@pgw/domain';
import { PERMISSIONS } from '@pgw/gateway';
import {
  BcbPixAdapter,
  credentialsEnv,
  readBcbPixConfig,
  readCnab240File,
  refundIdOf,
  txidOf,
} from '@pgw/acquirer';
import { waitFor } from '@pgw/testing';
import {
  CNAB240_TEST_BENEFICIARY as BENEFICIARY,
  CNAB240_TEST_PROFILE as PROFILE,
  FakeCielo,
  FakePsp,
  makeThrowawayPki,
  merchantOrderIdOf,
  writeReturnFile,
  type Pki,
} from '@pgw/acquirer/testing';
import { startAllInOne, type AllInOne } from './all-in-one';
import { BUYER, client, type Answer } from './e2e.scenarios';

jest.setTimeout(120_000);

const MERCHANT_ID = '5e2c4b1a-7d3f-4a9e-8b6c-1f0e2d3c4b5a';
const MERCHANT_KEY = 'KEYFORTHEFAKEONLY0123456789ABCDEFGHIJKLM';
const PSP_CLIENT_SECRET = 'client-secret-7f3a9c2e51b84d06';
const CHAVE = '7d9f0335-8dcc-4054-9bf9-0dbd61d36906';
/** How long the day waits for events to reach receivables and the ledger (the in-process bus: moments). */
const EVENTS_WAIT_MS = 20_000;

let system: AllInOne;
let cielo: FakeCielo;
/** A second Cielo account (another merchant): the one the tenant's card rail is switched to. */
let cieloB: FakeCielo;
const MERCHANT_ID_B = '6f3d5c2b-8e4a-4b0f-9c7d-2a1f3e4d5c6b';
const MERCHANT_KEY_B = 'KEYFORTHEFAKEONLYBBBBBBBBBBBBBBBBBBBBBBB';
let psp: FakePsp;
let pki: Pki;
let dir: string;
let ingress: Server;

beforeAll(async () => {
  cielo = new FakeCielo(MERCHANT_ID, MERCHANT_KEY);
  await cielo.start();
  cieloB = new FakeCielo(MERCHANT_ID_B, MERCHANT_KEY_B);
  await cieloB.start();
  pki = makeThrowawayPki();
  psp = new FakePsp({
    tls: { ...pki.server, ca: pki.ca },
    clientId: 'gateway-client',
    clientSecret: PSP_CLIENT_SECRET,
    chave: CHAVE,
    webhookCa: pki.ca,
    webhookClient: { cert: pki.pspClient.cert, key: pki.pspClient.key },
  });
  const pspUrls = await psp.start();
  dir = mkdtempSync(join(tmpdir(), 'e2e-live-rails-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    // The refund-reconciliation job looks at refunds older than the acquirer's deadline.
    ACQUIRER_TIMEOUT_MS: '1000',
    CHARGES_RECOVERY_INTERVAL_MS: '0',
    // What a deployment would mount: each account's secrets under its credentials name.
    LIVE_RAIL_ACME_CARDS_CIELO_MERCHANT_ID: MERCHANT_ID,
    LIVE_RAIL_ACME_CARDS_CIELO_MERCHANT_KEY: MERCHANT_KEY,
    LIVE_RAIL_ACME_CARDS_CIELO_API_URL: cielo.apiUrl,
    LIVE_RAIL_ACME_CARDS_CIELO_QUERY_URL: cielo.queryUrl,
    // Short, so that the refund whose answer the fake loses times out quickly.
    LIVE_RAIL_ACME_CARDS_CIELO_TIMEOUT_MS: '1000',
    LIVE_RAIL_ACME_CARDS_B_CIELO_MERCHANT_ID: MERCHANT_ID_B,
    LIVE_RAIL_ACME_CARDS_B_CIELO_MERCHANT_KEY: MERCHANT_KEY_B,
    LIVE_RAIL_ACME_CARDS_B_CIELO_API_URL: cieloB.apiUrl,
    LIVE_RAIL_ACME_CARDS_B_CIELO_QUERY_URL: cieloB.queryUrl,
    LIVE_RAIL_ACME_PIX_PIX_BCB_BASE_URL: pspUrls.baseUrl,
    LIVE_RAIL_ACME_PIX_PIX_BCB_TOKEN_URL: pspUrls.tokenUrl,
    LIVE_RAIL_ACME_PIX_PIX_BCB_CLIENT_ID: 'gateway-client',
    LIVE_RAIL_ACME_PIX_PIX_BCB_CLIENT_SECRET: PSP_CLIENT_SECRET,
    LIVE_RAIL_ACME_PIX_PIX_BCB_CERT_FILE: pki.client.certFile,
    LIVE_RAIL_ACME_PIX_PIX_BCB_KEY_FILE: pki.client.keyFile,
    LIVE_RAIL_ACME_PIX_PIX_BCB_CA_FILE: pki.caFile,
    LIVE_RAIL_ACME_PIX_PIX_BCB_CHAVE: CHAVE,
    LIVE_RAIL_ACME_PIX_PIX_BCB_MERCHANT_NAME: 'Loja Exemplo',
    LIVE_RAIL_ACME_PIX_PIX_BCB_MERCHANT_CITY: 'Sao Paulo',
    // The PSP's client certificate on our webhook, pinned; the ingress forwards it in this header.
    LIVE_RAIL_ACME_PIX_PIX_BCB_WEBHOOK_CLIENT_CERT_SHA256: new X509Certificate(pki.pspClient.cert)
      .fingerprint256,
    PIX_NOTIFY_CLIENT_CERT_HEADER: 'x-client-cert',
    LIVE_RAIL_ACME_BB_CNAB240_CNPJ: BENEFICIARY.cnpj,
    LIVE_RAIL_ACME_BB_CNAB240_COMPANY_NAME: BENEFICIARY.companyName,
    LIVE_RAIL_ACME_BB_CNAB240_AGENCY: BENEFICIARY.agency,
    LIVE_RAIL_ACME_BB_CNAB240_AGENCY_DV: BENEFICIARY.agencyDv,
    LIVE_RAIL_ACME_BB_CNAB240_ACCOUNT: BENEFICIARY.account,
    LIVE_RAIL_ACME_BB_CNAB240_ACCOUNT_DV: BENEFICIARY.accountDv,
    LIVE_RAIL_ACME_BB_CNAB240_AGREEMENT: BENEFICIARY.agreement,
    LIVE_RAIL_ACME_BB_CNAB240_WALLET: BENEFICIARY.wallet,
    LIVE_RAIL_ACME_BB_CNAB240_WALLET_VARIATION: BENEFICIARY.walletVariation,
    LIVE_RAIL_ACME_BB_CNAB240_STATE_FILE: join(dir, 'cnab-state.json'),
    LIVE_RAIL_ACME_BB_CNAB240_OUTBOX_DIR: join(dir, 'to-bank'),
    LIVE_RAIL_ACME_BB_CNAB240_INBOX_DIR: join(dir, 'from-bank'),
  };
  system = await startAllInOne({
    dataDir: null,
    port: 0,
    demo: false,
    log: { level: 'silent' },
    env,
  });
  // The ingress a deployment puts before the gateway: it ends the PSP's mutual TLS and passes the request
  // on with the client certificate in x-client-cert (URL-encoded PEM, as nginx's $ssl_client_escaped_cert),
  // which it sets or removes on every request, so no caller can write it.
  ingress = createHttpsServer(
    { cert: pki.server.cert, key: pki.server.key, requestCert: true, rejectUnauthorized: false },
    (req, res) => {
      const { 'x-client-cert': _forged, ...headers } = req.headers;
      const peer = (req.socket as TLSSocket).getPeerX509Certificate();
      const forwarded =
        peer === undefined
          ? headers
          : { ...headers, 'x-client-cert': encodeURIComponent(peer.toString()) };
      const upstream = httpRequest(
        `${system.url}${req.url ?? '/'}`,
        { method: req.method, headers: forwarded },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      req.pipe(upstream);
    },
  );
  await new Promise<void>((resolve) => ingress.listen(0, '127.0.0.1', resolve));
  // The operator registers the webhook at the PSP once per account (PUT /webhook/{chave}); the PSP calls {url}/pix.
  const pixAccount = new BcbPixAdapter({
    config: readBcbPixConfig(credentialsEnv(env, 'acme-pix')),
  });
  const registered = await pixAccount.configureWebhook(
    `https://127.0.0.1:${(ingress.address() as { port: number }).port}/provider/v1/pix/notifications`,
  );
  pixAccount.close();
  expect(registered.ok).toBe(true);
}, 120_000);

afterAll(async () => {
  ingress?.closeAllConnections();
  await new Promise<void>((resolve) =>
    ingress === undefined ? resolve() : ingress.close(() => resolve()),
  );
  await system?.stop();
  await cielo?.close();
  await cieloB?.close();
  await psp?.stop();
  pki?.remove();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

interface Keys {
  tenantId: string;
  test: string;
  live: string;
}

/** A tenant, an approved seller, and a test and a live key of that seller with every permission. */
async function provision(): Promise<Keys> {
  const { admin } = client({
    url: system.url,
    adminToken: system.adminToken,
    tenantId: '',
    apiKey: '',
  });
  const tenant = await admin('POST', '/admin/v1/tenants', { name: 'Acme Live' });
  expect(tenant.status).toBe(201);
  const seller = await admin('POST', `/admin/v1/tenants/${tenant.body.id}/sellers`, {
    name: 'Loja Acme',
    document: '11222333000181',
    kyc_status: 'approved',
  });
  expect(seller.status).toBe(201);
  const key = async (environment: 'test' | 'live'): Promise<string> => {
    const res = await admin('POST', '/admin/v1/api-keys', {
      tenant_id: tenant.body.id,
      seller_id: seller.body.id,
      environment,
      permissions: [...PERMISSIONS],
    });
    expect(res.status).toBe(201);
    return res.body.secret;
  };
  return { tenantId: tenant.body.id, test: await key('test'), live: await key('live') };
}

const api = (keys: Keys, mode: 'test' | 'live') =>
  client({
    url: system.url,
    adminToken: system.adminToken,
    tenantId: keys.tenantId,
    apiKey: keys[mode],
  });

async function ok(answer: Promise<Answer>, status: number): Promise<any> {
  const res = await answer;
  expect([res.status, res.body?.error]).toEqual([status, undefined]);
  return res.body;
}

async function runJob(keys: Keys, job: string): Promise<number> {
  return (await ok(api(keys, 'test').admin('POST', `/admin/v1/jobs/${job}`), 200)).processed;
}

/** The nosso número of a Banco do Brasil slip: the campo livre is 000000 + nosso número (17) + carteira. */
const nossoNumeroOf = (barcode: string): string => barcode.slice(25, 42);

/**
 * The same day in either mode: a card sale in 3 installments held, captured and refunded in part; a Pix
 * paid and refunded in part; a boleto paid. What differs is only who confirms: in test mode the operator's
 * simulation; in live mode the payer's bank at the PSP, and the bank's return file.
 */
async function day(keys: Keys, mode: 'test' | 'live'): Promise<string[]> {
  const { call, admin } = api(keys, mode);

  // Card: tokenized at the mode's card store (Cielo's sandbox rule, which the fake follows, approves a number ending in 1), held, captured, refunded in part.
  const token = await ok(
    call('POST', '/api/v1/payment-methods/tokenize', {
      body: {
        card: {
          number: '4111111111111111',
          exp_month: 12,
          exp_year: 2031,
          cvv: '123',
          holder_name: 'MARIA OLIVEIRA',
        },
      },
    }),
    201,
  );
  expect(token).toMatchObject({ livemode: mode === 'live', brand: 'visa' });
  const held = await ok(
    call('POST', '/api/v1/charges', {
      body: {
        buyer: BUYER,
        amount: 30_000,
        payment_method: 'CREDIT_CARD',
        installments: 3,
        card_token: token.id,
        capture_method: 'manual',
        security_code: '123',
      },
    }),
    201,
  );
  expect(held).toMatchObject({
    status: 'authorized',
    acquirer_code: mode === 'live' ? 'cielo' : 'simulator',
  });
  expect(await ok(call('POST', `/api/v1/charges/${held.id}/capture`), 200)).toMatchObject({
    status: 'paid',
    captured: true,
  });
  if (mode === 'live') {
    expect(cielo.salesUnder(merchantOrderIdOf(held.id) ?? '')).toBe(1);
    // Cielo applies the refund and its answer is lost: the refund is processing, and reconciliation reads
    // the sale's refunded sum to find it succeeded — once, not sent again.
    cielo.failNext('PUT', `/1/sales/${held.acquirer_transaction_id as string}/void`, {
      kind: 'lose-answer',
    });
    const lost = await ok(
      call('POST', `/api/v1/charges/${held.id}/refund`, { body: { amount_cents: 6_000 } }),
      201,
    );
    expect(lost).toMatchObject({ status: 'processing', amount_cents: 6_000 });
    await waitFor(
      async () => ((await runJob(keys, 'refund-reconciliation')) > 0 ? true : undefined),
      EVENTS_WAIT_MS,
      'the card refund to reconcile',
    );
    expect(
      cielo.requests.filter((r) => r.method === 'PUT' && r.path.includes('/void?amount=')).length,
    ).toBe(1);
  } else {
    expect(
      await ok(
        call('POST', `/api/v1/charges/${held.id}/refund`, { body: { amount_cents: 6_000 } }),
        201,
      ),
    ).toMatchObject({ status: 'succeeded', amount_cents: 6_000 });
  }
  expect((await ok(call('GET', `/api/v1/charges/${held.id}`), 200)).status).toBe(
    'partially_refunded',
  );

  // Pix: a charge at the PSP, paid by the buyer's bank, then refunded in part.
  const pix = await ok(
    call('POST', '/api/v1/charges', {
      body: { buyer: BUYER, amount: 2_500, payment_method: 'PIX', pix: { expires_in: 3_600 } },
    }),
    201,
  );
  expect(pix).toMatchObject({
    status: 'pending',
    acquirer_code: mode === 'live' ? 'bcb-pix' : 'simulator',
  });
  expect(verifyBrCode(pix.pix.qr_code).ok).toBe(true);
  if (mode === 'live') {
    expect(psp.cob(txidOf(pix.id))).toMatchObject({
      status: 'ATIVA',
      valor: { original: '25.00' },
    });
    // A caller without the PSP's client certificate is refused at charges, even one that writes the
    // ingress's header itself (the ingress replaces it).
    const forged = await new Promise<{ status: number; body: any }>((resolve, reject) => {
      const req = httpsRequest(
        {
          host: '127.0.0.1',
          port: (ingress.address() as { port: number }).port,
          path: '/provider/v1/pix/notifications/pix',
          method: 'POST',
          ca: pki.ca,
          headers: {
            'content-type': 'application/json',
            'x-client-cert': encodeURIComponent(pki.pspClient.cert.toString('utf8')),
          },
        },
        (res) => {
          let text = '';
          res.on('data', (chunk) => (text += String(chunk)));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
        },
      );
      req.on('error', reject);
      req.end(
        JSON.stringify({
          pix: [
            {
              endToEndId: 'E12345678202603021200abcdefghijk',
              txid: txidOf(pix.id),
              valor: '25.00',
              horario: new Date().toISOString(),
            },
          ],
        }),
      );
    });
    expect([forged.status, forged.body.error?.code]).toEqual([401, 'principal_invalid']);
    // The payer's bank pays; the PSP's notification (its client certificate forwarded by the ingress)
    // reaches charges through the gateway, and charges confirms it at the PSP before the charge is paid.
    const endToEndId = await psp.pay(txidOf(pix.id));
    expect(psp.notificationsSent).toHaveLength(1);
    expect((await ok(call('GET', `/api/v1/charges/${pix.id}`), 200)).status).toBe('paid');
    // The poll that catches a lost notification finds nothing left to do (a lost one: the test below).
    expect(await runJob(keys, 'pix-payments')).toBe(0);
    // The PSP takes the devolução and settles it later: the refund is processing until reconciliation reads it settled.
    const refund = await ok(
      call('POST', `/api/v1/charges/${pix.id}/refund`, { body: { amount_cents: 1_000 } }),
      201,
    );
    expect(refund).toMatchObject({ status: 'processing', amount_cents: 1_000 });
    // Settled by the SPI: the PSP's notification makes charges look the devolução up again.
    await psp.settleRefund(endToEndId, refundIdOf(refund.id));
    expect((await ok(call('GET', `/api/v1/charges/${pix.id}`), 200)).status).toBe(
      'partially_refunded',
    );
  } else {
    await ok(admin('POST', `/admin/v1/simulations/charges/${pix.id}/pay`), 200);
    expect(
      await ok(
        call('POST', `/api/v1/charges/${pix.id}/refund`, { body: { amount_cents: 1_000 } }),
        201,
      ),
    ).toMatchObject({ status: 'succeeded' });
  }
  expect((await ok(call('GET', `/api/v1/charges/${pix.id}`), 200)).status).toBe(
    'partially_refunded',
  );

  // Boleto: registered (live: sent in the next remittance file), paid (live: liquidated in a return file).
  const slip = await ok(
    call('POST', '/api/v1/charges', {
      body: { buyer: BUYER, amount: 15_000, payment_method: 'BOLETO' },
    }),
    201,
  );
  expect(slip).toMatchObject({
    status: 'pending',
    acquirer_code: mode === 'live' ? 'cnab240-001' : 'simulator',
  });
  expect(isValidBarcode(slip.boleto.barcode)).toBe(true);
  if (mode === 'live') {
    expect(slip.boleto.barcode.slice(0, 3)).toBe('001');
    await runJob(keys, 'boleto-exchange');
    const remittances = readdirSync(join(dir, 'to-bank')).filter((f) => !f.startsWith('.'));
    expect(remittances).toHaveLength(1);
    // The bank registers the slip under the charge's buyer: segment Q of the remittance, as the bank parses it.
    const remittance = readCnab240File(
      readFileSync(join(dir, 'to-bank', remittances[0]!), 'latin1'),
    );
    if (!remittance.ok) throw new Error(remittance.error);
    expect(
      remittance.value.lots
        .flatMap((l) => l.details.filter((d) => d.segment === 'Q'))
        .map((q) => q.fields),
    ).toEqual([
      expect.objectContaining({
        payerInscriptionType: '1',
        payerInscriptionNumber: BUYER.document.padStart(15, '0'),
        payerName: 'MARIA OLIVEIRA',
        payerAddress: 'RUA DO OUVIDOR, 50',
        payerPostalCode: '20040030',
        payerCity: 'RIO DE JANEIRO',
        payerState: 'RJ',
      }),
    ]);
    const today = new Date(Date.now() - 3 * 3_600_000).toISOString().slice(0, 10); // the bank's day (Brasília)
    const nossoNumero = nossoNumeroOf(slip.boleto.barcode);
    const movements = [
      {
        code: '02',
        nossoNumero,
        amountCents: 15_000,
        dueDate: slip.boleto.due_date,
        occurredDate: today,
      },
      {
        code: '06',
        nossoNumero,
        amountCents: 15_000,
        dueDate: slip.boleto.due_date,
        paidCents: 15_000,
        netCreditCents: 14_700,
        feeCents: 300,
        occurredDate: today,
        creditDate: today,
      },
    ];
    writeFileSync(join(dir, 'from-bank', 'RET00001.RET'), writeReturnFile(PROFILE, 1, movements));
    expect(await runJob(keys, 'boleto-exchange')).toBe(1);
  } else {
    await ok(admin('POST', `/admin/v1/simulations/charges/${slip.id}/pay`), 200);
  }
  expect((await ok(call('GET', `/api/v1/charges/${slip.id}`), 200)).status).toBe('paid');
  return [held.id, pix.id, slip.id];
}

/** Days from the UTC date of a charge's paid_at (the receivables' calendar, contract §4) to a due date. */
const daysAfterPaid = (dueDate: string, paidAt: string) =>
  (Date.parse(dueDate) - Date.parse(paidAt.slice(0, 10))) / 86_400_000;

/**
 * What the seller sees of a day's money: each charge's receivables (by installment, each due date as days
 * after its charge was paid) and the balance, once the events landed. Due dates are compared by that rule,
 * not as dates: a live boleto is paid on the bank's day (its return file has no time), a test one at the
 * instant the simulation runs, and from 21:00 to midnight in Brasília the two fall on different UTC days.
 */
async function money(keys: Keys, mode: 'test' | 'live', charges: string[]): Promise<unknown> {
  const { call } = api(keys, mode);
  return waitFor(
    async () => {
      const receivables = (await ok(call('GET', '/api/v1/receivables?limit=100'), 200))
        .data as any[];
      const balance = await ok(call('GET', '/api/v1/balance'), 200);
      const paidAt = new Map<string, string>();
      for (const id of charges)
        paidAt.set(id, (await ok(call('GET', `/api/v1/charges/${id}`), 200)).paid_at);
      const byCharge = charges.map((id) =>
        receivables
          .filter((r) => r.charge_id === id)
          .sort((a, b) => a.installment - b.installment)
          .map((r) => [
            r.installment,
            r.status,
            r.gross_amount_cents,
            r.net_amount_cents,
            daysAfterPaid(r.due_date, paidAt.get(id)!),
          ]),
      );
      // Card 3, Pix 1, boleto 1 receivables, and a balance that has seen every charge and refund.
      if (byCharge.map((r) => r.length).join() !== '3,1,1' || balance.pending_cents === 0)
        return undefined;
      const { request_id: _requestId, ...shown } = balance;
      return {
        receivables: byCharge,
        balance: shown,
        history: (await ok(call('GET', '/api/v1/balance/history?limit=100'), 200)).data.length,
      };
    },
    EVENTS_WAIT_MS,
    `the ${mode} day's receivables and balance`,
  );
}

describe('a tenant on live rails, configured through the operator API', () => {
  it('Proves live card, Pix and boleto reach Cielo, the PSP and the bank, confirm through the same events, and leave the seller the same receivables and balance as test mode', async () => {
    const keys = await provision();
    const { admin } = api(keys, 'test');
    const set = await admin('PUT', `/admin/v1/tenants/${keys.tenantId}/live-rails`, {
      card: { provider: 'cielo', credentials: 'acme-cards' },
      pix: { provider: 'bcb-pix', credentials: 'acme-pix' },
      boleto: { provider: 'cnab240-bb', credentials: 'acme-bb' },
    });
    expect(set.status).toBe(200);
    const shown = await ok(admin('GET', `/admin/v1/tenants/${keys.tenantId}/live-rails`), 200);
    expect(shown).toMatchObject({
      card: { ready: true, settings: { merchant_id: '****4b5a' } },
      pix: { ready: true, settings: { client_id: '****ient' } },
      boleto: { ready: true },
    });
    expect(JSON.stringify(shown)).not.toContain(MERCHANT_KEY);
    expect(JSON.stringify(shown)).not.toContain(PSP_CLIENT_SECRET);

    const live = await day(keys, 'live');
    const test = await day(keys, 'test');
    const liveMoney = (await money(keys, 'live', live)) as {
      receivables: unknown[][];
      balance: unknown;
    };
    const testMoney = (await money(keys, 'test', test)) as {
      receivables: unknown[][];
      balance: unknown;
    };
    // Same amounts, statuses and due dates, and the same balance and history, each in its own mode: the
    // live charges are the live key's alone.
    expect(liveMoney).toEqual(testMoney);
    expect(liveMoney.balance).toMatchObject({ pending_cents: expect.any(Number) });
    for (const id of live)
      expect((await api(keys, 'test').call('GET', `/api/v1/charges/${id}`)).status).toBe(404);
  });

  it('Proves a live Pix whose notification is lost is paid by the pix-payments poll (GET /pix at the PSP), and a Pix both notified and polled pays its charge once', async () => {
    const keys = await provision();
    const { admin, call } = api(keys, 'live');
    await ok(
      admin('PUT', `/admin/v1/tenants/${keys.tenantId}/live-rails`, {
        card: null,
        pix: { provider: 'bcb-pix', credentials: 'acme-pix' },
        boleto: null,
      }),
      200,
    );
    // The operator (re)registers the account's webhook at the PSP through the gateway: the same URL the
    // set-up registered, so nothing changes at the PSP.
    const webhookUrl = `https://127.0.0.1:${(ingress.address() as { port: number }).port}/provider/v1/pix/notifications`;
    expect(
      await ok(
        admin('PUT', `/admin/v1/tenants/${keys.tenantId}/live-rails/pix/webhook`, {
          webhook_url: webhookUrl,
        }),
        200,
      ),
    ).toMatchObject({ object: 'pix_webhook', credentials: 'acme-pix', webhook_url: webhookUrl });
    expect(psp.registeredWebhook).toBe(webhookUrl);
    const charge = async () =>
      ok(
        call('POST', '/api/v1/charges', {
          body: { buyer: BUYER, amount: 1_800, payment_method: 'PIX', pix: { expires_in: 3_600 } },
        }),
        201,
      );
    const status = async (id: string) =>
      (await ok(call('GET', `/api/v1/charges/${id}`), 200)).status;
    const notified = await charge();
    const lost = await charge();
    // One is paid and notified; the other's notification never arrives.
    await psp.pay(txidOf(notified.id));
    const lostPix = await psp.pay(txidOf(lost.id), new Date(), { notify: false });
    expect(await status(notified.id)).toBe('paid');
    expect(await status(lost.id)).toBe('pending');
    const listed = () =>
      psp.seen.filter((r) => r.method === 'GET' && r.path.endsWith('/pix')).length;
    const before = listed();

    // The poll lists the Pix the account received (both) and pays the one still pending, only it.
    expect(await runJob(keys, 'pix-payments')).toBe(1);
    expect(listed()).toBe(before + 1);
    expect(await status(lost.id)).toBe('paid');
    // The PSP's late retry of the lost notification, and another poll, change nothing.
    await psp.renotify(lostPix);
    expect(await runJob(keys, 'pix-payments')).toBe(0);
    for (const id of [notified.id, lost.id]) {
      const history = await ok(call('GET', `/api/v1/charges/${id}/events`), 200);
      expect(history.data.filter((e: { type: string }) => e.type === 'charge.paid')).toHaveLength(
        1,
      );
    }
  });

  it("Proves a live card stored at Cielo account A is still charged at A after the operator moves the tenant's card rail to account B, and a card stored then goes to B", async () => {
    const keys = await provision();
    const { admin, call } = api(keys, 'live');
    const rails = (card: string) => ({
      card: { provider: 'cielo', credentials: card },
      pix: null,
      boleto: null,
    });
    await ok(
      admin('PUT', `/admin/v1/tenants/${keys.tenantId}/live-rails`, rails('acme-cards')),
      200,
    );
    const card = {
      number: '4111111111111111',
      exp_month: 12,
      exp_year: 2031,
      cvv: '123',
      holder_name: 'MARIA OLIVEIRA',
    };
    const atA = await ok(call('POST', '/api/v1/payment-methods/tokenize', { body: { card } }), 201);

    await ok(
      admin('PUT', `/admin/v1/tenants/${keys.tenantId}/live-rails`, rails('acme-cards-b')),
      200,
    );
    const salesAtA = () =>
      cielo.requests.filter(
        (r) => r.host === 'api' && r.method === 'POST' && r.path === '/1/sales/',
      ).length;
    const before = salesAtA();
    const charge = await ok(
      call('POST', '/api/v1/charges', {
        body: {
          buyer: BUYER,
          amount: 3_000,
          payment_method: 'CREDIT_CARD',
          installments: 1,
          card_token: atA.id,
        },
      }),
      201,
    );
    expect(charge).toMatchObject({ status: 'paid', acquirer_code: 'cielo' });
    expect(salesAtA()).toBe(before + 1);
    expect(cieloB.requests).toEqual([]);

    // A card tokenized now is stored at B, and charged there.
    const atB = await ok(call('POST', '/api/v1/payment-methods/tokenize', { body: { card } }), 201);
    const second = await ok(
      call('POST', '/api/v1/charges', {
        body: {
          buyer: BUYER,
          amount: 2_000,
          payment_method: 'CREDIT_CARD',
          installments: 1,
          card_token: atB.id,
        },
      }),
      201,
    );
    expect(second).toMatchObject({ status: 'paid' });
    expect(
      cieloB.requests.filter((r) => r.host === 'api').map((r) => `${r.method} ${r.path}`),
    ).toEqual(['POST /1/card/', 'POST /1/sales/']);
    expect(salesAtA()).toBe(before + 1);
  });
});
