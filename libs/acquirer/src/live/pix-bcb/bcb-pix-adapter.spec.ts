import { createServer as createHttpsServer, type Server } from 'node:https';
import { createServer as createNetServer } from 'node:net';
import { inspect } from 'node:util';
import { Redacted, verifyBrCode } from '@pgw/domain';
import { BcbPixAdapter } from './bcb-pix-adapter';
import { readBcbPixTlsMaterial, type BcbPixConfig } from './config';
import { refundIdOf, txidOf } from './ids';
import { parsePixNotification } from './notifications';
import { FakePsp } from './testing/fake-psp';
import { makeThrowawayPki, type Pki } from './testing/throwaway-pki';

// Flows against a stateful PSP built from the API Pix specification, over real mutual TLS with a CA made
// for this run: the adapter presents its client certificate, gets an OAuth2 token, and every port rule
// (idempotency by reference, failures as values) is checked against what the PSP then holds.

const CLIENT_SECRET = 'client-secret-7f3a9c2e51b84d06';
const CHAVE = '7d9f0335-8dcc-4054-9bf9-0dbd61d36906';

let pki: Pki;
let psp: FakePsp;
let urls: { baseUrl: string; tokenUrl: string };
let receiver: Server;
let receiverUrl: string;
const received: unknown[] = [];
const adapters: BcbPixAdapter[] = [];

function configFor(overrides: Partial<BcbPixConfig> = {}): BcbPixConfig {
  return {
    baseUrl: urls.baseUrl,
    tokenUrl: urls.tokenUrl,
    clientId: 'gateway-client',
    clientSecret: new Redacted(CLIENT_SECRET),
    scopes: 'cob.write cob.read',
    certFile: pki.client.certFile,
    keyFile: pki.client.keyFile,
    caFile: pki.caFile,
    chave: CHAVE,
    merchantName: 'Loja Exemplo',
    merchantCity: 'Sao Paulo',
    timeoutMs: 1_000,
    ...overrides,
  };
}

function adapterFor(
  options: {
    config?: Partial<BcbPixConfig>;
    now?: () => number;
    log?: { info(m: string): void; warn(m: string): void };
  } = {},
): BcbPixAdapter {
  const adapter = new BcbPixAdapter({
    config: configFor(options.config),
    ...(options.now ? { now: options.now } : {}),
    ...(options.log ? { log: options.log } : {}),
  });
  adapters.push(adapter);
  return adapter;
}

async function closedPort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  pki = makeThrowawayPki();
  psp = new FakePsp({
    tls: { ...pki.server, ca: pki.ca },
    clientId: 'gateway-client',
    clientSecret: CLIENT_SECRET,
    chave: CHAVE,
    webhookCa: pki.ca,
  });
  urls = await psp.start();
  // Our webhook endpoint: what the PSP POSTs notifications to.
  receiver = createHttpsServer({ cert: pki.server.cert, key: pki.server.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `https://127.0.0.1:${(receiver.address() as { port: number }).port}/webhooks/psp`;
});

afterAll(async () => {
  for (const adapter of adapters) adapter.close();
  await psp.stop();
  receiver.closeAllConnections();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
  pki.remove();
});

