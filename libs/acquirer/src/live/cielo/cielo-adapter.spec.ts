import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import Ajv from 'ajv';
import cardStoreRequest from './fixtures/card-store.request.json';
import saleRequest from './fixtures/sale-token.request.json';
import { CieloAdapter, cieloInstant, safeText } from './cielo-adapter';
import { Redacted } from '@pgw/domain';
import { cieloConfigFromEnv, type CieloConfig } from './cielo-config';
import { CieloCardRequest, CieloSaleRequest } from './cielo-wire';
import { FakeCielo } from './testing/fake-cielo';

const MERCHANT_ID = '5e2c4b1a-7d3f-4a9e-8b6c-1f0e2d3c4b5a';
const MERCHANT_KEY = 'KEYFORTHEFAKEONLY0123456789ABCDEFGHIJKLM';
// Luhn-valid Visa numbers; the last digit picks the outcome, as in Cielo's sandbox (0 approves, 2 declines, 6 times out).
const PAN_APPROVED = '4024007153763190';
const PAN_DECLINED = '4024007153763182';
const PAN_ISSUER_TIMEOUT = '4024007153763166';
const CVV = '739';
// Long enough for a local answer on a busy machine, short enough that a lost answer costs little.
const SHORT_TIMEOUT_MS = 600;

let fake: FakeCielo;

function config(overrides: Partial<CieloConfig> = {}): CieloConfig {
  return {
    merchantId: MERCHANT_ID,
    merchantKey: new Redacted(MERCHANT_KEY),
    apiUrl: fake.apiUrl,
    queryUrl: fake.queryUrl,
    timeoutMs: 2_000,
    queryTimeoutMs: 2_000,
    ...overrides,
  };
}

function logSink(): {
  lines: string[];
  log: { warn(fields: Record<string, unknown>, message: string): void };
} {
  const lines: string[] = [];
  return {
    lines,
    log: { warn: (fields, message) => lines.push(`${message} ${inspect(fields, { depth: 5 })}`) },
  };
}

async function stored(adapter: CieloAdapter, number = PAN_APPROVED, reference = 'tok_flow1') {
  const result = await adapter.storeCard({
    reference,
    number,
    expMonth: 8,
    expYear: 2031,
    holderName: 'Maria Souza',
  });
  if (!result.ok) throw new Error(`storeCard failed: ${result.message}`);
  return result.value;
}