describe('BcbPixAdapter against a stateful API Pix PSP over mutual TLS', () => {
  it('runs a charge to the end: webhook registered, charge created with a BR Code, paid by notification, refunded, found again by polling', async () => {
    // Proves the whole life of a live Pix charge through the standard's endpoints, and that every request carried our client certificate.
    const adapter = adapterFor();
    expect(await adapter.configureWebhook(receiverUrl)).toEqual({
      ok: true,
      value: { chave: CHAVE, webhookUrl: receiverUrl },
    });

    const created = await adapter.createPixCharge({
      reference: 'ch_flow_1',
      amountCents: 12_345,
      expiresInSeconds: 3600,
    });
    if (!created.ok) throw new Error(created.message);
    expect(created.value).toMatchObject({
      reference: 'ch_flow_1',
      txid: txidOf('ch_flow_1'),
      status: 'active',
      amountCents: 12_345,
      paidAt: null,
      endToEndId: null,
    });
    expect(verifyBrCode(created.value.qrCode).ok).toBe(true);
    expect(created.value.qrCode).toContain(psp.cob(created.value.txid)?.location);
    expect(created.value.qrCode).toContain('5406123.45');
    expect(psp.cob(created.value.txid)?.valor.original).toBe('123.45');

    const endToEndId = await psp.pay(created.value.txid);
    const notification = received.at(-1) as { path: string; body: unknown };
    expect(notification.path).toBe('/webhooks/psp/pix');
    const parsed = parsePixNotification(notification.body);
    expect(parsed).toEqual({
      ok: true,
      pix: [
        {
          endToEndId,
          txid: created.value.txid,
          amountCents: 12_345,
          paidAt: expect.any(String),
          refunds: [],
        },
      ],
    });

    // The notification is a hint; the charge's state at the PSP is the confirmation.
    const paid = await adapter.getPixCharge('ch_flow_1');
    expect(paid).toMatchObject({
      ok: true,
      value: { status: 'paid', endToEndId, paidAt: expect.any(String) },
    });

    const refund = await adapter.refundPix({
      reference: 're_flow_1',
      endToEndId,
      amountCents: 2_345,
    });
    expect(refund).toMatchObject({
      ok: true,
      value: {
        reference: 're_flow_1',
        refundId: refundIdOf('re_flow_1'),
        endToEndId,
        status: 'processing',
        amountCents: 2_345,
      },
    });
    await psp.settleRefund(endToEndId, refundIdOf('re_flow_1'));
    const settledNotice = parsePixNotification((received.at(-1) as { body: unknown }).body);
    expect(settledNotice).toMatchObject({
      ok: true,
      pix: [
        {
          endToEndId,
          refunds: [{ refundId: refundIdOf('re_flow_1'), status: 'succeeded', amountCents: 2_345 }],
        },
      ],
    });
    expect(await adapter.getPixRefund({ reference: 're_flow_1', endToEndId })).toMatchObject({
      ok: true,
      value: { status: 'succeeded', settledAt: expect.any(String) },
    });

    const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
    const listed = await adapter.listReceivedPix({
      from: hourAgo,
      to: new Date(Date.now() + 60_000).toISOString(),
    });
    expect(listed).toMatchObject({ ok: true, value: { complete: true } });
    if (listed.ok)
      expect(listed.value.pix.find((p) => p.endToEndId === endToEndId)).toMatchObject({
        txid: created.value.txid,
        amountCents: 12_345,
      });

    expect(psp.seen.length).toBeGreaterThan(5);
    expect(psp.seen.every((r) => r.clientCertificate === 'our-client')).toBe(true);
  });

  it('is idempotent by reference: a repeat returns the first charge, another request under the same reference is reference_reused', async () => {
    // Proves that the txid derived from the reference makes a retry address the same cob and never create a second one.
    const adapter = adapterFor();
    const first = await adapter.createPixCharge({
      reference: 'ch_idem_1',
      amountCents: 500,
      expiresInSeconds: 600,
    });
    const again = await adapter.createPixCharge({
      reference: 'ch_idem_1',
      amountCents: 500,
      expiresInSeconds: 600,
    });
    expect(first.ok && again.ok).toBe(true);
    if (first.ok && again.ok) expect(again.value).toEqual(first.value);
    expect(
      psp.seen.filter((r) => r.method === 'PUT' && r.path.endsWith(txidOf('ch_idem_1'))),
    ).toHaveLength(2);
    expect(
      await adapter.createPixCharge({
        reference: 'ch_idem_1',
        amountCents: 501,
        expiresInSeconds: 600,
      }),
    ).toMatchObject({ ok: false, kind: 'rejected', code: 'reference_reused' });
  });

  it('recovers a charge whose answer was lost: outcome unknown, then the retry with the same reference returns the charge the PSP made', async () => {
    // Proves the timeout path the charges service relies on: the PSP applied the PUT, failed on the way out, and a retry finds it instead of failing.
    const adapter = adapterFor();
    psp.inject({ status: 500, afterApplying: true });
    expect(
      await adapter.createPixCharge({
        reference: 'ch_lost_1',
        amountCents: 900,
        expiresInSeconds: 600,
      }),
    ).toMatchObject({ ok: false, kind: 'timeout' });
    expect(psp.cob(txidOf('ch_lost_1'))).toBeDefined();
    expect(
      await adapter.createPixCharge({
        reference: 'ch_lost_1',
        amountCents: 900,
        expiresInSeconds: 600,
      }),
    ).toMatchObject({ ok: true, value: { txid: txidOf('ch_lost_1'), status: 'active' } });
    expect(await adapter.getPixCharge('ch_never_sent')).toMatchObject({
      ok: false,
      kind: 'not_found',
    });
  });

  it('refunds once per reference, refuses a different amount under it, and refuses more than the Pix was', async () => {
    // Proves refund idempotency by the devolução id derived from our reference, and the mapping of the PSP's refusals.
    const adapter = adapterFor();
    const charge = await adapter.createPixCharge({
      reference: 'ch_ref_1',
      amountCents: 1_000,
      expiresInSeconds: 600,
    });
    if (!charge.ok) throw new Error(charge.message);
    const endToEndId = await psp.pay(charge.value.txid);
    const first = await adapter.refundPix({ reference: 're_ref_1', endToEndId, amountCents: 400 });
    const again = await adapter.refundPix({ reference: 're_ref_1', endToEndId, amountCents: 400 });
    expect(first).toMatchObject({ ok: true, value: { status: 'processing', amountCents: 400 } });
    if (first.ok && again.ok) expect(again.value.returnId).toBe(first.value.returnId);
    expect(
      await adapter.refundPix({ reference: 're_ref_1', endToEndId, amountCents: 300 }),
    ).toMatchObject({ ok: false, kind: 'rejected', code: 'reference_reused' });
    expect(
      await adapter.refundPix({ reference: 're_ref_2', endToEndId, amountCents: 700 }),
    ).toMatchObject({ ok: false, kind: 'rejected', code: 'not_refundable' });
    expect(
      await adapter.refundPix({
        reference: 're_ref_3',
        endToEndId: 'E00000000202601010000aaaaaaaaaaa',
        amountCents: 1,
      }),
    ).toMatchObject({ ok: false, kind: 'not_found' });
  });

  it('expires an active charge, returns an expired one unchanged, and refuses to expire a paid one', async () => {
    // Proves expirePix through PATCH /cob/{txid} status REMOVIDA_PELO_USUARIO_RECEBEDOR.
    const adapter = adapterFor();
    await adapter.createPixCharge({
      reference: 'ch_exp_1',
      amountCents: 100,
      expiresInSeconds: 600,
    });
    expect(await adapter.expirePix('ch_exp_1')).toMatchObject({
      ok: true,
      value: { status: 'expired' },
    });
    expect(psp.cob(txidOf('ch_exp_1'))?.status).toBe('REMOVIDA_PELO_USUARIO_RECEBEDOR');
    expect(await adapter.expirePix('ch_exp_1')).toMatchObject({
      ok: true,
      value: { status: 'expired' },
    });
    const paid = await adapter.createPixCharge({
      reference: 'ch_exp_2',
      amountCents: 100,
      expiresInSeconds: 600,
    });
    if (paid.ok) await psp.pay(paid.value.txid);
    expect(await adapter.expirePix('ch_exp_2')).toMatchObject({
      ok: false,
      kind: 'rejected',
      code: 'pix_not_expirable',
    });
    expect(await adapter.payPix('ch_exp_1')).toMatchObject({
      ok: false,
      kind: 'rejected',
      code: 'invalid_request',
    });
  });

  it('reads a charge as expired once its lifetime has passed on the clock, though the PSP still lists it ATIVA', async () => {
    // Proves the port's rule that an unpaid charge is expired once expiresAt passes.
    let nowMs = Date.now();
    const adapter = adapterFor({ now: () => nowMs });
    await adapter.createPixCharge({
      reference: 'ch_clock_1',
      amountCents: 100,
      expiresInSeconds: 60,
    });
    nowMs += 61_000;
    expect(await adapter.getPixCharge('ch_clock_1')).toMatchObject({
      ok: true,
      value: { status: 'expired' },
    });
  });

  it('creates a due-date charge (cobv) with its debtor, idempotently, payable until the due date plus its validity', async () => {
    // Proves the boleto-like Pix: PUT /cobv/{txid} with the required debtor, and its replay.
    const adapter = adapterFor();
    const input = {
      reference: 'bl_due_1',
      amountCents: 25_000,
      dueDate: '2099-12-31',
      validityDaysAfterDue: 10,
      debtor: { name: 'Fulano de Tal', cpf: '12345678909' },
    };
    const created = await adapter.createDueDatePixCharge(input);
    expect(created).toMatchObject({
      ok: true,
      value: {
        txid: txidOf('bl_due_1'),
        status: 'active',
        amountCents: 25_000,
        dueDate: '2099-12-31',
        validityDaysAfterDue: 10,
      },
    });
    if (created.ok) expect(verifyBrCode(created.value.qrCode).ok).toBe(true);
    expect(await adapter.createDueDatePixCharge(input)).toEqual(created);
    expect(await adapter.getDueDatePixCharge('bl_due_1')).toEqual(created);
    expect(
      await adapter.createDueDatePixCharge({
        ...input,
        reference: 'bl_due_2',
        dueDate: '2020-01-01',
      }),
    ).toMatchObject({ ok: false, kind: 'rejected', code: 'boleto_due_date_invalid' });
    expect(
      await adapter.createDueDatePixCharge({
        ...input,
        reference: 'bl_due_3',
        debtor: { name: 'X' },
      }),
    ).toMatchObject({ ok: false, kind: 'rejected', code: 'invalid_request' });
  });

  it('reuses one access token until it is about to expire, and renews it after the PSP revokes it', async () => {
    // Proves the OAuth2 client-credentials token cache: one token request for many calls, a new one on expiry and on a 401.
    let nowMs = Date.now();
    const adapter = adapterFor({ now: () => nowMs });
    const before = psp.tokensIssued;
    await Promise.all([
      adapter.getPixCharge('ch_tok_a'),
      adapter.getPixCharge('ch_tok_b'),
      adapter.getPixCharge('ch_tok_c'),
    ]);
    await adapter.getPixCharge('ch_tok_d');
    expect(psp.tokensIssued - before).toBe(1);
    nowMs += 3_600_000;
    await adapter.getPixCharge('ch_tok_e');
    expect(psp.tokensIssued - before).toBe(2);
    psp.revokeTokens();
    expect(await adapter.getPixCharge('ch_tok_f')).toMatchObject({ ok: false, kind: 'not_found' });
    expect(psp.tokensIssued - before).toBe(3);
  });

  it('maps what goes wrong to the port: 503 unavailable, 500 and silence timeout, refused TLS and refused credentials unavailable', async () => {
    // Proves failures are values with the meaning the charges service's recovery needs (nothing happened vs outcome unknown).
    const adapter = adapterFor({ config: { timeoutMs: 300 } });
    const ask = () =>
      adapter.createPixCharge({ reference: 'ch_fail_1', amountCents: 100, expiresInSeconds: 600 });
    psp.inject({ status: 503 });
    expect(await ask()).toMatchObject({ ok: false, kind: 'unavailable' });
    psp.inject({ status: 502 });
    expect(await ask()).toMatchObject({ ok: false, kind: 'timeout' });
    psp.inject({ delayMs: 600 });
    expect(await ask()).toMatchObject({ ok: false, kind: 'timeout' });

    const port = await closedPort();
    const nowhere = adapterFor({
      config: {
        baseUrl: `https://127.0.0.1:${port}/api/v2`,
        tokenUrl: `https://127.0.0.1:${port}/oauth/token`,
      },
    });
    expect(await nowhere.getPixCharge('ch_fail_2')).toMatchObject({
      ok: false,
      kind: 'unavailable',
    });

    const seenBefore = psp.seen.length;
    const stranger = adapterFor({
      config: { certFile: pki.stranger.certFile, keyFile: pki.stranger.keyFile },
    });
    // The PSP drops the TLS session of a certificate from another CA; the first request is the token's, so
    // no Pix call left and the outcome is certain.
    const refused = await stranger.getPixCharge('ch_fail_3');
    expect(refused).toMatchObject({
      ok: false,
      kind: 'unavailable',
      message: expect.stringContaining('no access token'),
    });
    expect(psp.seen.length).toBe(seenBefore); // the PSP never read a request from a certificate it does not trust

    expect(
      await adapter.createPixCharge({
        reference: 'bad reference!',
        amountCents: 100,
        expiresInSeconds: 600,
      }),
    ).toMatchObject({ kind: 'rejected', code: 'invalid_request' });
    expect(
      await adapter.createPixCharge({
        reference: 'ch_fail_4',
        amountCents: 100,
        expiresInSeconds: 30,
      }),
    ).toMatchObject({ kind: 'rejected', code: 'invalid_request' });
  });

  it('never lets the client secret, the access token or the private key reach a message, a log line or a serialized config', async () => {
    // Proves the secrets rule: a refused token request with the secret on the wire still reports and logs nothing of it.
    const lines: string[] = [];
    const log = { info: (m: string) => lines.push(m), warn: (m: string) => lines.push(m) };
    const wrong = adapterFor({
      config: { clientSecret: new Redacted('wrong-secret-0123456789abcdef') },
      log,
    });
    const refused = await wrong.getPixCharge('ch_secret_1');
    expect(refused).toMatchObject({ ok: false, kind: 'unavailable' });

    const right = adapterFor({ log });
    await right.getPixCharge('ch_secret_2');
    const config = configFor();
    const tls = readBcbPixTlsMaterial(config);
    const everything = [
      JSON.stringify(refused),
      ...lines,
      JSON.stringify(config),
      inspect(config),
      inspect(right, { depth: 5 }),
      String(config.clientSecret),
      inspect(tls),
    ].join('\n');
    expect(lines.length).toBeGreaterThan(0);
    expect(everything).not.toContain('wrong-secret-0123456789abcdef');
    expect(everything).not.toContain(CLIENT_SECRET);
    expect(everything).not.toContain(pki.client.key.toString('utf8').split('\n')[1]);
    const keyBytes = tls.key.expose().subarray(40, 52);
    expect(everything).not.toContain(keyBytes.toString('hex'));
    expect(everything).not.toContain(
      [...keyBytes].map((b) => b.toString(16).padStart(2, '0')).join(' '),
    );
    expect(everything).not.toMatch(/Bearer [A-Za-z0-9_-]{20,}/);
  });
});