/** A port on 127.0.0.1 that nothing listens on (taken, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

beforeEach(async () => {
  fake = new FakeCielo(MERCHANT_ID, MERCHANT_KEY);
  await fake.start();
});

afterEach(async () => {
  // Closed first, so that a failed check below does not leave the servers holding jest open.
  await fake.close();
  // Every request the adapter sent, in every test, had the documented shape.
  expect(fake.violations).toEqual([]);
});

describe('CieloAdapter against a fake Cielo that holds it to the manual', () => {
  it('stores a card in Cartão Protegido and hands back a card reference that names the brand', async () => {
    // Proves POST /1/card/ goes to the transactional host with the manual's fields and headers, once.
    const card = await stored(new CieloAdapter({ config: config() }));
    expect(card).toEqual({
      reference: 'tok_flow1',
      cardRef: expect.stringMatching(/^Visa:[0-9a-f-]{36}$/),
      brand: 'visa',
      last4: '3190',
    });
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]).toMatchObject({
      host: 'api',
      method: 'POST',
      path: '/1/card/',
      headers: { MerchantId: MERCHANT_ID, RequestId: expect.stringMatching(/^[0-9a-f-]{36}$/) },
    });
    expect(JSON.parse(fake.requests[0]!.body)).toEqual({
      CustomerName: 'Maria Souza',
      CardNumber: PAN_APPROVED,
      Holder: 'Maria Souza',
      ExpirationDate: '08/2031',
      Brand: 'Visa',
    });
  });

  it('authorizes in installments without capture, under the reference as MerchantOrderId', async () => {
    // Proves the sale request carries the token, brand, CVV, installments and capture flag, and the answer reads as a hold.
    const adapter = new CieloAdapter({ config: config() });
    const card = await stored(adapter);
    const result = await adapter.authorize({
      reference: 'ch_Sale1',
      cardRef: card.cardRef,
      amountCents: 25_990,
      installments: 3,
      capture: false,
      securityCode: CVV,
    });
    expect(result).toEqual({
      ok: true,
      value: expect.objectContaining({
        reference: 'ch_Sale1',
        status: 'authorized',
        amountCents: 25_990,
        installments: 3,
        capturedAmountCents: 0,
        returnCode: '4',
        refusedReason: null,
      }),
    });
    const sale = fake.requests.find((r) => r.method === 'POST' && r.path === '/1/sales/');
    expect(sale?.host).toBe('api');
    expect(JSON.parse(sale!.body)).toMatchObject({
      MerchantOrderId: 'chZ0Sale1',
      Payment: {
        Type: 'CreditCard',
        Amount: 25_990,
        Installments: 3,
        Capture: false,
        CreditCard: { CardToken: card.cardRef.slice(5), SecurityCode: CVV, Brand: 'Visa' },
      },
    });
    // Before selling, the adapter asked the query host whether a sale already existed under the reference.
    expect(fake.requests.map((r) => `${r.host} ${r.method} ${r.path.split('?')[0]}`)).toEqual([
      'api POST /1/card/',
      'query GET /1/sales',
      'api POST /1/sales/',
    ]);
  });

  it('reads a declined sale as refused with its return code, and an issuer time-out as a failed one', async () => {
    // Proves a refusal is a value (ok: true), not a failure, with the reason mapped from Cielo's ReturnCode.
    const adapter = new CieloAdapter({ config: config() });
    const declined = await stored(adapter, PAN_DECLINED, 'tok_d');
    expect(
      await adapter.authorize({
        reference: 'ch_d',
        cardRef: declined.cardRef,
        amountCents: 1_000,
        installments: 1,
        capture: true,
      }),
    ).toEqual({
      ok: true,
      value: expect.objectContaining({
        status: 'refused',
        refusedReason: 'card_declined',
        returnCode: '05',
        returnMessage: 'Not Authorized',
        authorizationCode: null,
      }),
    });
    const slow = await stored(adapter, PAN_ISSUER_TIMEOUT, 'tok_t');
    expect(
      await adapter.authorize({
        reference: 'ch_t',
        cardRef: slow.cardRef,
        amountCents: 1_000,
        installments: 1,
        capture: true,
      }),
    ).toEqual({
      ok: true,
      value: expect.objectContaining({
        status: 'failed',
        refusedReason: 'processing_error',
        returnCode: '99',
      }),
    });
  });

  it('sells once per reference: a repeat returns the first sale, a different request under it is refused', async () => {
    // Proves a retry cannot charge the buyer twice, and a reused reference is reference_reused.
    const adapter = new CieloAdapter({ config: config() });
    const card = await stored(adapter);
    const input = {
      reference: 'ch_Once',
      cardRef: card.cardRef,
      amountCents: 5_000,
      installments: 2,
      capture: true,
    };
    const first = await adapter.authorize(input);
    const second = await adapter.authorize(input);
    expect(first.ok && second.ok && second.value.transactionId === first.value.transactionId).toBe(
      true,
    );
    expect(fake.salesUnder('chZ0Once')).toBe(1);
    expect(await adapter.authorize({ ...input, amountCents: 5_001 })).toMatchObject({
      ok: false,
      kind: 'rejected',
      code: 'reference_reused',
    });
    expect(fake.salesUnder('chZ0Once')).toBe(1);
  });

  it('captures, voids and refunds only from the states that allow it, and repeats are harmless', async () => {
    // Proves capture and void are idempotent, and refunds are checked against what was captured before Cielo is asked.
    const adapter = new CieloAdapter({ config: config() });
    const card = await stored(adapter);
    const hold = await adapter.authorize({
      reference: 'ch_Hold',
      cardRef: card.cardRef,
      amountCents: 3_000,
      installments: 1,
      capture: false,
    });
    if (!hold.ok) throw new Error('authorize failed');
    const transactionId = hold.value.transactionId;
    expect(
      await adapter.refund({ reference: 'rf_early', transactionId, amountCents: 100 }),
    ).toMatchObject({ ok: false, kind: 'rejected', code: 'not_refundable' });
    const canceled = await adapter.cancel({ transactionId });
    expect(canceled).toMatchObject({
      ok: true,
      value: { status: 'canceled', canceledAt: expect.any(String) },
    });
    expect(await adapter.cancel({ transactionId })).toMatchObject({
      ok: true,
      value: { status: 'canceled' },
    });
    expect(await adapter.capture({ transactionId })).toMatchObject({
      ok: false,
      kind: 'rejected',
      code: 'not_capturable',
    });
    expect(fake.requests.filter((r) => r.method === 'PUT')).toHaveLength(1);

    const sale = await adapter.authorize({
      reference: 'ch_Sale',
      cardRef: card.cardRef,
      amountCents: 3_000,
      installments: 1,
      capture: true,
    });
    if (!sale.ok) throw new Error('authorize failed');
    expect(await adapter.capture({ transactionId: sale.value.transactionId })).toMatchObject({
      ok: true,
      value: { status: 'captured', capturedAmountCents: 3_000 },
    });
    expect(await adapter.cancel({ transactionId: sale.value.transactionId })).toMatchObject({
      ok: false,
      kind: 'rejected',
      code: 'not_cancelable',
    });
    expect(
      await adapter.refund({
        reference: 'rf_big',
        transactionId: sale.value.transactionId,
        amountCents: 3_001,
      }),
    ).toMatchObject({
      ok: false,
      kind: 'rejected',
      code: 'refund_amount_exceeds_captured',
    });
    expect(
      await adapter.capture({ transactionId: '00000000-0000-4000-8000-000000000000' }),
    ).toMatchObject({ ok: false, kind: 'not_found' });
  });

  it('reads a refund by its cancellation return code: done, declined, not done, or unknown', async () => {
    // Proves a void answered 200 is not taken as a refund unless its code says so.
    const adapter = new CieloAdapter({ config: config() });
    const card = await stored(adapter);
    const sale = await adapter.authorize({
      reference: 'ch_Rf',
      cardRef: card.cardRef,
      amountCents: 9_000,
      installments: 1,
      capture: true,
    });
    if (!sale.ok) throw new Error('authorize failed');
    const refund = (reference: string) =>
      adapter.refund({ reference, transactionId: sale.value.transactionId, amountCents: 1_000 });
    const voidAnswer = (code: string) => ({
      kind: 'status' as const,
      status: 200,
      body: { Status: 2, ReturnCode: code, ReturnMessage: 'from Cielo' },
    });
    fake.failNext('PUT', '/1/sales/', voidAnswer('55'));
    expect(await refund('rf_1')).toMatchObject({
      ok: true,
      value: { status: 'failed', failureReason: 'merchant_balance_insufficient' },
    });
    fake.failNext('PUT', '/1/sales/', voidAnswer('103'));
    expect(await refund('rf_2')).toMatchObject({
      ok: true,
      value: { status: 'failed', failureReason: 'refund_declined' },
    });
    fake.failNext('PUT', '/1/sales/', voidAnswer('57'));
    expect(await refund('rf_3')).toMatchObject({ ok: false, kind: 'unavailable' });
    fake.failNext('PUT', '/1/sales/', voidAnswer('476'));
    expect(await refund('rf_4')).toMatchObject({ ok: false, kind: 'timeout' });
    fake.failNext('PUT', '/1/sales/', voidAnswer('40'));
    expect(await refund('rf_5')).toMatchObject({
      ok: false,
      kind: 'rejected',
      code: 'not_refundable',
    });
    fake.failNext('PUT', '/1/sales/', {
      kind: 'status',
      status: 400,
      body: [{ Code: 309, Message: 'Transaction not available to void' }],
    });
    expect(await refund('rf_6')).toMatchObject({
      ok: false,
      kind: 'rejected',
      code: 'not_refundable',
    });
    expect(await refund('rf_7')).toMatchObject({
      ok: true,
      value: { status: 'succeeded', refundId: expect.stringMatching(/^[0-9a-f-]{36}$/) },
    });
  });

  it('turns every way a call can fail into the port’s failure values', async () => {
    // Proves: nothing happened → unavailable; answer lost or Cielo failed mid-way → timeout; refused → rejected with our code.
    const port = await closedPort();
    const down = new CieloAdapter({
      config: config({ apiUrl: `http://127.0.0.1:${port}`, queryUrl: `http://127.0.0.1:${port}` }),
    });
    expect(
      await down.storeCard({
        reference: 'tok_x',
        number: PAN_APPROVED,
        expMonth: 1,
        expYear: 2030,
        holderName: 'A B',
      }),
    ).toMatchObject({ ok: false, kind: 'unavailable' });

    const adapter = new CieloAdapter({ config: config({ timeoutMs: SHORT_TIMEOUT_MS }) });
    const card = await stored(adapter);
    const sell = (reference: string) =>
      adapter.authorize({
        reference,
        cardRef: card.cardRef,
        amountCents: 700,
        installments: 1,
        capture: true,
      });
    fake.failNext('POST', '/1/sales/', { kind: 'status', status: 503 });
    expect(await sell('ch_f1')).toMatchObject({ ok: false, kind: 'unavailable' });
    fake.failNext('POST', '/1/sales/', { kind: 'status', status: 500 });
    expect(await sell('ch_f2')).toMatchObject({ ok: false, kind: 'timeout' });
    fake.failNext('POST', '/1/sales/', { kind: 'status', status: 200, body: { unexpected: true } });
    expect(await sell('ch_f3')).toMatchObject({ ok: false, kind: 'timeout' });
    fake.failNext('POST', '/1/sales/', {
      kind: 'status',
      status: 400,
      body: [{ Code: 302, Message: 'Sent MerchantOrderId is duplicated' }],
    });
    expect(await sell('ch_f4')).toMatchObject({
      ok: false,
      kind: 'rejected',
      code: 'reference_reused',
      message: 'Cielo error 302: Sent MerchantOrderId is duplicated',
    });
    fake.failNext('POST', '/1/sales/', {
      kind: 'status',
      status: 400,
      body: [{ Code: 132, Message: 'MerchantKey is invalid' }],
    });
    expect(await sell('ch_f5')).toMatchObject({ ok: false, kind: 'unavailable' });
    // The query host down before a sale: no sale is sent, so nothing happened.
    fake.failNext('GET', '/1/sales', { kind: 'status', status: 502 });
    expect(await sell('ch_f6')).toMatchObject({ ok: false, kind: 'unavailable' });
    expect(fake.salesUnder('chZ0f6')).toBe(0);
    fake.failNext('POST', '/1/sales/', { kind: 'lose-answer' });
    expect(await sell('ch_f7')).toMatchObject({ ok: false, kind: 'timeout' });

    const wrongKey = new CieloAdapter({
      config: config({ merchantKey: new Redacted('NOT-THE-KEY-0123456789') }),
    });
    expect(await wrongKey.getAuthorization('ch_Any')).toMatchObject({
      ok: false,
      kind: 'unavailable',
    });
    expect(await adapter.getAuthorization('ch_Never')).toMatchObject({
      ok: false,
      kind: 'not_found',
    });
    // Cielo keeps no refund under our reference: the only safe answer is "unknown", never not_found.
    expect(await adapter.getRefund('rf_any')).toMatchObject({ ok: false, kind: 'timeout' });
  });

  it('recovers a sale whose answer was lost, after a restart, and carries it through capture and a partial refund', async () => {
    // Proves the crash-recovery path: the sale was made, the answer never came (timeout); a new process finds it
    // by reference (GET /1/sales?merchantOrderId= then GET /1/sales/{PaymentId}), does not sell again, and goes on.
    const before = new CieloAdapter({ config: config({ timeoutMs: SHORT_TIMEOUT_MS }) });
    const card = await stored(before);
    const input = {
      reference: 'ch_Crash',
      cardRef: card.cardRef,
      amountCents: 60_000,
      installments: 6,
      capture: false,
      securityCode: CVV,
    };
    fake.failNext('POST', '/1/sales/', { kind: 'lose-answer' });
    expect(await before.authorize(input)).toMatchObject({ ok: false, kind: 'timeout' });
    expect(fake.salesUnder('chZ0Crash')).toBe(1);

    const after = new CieloAdapter({ config: config() });
    const found = await after.getAuthorization('ch_Crash');
    expect(found).toMatchObject({
      ok: true,
      value: { reference: 'ch_Crash', status: 'authorized', amountCents: 60_000, installments: 6 },
    });
    if (!found.ok) throw new Error('not found');
    const queries = fake.requests.filter((r) => r.host === 'query').map((r) => r.path);
    expect(queries.slice(-2)).toEqual([
      '/1/sales?merchantOrderId=chZ0Crash',
      `/1/sales/${found.value.transactionId}`,
    ]);

    // The caller's retry with the same reference returns the same sale, and Cielo still holds one.
    expect(await after.authorize(input)).toMatchObject({
      ok: true,
      value: { transactionId: found.value.transactionId },
    });
    expect(fake.salesUnder('chZ0Crash')).toBe(1);

    const captured = await after.capture({ transactionId: found.value.transactionId });
    expect(captured).toMatchObject({
      ok: true,
      value: {
        reference: 'ch_Crash',
        status: 'captured',
        capturedAmountCents: 60_000,
        capturedAt: expect.any(String),
      },
    });
    const refund = await after.refund({
      reference: 'rf_Part',
      transactionId: found.value.transactionId,
      amountCents: 15_000,
    });
    expect(refund).toMatchObject({
      ok: true,
      value: {
        reference: 'rf_Part',
        status: 'succeeded',
        amountCents: 15_000,
        failureReason: null,
      },
    });
    const put = fake.requests.filter((r) => r.method === 'PUT').map((r) => r.path);
    expect(put).toEqual([
      `/1/sales/${found.value.transactionId}/capture`,
      `/1/sales/${found.value.transactionId}/void?amount=15000`,
    ]);

    expect(await after.getAuthorization('ch_Crash')).toMatchObject({
      ok: true,
      value: { status: 'captured', capturedAmountCents: 60_000, refundedAmountCents: 15_000 },
    });
    // The rest can be refunded, no more.
    expect(
      await after.refund({
        reference: 'rf_Over',
        transactionId: found.value.transactionId,
        amountCents: 45_001,
      }),
    ).toMatchObject({ ok: false, code: 'refund_amount_exceeds_captured' });
    expect(
      await after.refund({
        reference: 'rf_Rest',
        transactionId: found.value.transactionId,
        amountCents: 45_000,
      }),
    ).toMatchObject({ ok: true, value: { status: 'succeeded' } });
    expect(await after.getAuthorization('ch_Crash')).toMatchObject({
      ok: true,
      value: { status: 'captured', refundedAmountCents: 60_000 },
    });
  });

  it("tells a refund whose answer was lost from one never applied, by the sale's refunded sum, when the caller gives the settled sum", async () => {
    // Proves the recovery of issue 23 item 5: with the lookup, an applied refund reads succeeded and an unapplied
    // one not_found (safe to resend); without it, or with the sum in doubt, the answer stays "unknown".
    const adapter = new CieloAdapter({ config: config({ timeoutMs: SHORT_TIMEOUT_MS }) });
    const card = await stored(adapter);
    const sale = await adapter.authorize({
      reference: 'ch_RefundLost',
      cardRef: card.cardRef,
      amountCents: 10_000,
      installments: 1,
      capture: true,
      securityCode: CVV,
    });
    if (!sale.ok) throw new Error('sale failed');
    const transactionId = sale.value.transactionId;
    const lookup = { transactionId, chargeReference: 'ch_RefundLost' };
    expect(
      await adapter.refund({ reference: 'rf_First', transactionId, amountCents: 2_000 }),
    ).toMatchObject({ ok: true, value: { status: 'succeeded' } });

    // Never applied: the sale's refunded sum is the settled 2,000 alone.
    expect(
      await adapter.getRefund('rf_Unsent', {
        ...lookup,
        amountCents: 3_000,
        settledRefundedCents: 2_000,
      }),
    ).toMatchObject({ ok: false, kind: 'not_found' });
    // Applied, answer lost: the sum is the settled 2,000 plus this 3,000.
    fake.failNext('PUT', `/1/sales/${transactionId}/void`, { kind: 'lose-answer' });
    expect(
      await adapter.refund({ reference: 'rf_Lost', transactionId, amountCents: 3_000 }),
    ).toMatchObject({ ok: false, kind: 'timeout' });
    expect(
      await adapter.getRefund('rf_Lost', {
        ...lookup,
        amountCents: 3_000,
        settledRefundedCents: 2_000,
      }),
    ).toMatchObject({
      ok: true,
      value: {
        reference: 'rf_Lost',
        transactionId,
        status: 'succeeded',
        amountCents: 3_000,
        failureReason: null,
      },
    });
    // In doubt (another amount, or no settled sum given): unknown, never not_found.
    expect(
      await adapter.getRefund('rf_Lost', {
        ...lookup,
        amountCents: 1_000,
        settledRefundedCents: 2_000,
      }),
    ).toMatchObject({ ok: false, kind: 'timeout' });
    expect(await adapter.getRefund('rf_Lost', lookup)).toMatchObject({
      ok: false,
      kind: 'timeout',
    });
  });

  it('sends the PAN and the CVV to Cielo only: never in a result, an error or a log line, and never the MerchantKey', async () => {
    // Proves the card data leaves once, to the right place, and every other way out stays clean, failures included.
    const { lines, log } = logSink();
    const adapter = new CieloAdapter({ config: config({ timeoutMs: SHORT_TIMEOUT_MS }), log });
    const outcomes: unknown[] = [];
    const card = await adapter.storeCard({
      reference: 'tok_leak',
      number: PAN_APPROVED,
      expMonth: 8,
      expYear: 2031,
      holderName: 'Maria Souza',
    });
    outcomes.push(card);
    if (!card.ok) throw new Error('storeCard failed');
    const sell = (reference: string) =>
      adapter.authorize({
        reference,
        cardRef: card.value.cardRef,
        amountCents: 900,
        installments: 1,
        capture: true,
        securityCode: CVV,
      });
    outcomes.push(await sell('ch_L1'));
    // Cielo echoing the card number in an error message: it is masked before it reaches a message.
    fake.failNext('POST', '/1/card/', {
      kind: 'status',
      status: 400,
      body: [{ Code: 213, Message: `Credit Card Number is invalid: ${PAN_DECLINED}` }],
    });
    outcomes.push(
      await adapter.storeCard({
        reference: 'tok_leak2',
        number: PAN_DECLINED,
        expMonth: 8,
        expYear: 2031,
        holderName: 'Maria Souza',
      }),
    );
    fake.failNext('POST', '/1/card/', { kind: 'lose-answer' });
    outcomes.push(
      await adapter.storeCard({
        reference: 'tok_leak3',
        number: PAN_APPROVED,
        expMonth: 8,
        expYear: 2031,
        holderName: 'Maria Souza',
      }),
    );
    fake.failNext('POST', '/1/sales/', { kind: 'status', status: 500 });
    outcomes.push(await sell('ch_L2'));
    fake.failNext('POST', '/1/sales/', {
      kind: 'status',
      status: 400,
      body: [{ Code: 146, Message: 'SecurityCode length exceeded' }],
    });
    outcomes.push(await sell('ch_L3'));
    outcomes.push(await adapter.getAuthorization('ch_L1'));

    expect(outcomes).toContainEqual(
      expect.objectContaining({
        ok: false,
        kind: 'rejected',
        code: 'card_number_invalid',
        message: 'Cielo error 213: Credit Card Number is invalid: [masked]',
      }),
    );
    expect(lines.length).toBeGreaterThan(0);
    const everythingOut = [
      JSON.stringify(outcomes),
      inspect(outcomes, { depth: 10 }),
      ...lines,
      inspect(adapter, { depth: 10 }),
      JSON.stringify(config()),
    ].join('\n');
    for (const secret of [PAN_APPROVED, PAN_DECLINED, CVV, MERCHANT_KEY])
      expect(everythingOut).not.toContain(secret);
    // …and they did reach Cielo: the PAN in the card store requests only, the CVV in the sales only.
    expect(fake.requests.filter((r) => r.body.includes(PAN_APPROVED)).map((r) => r.path)).toEqual([
      '/1/card/',
      '/1/card/',
    ]);
    expect(
      fake.requests
        .filter((r) => r.body.includes(`"SecurityCode":"${CVV}"`))
        .every((r) => r.path === '/1/sales/'),
    ).toBe(true);
    expect(fake.requests.filter((r) => r.body.includes(`"SecurityCode":"${CVV}"`))).toHaveLength(3);
  });

  it('refuses, before sending anything, what Cielo could not take', async () => {
    // Proves input checks answer as rejections with our codes and leave Cielo untouched.
    const adapter = new CieloAdapter({ config: config() });
    expect(
      await adapter.storeCard({
        reference: 'tok_u',
        number: '9999999999999995',
        expMonth: 1,
        expYear: 2030,
        holderName: 'A',
      }),
    ).toMatchObject({ code: 'card_number_invalid' });
    expect(
      await adapter.authorize({
        reference: 'ch_x',
        cardRef: 'card_sim123',
        amountCents: 1,
        installments: 1,
        capture: true,
      }),
    ).toMatchObject({ code: 'card_not_found' });
    const cardRef = 'Visa:3f0c2a9e-6b41-4d7a-9c55-0e8f1b2d4a61';
    expect(
      await adapter.authorize({
        reference: 'ch_x',
        cardRef,
        amountCents: 1,
        installments: 25,
        capture: true,
      }),
    ).toMatchObject({ code: 'invalid_request' });
    expect(
      await adapter.authorize({
        reference: `ch_${'a'.repeat(40)}`,
        cardRef,
        amountCents: 1,
        installments: 1,
        capture: true,
      }),
    ).toMatchObject({ code: 'invalid_request' });
    expect(await adapter.getAuthorization(`ch_${'a'.repeat(40)}`)).toMatchObject({
      ok: false,
      kind: 'not_found',
    });
    expect(fake.requests).toEqual([]);
  });
});

describe('Cielo request shapes', () => {
  it('accept the manual’s request examples and refuse one without its required fields', () => {
    // Proves the fake's request checks are the manual's, not the adapter's: they accept the documented examples.
    const ajv = new Ajv({ strict: false });
    expect(ajv.validate(CieloCardRequest, cardStoreRequest)).toBe(true);
    expect(ajv.validate(CieloSaleRequest, saleRequest)).toBe(true);
    const { Installments: _dropped, ...payment } = saleRequest.Payment;
    expect(ajv.validate(CieloSaleRequest, { ...saleRequest, Payment: payment })).toBe(false);
    expect(ajv.validate(CieloSaleRequest, { ...saleRequest, MerchantOrderId: 'ch_1' })).toBe(false);
  });
});

describe('Cielo dates and texts', () => {
  it('reads São Paulo local dates as instants, with or without a fraction', () => {
    // Proves the manual's two date formats land on the right UTC instant.
    expect(cieloInstant('2022-07-29 17:16:21')).toBe('2022-07-29T20:16:21.000Z');
    expect(cieloInstant('2015-04-06T10:13:39.42')).toBe('2015-04-06T13:13:39.420Z');
    expect(cieloInstant('yesterday')).toBeNull();
  });

  it('masks card-number-like runs in text from Cielo', () => {
    // Proves a PAN, spaced or not, never rides along in a message.
    expect(safeText('card 4024 0071 5376 3190 refused')).toBe('card [masked] refused');
    expect(safeText('order 2014111701 refused')).toBe('order 2014111701 refused');
  });
});

describe('cieloConfigFromEnv', () => {
  const env = { CIELO_MERCHANT_ID: MERCHANT_ID, CIELO_MERCHANT_KEY: MERCHANT_KEY };

  it('reads the merchant and picks both hosts from the environment, without ever printing the key', () => {
    // Proves a config can be logged whole: the key prints as [redacted] through JSON and inspect.
    const sandbox = cieloConfigFromEnv({ ...env, CIELO_ENVIRONMENT: 'sandbox' });
    expect(sandbox).toMatchObject({
      merchantId: MERCHANT_ID,
      apiUrl: 'https://apisandbox.cieloecommerce.cielo.com.br',
      queryUrl: 'https://apiquerysandbox.cieloecommerce.cielo.com.br',
      timeoutMs: 15_000,
      queryTimeoutMs: 5_000,
    });
    expect(sandbox.merchantKey.expose()).toBe(MERCHANT_KEY);
    expect(
      `${JSON.stringify(sandbox)} ${inspect(sandbox)} ${String(sandbox.merchantKey)}`,
    ).not.toContain(MERCHANT_KEY);
    const local = cieloConfigFromEnv({
      ...env,
      CIELO_API_URL: 'http://127.0.0.1:1/',
      CIELO_QUERY_URL: 'http://127.0.0.1:2',
      CIELO_TIMEOUT_MS: '900',
      CIELO_SOFT_DESCRIPTOR: 'LOJA1',
    });
    expect(local).toMatchObject({
      apiUrl: 'http://127.0.0.1:1',
      queryUrl: 'http://127.0.0.1:2',
      timeoutMs: 900,
      softDescriptor: 'LOJA1',
    });
  });

  it('refuses to start without the key, the hosts, or with a malformed value', () => {
    // Proves no default stands in for a secret or for where live money goes.
    expect(() =>
      cieloConfigFromEnv({ CIELO_MERCHANT_ID: MERCHANT_ID, CIELO_ENVIRONMENT: 'sandbox' }),
    ).toThrow(/CIELO_MERCHANT_KEY/);
    expect(() => cieloConfigFromEnv(env)).toThrow(/CIELO_API_URL/);
    expect(() => cieloConfigFromEnv({ ...env, CIELO_ENVIRONMENT: 'prod' })).toThrow(
      /CIELO_ENVIRONMENT/,
    );
    expect(() =>
      cieloConfigFromEnv({ ...env, CIELO_MERCHANT_ID: '123', CIELO_ENVIRONMENT: 'sandbox' }),
    ).toThrow(/GUID/);
    expect(() =>
      cieloConfigFromEnv({ ...env, CIELO_ENVIRONMENT: 'sandbox', CIELO_TIMEOUT_MS: '0' }),
    ).toThrow(/CIELO_TIMEOUT_MS/);
    expect(() =>
      cieloConfigFromEnv({
        ...env,
        CIELO_ENVIRONMENT: 'sandbox',
        CIELO_SOFT_DESCRIPTOR: 'Loja Exemplo!',
      }),
    ).toThrow(/SOFT_DESCRIPTOR/);
  });

  it('reads the key from the file CIELO_MERCHANT_KEY_FILE names, as a deployment mounts it, and refuses both forms at once', () => {
    // Proves the MerchantKey need not sit in the environment: the file's content (its final newline dropped) is the key, and a missing, empty or doubled setting is refused by name, never by value.
    const dir = mkdtempSync(join(tmpdir(), 'cielo-key-'));
    try {
      const file = join(dir, 'merchant-key');
      writeFileSync(file, `${MERCHANT_KEY}\n`);
      const base = { CIELO_MERCHANT_ID: MERCHANT_ID, CIELO_ENVIRONMENT: 'sandbox' };
      const config = cieloConfigFromEnv({ ...base, CIELO_MERCHANT_KEY_FILE: file });
      expect(config.merchantKey.expose()).toBe(MERCHANT_KEY);
      expect(`${JSON.stringify(config)} ${inspect(config)}`).not.toContain(MERCHANT_KEY);

      expect(() =>
        cieloConfigFromEnv({
          ...base,
          CIELO_MERCHANT_KEY_FILE: file,
          CIELO_MERCHANT_KEY: MERCHANT_KEY,
        }),
      ).toThrow(/exactly one of CIELO_MERCHANT_KEY_FILE and CIELO_MERCHANT_KEY/);
      expect(() =>
        cieloConfigFromEnv({ ...base, CIELO_MERCHANT_KEY_FILE: join(dir, 'missing') }),
      ).toThrow(/CIELO_MERCHANT_KEY_FILE: cannot read .*missing \(ENOENT\)/);
      writeFileSync(file, '\n');
      expect(() => cieloConfigFromEnv({ ...base, CIELO_MERCHANT_KEY_FILE: file })).toThrow(
        /CIELO_MERCHANT_KEY_FILE names an empty file/,
      );
      writeFileSync(file, 'short');
      let message = '';
      try {
        cieloConfigFromEnv({ ...base, CIELO_MERCHANT_KEY_FILE: file });
      } catch (error) {
        message = String(error);
      }
      expect(message).toMatch(
        /CIELO_MERCHANT_KEY_FILE: the secret must have at least 16 characters/,
      );
      expect(message).not.toContain('short');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
