import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CieloAdapter, cieloConfigFromEnv, credentialsEnv } from '@pgw/acquirer';
import { CNAB240_TEST_PROFILE as PROFILE, FakeCielo, writeReturnFile } from '@pgw/acquirer/testing';
import { newId } from '@pgw/domain';
import { createPgliteKnex } from '@pgw/platform-db';
import {
  asOperator,
  buyer,
  cardCharge,
  get,
  merchant,
  post,
  runJob,
  startCharges,
  type Harness,
} from '../testing/harness';
import { bankAccountEnv } from '../testing/live-rail-env';

// A tenant switches its rails while charges are in flight: every follow-up of a charge (capture, refund,
// look-ups, the boleto file exchange) goes to the rail that served it, not to the one the tenant has now;
// and a stored card is charged at the card store that holds it.

const knex = createPgliteKnex(null);
const dir = mkdtempSync(join(tmpdir(), 'charges-rail-switch-'));
const KEY_A = 'KEYFORTHEFAKEONLYAAAAAAAAAAAAAAAAAAAAAAA';
const KEY_B = 'KEYFORTHEFAKEONLYBBBBBBBBBBBBBBBBBBBBBBB';
const cieloA = new FakeCielo('11111111-1111-4111-8111-111111111111', KEY_A);
const cieloB = new FakeCielo('22222222-2222-4222-8222-222222222222', KEY_B);
let env: NodeJS.ProcessEnv;
let h: Harness;

/** One Banco do Brasil account under a credentials name, with its own state file and folders. */
const bankAccount = (name: string): NodeJS.ProcessEnv =>
  bankAccountEnv(name, {
    STATE_FILE: join(dir, name, 'state.json'),
    OUTBOX_DIR: join(dir, name, 'to-bank'),
    INBOX_DIR: join(dir, name, 'from-bank'),
  });

beforeAll(async () => {
  await cieloA.start();
  await cieloB.start();
  env = {
    LIVE_RAIL_CARDS_A_CIELO_MERCHANT_ID: cieloA.merchantId,
    LIVE_RAIL_CARDS_A_CIELO_MERCHANT_KEY: KEY_A,
    LIVE_RAIL_CARDS_A_CIELO_API_URL: cieloA.apiUrl,
    LIVE_RAIL_CARDS_A_CIELO_QUERY_URL: cieloA.queryUrl,
    LIVE_RAIL_CARDS_B_CIELO_MERCHANT_ID: cieloB.merchantId,
    LIVE_RAIL_CARDS_B_CIELO_MERCHANT_KEY: KEY_B,
    LIVE_RAIL_CARDS_B_CIELO_API_URL: cieloB.apiUrl,
    LIVE_RAIL_CARDS_B_CIELO_QUERY_URL: cieloB.queryUrl,
    ...bankAccount('bb_a'),
    ...bankAccount('bb_b'),
  };
  h = await startCharges(knex, { env });
});
afterAll(async () => {
  await h.stop();
  await knex.destroy();
  await cieloA.close();
  await cieloB.close();
  rmSync(dir, { recursive: true, force: true });
});

const setRails = async (tenantId: string, rails: unknown): Promise<void> => {
  const res = await h.app.inject({
    method: 'PUT',
    url: `/admin/v1/tenants/${tenantId}/live-rails`,
    headers: asOperator(),
    payload: rails as object,
  });
  expect(res.statusCode).toBe(200);
};

/** Paths of the sales API a fake Cielo was sent (the card store's and the query host's left out). */
const salePaths = (fake: FakeCielo): string[] =>
  fake.requests
    .filter((r) => r.host === 'api' && r.path.startsWith('/1/sales'))
    .map((r) => `${r.method} ${r.path}`);

describe('a charge after its tenant switched rails', () => {
  it('Proves a held live card charge made on Cielo account A is captured and refunded at A after the tenant moved its card rail to account B', async () => {
    const live = await merchant(h, { livemode: true });
    await setRails(live.tenantId, {
      card: { provider: 'cielo', credentials: 'cards-a' },
      pix: null,
      boleto: null,
    });
    // The card was stored in account A's card store, as the vault would have done while A was the rail.
    const stored = await new CieloAdapter({
      config: cieloConfigFromEnv(credentialsEnv(env, 'cards-a')),
    }).storeCard({
      reference: 'tok_switch',
      number: '4111111111111111',
      expMonth: 12,
      expYear: 2031,
      holderName: 'ANA SOUZA',
    });
    if (!stored.ok) throw new Error(stored.message);
    const token = newId('tok_');
    h.vault.tokens.set(token, {
      tenantId: live.tenantId,
      livemode: true,
      sellerId: live.sellerId,
      cardRef: stored.value.cardRef,
      last4: '1111',
      cardRail: 'cielo:cards-a',
    });

    const held = await post(
      h,
      '/api/v1/charges',
      { ...live.key, 'idempotency-key': 'switch-held' },
      cardCharge(token, { amount: 20_000, capture_method: 'manual' }),
    );
    expect(held.statusCode).toBe(201);
    expect(held.json()).toMatchObject({ status: 'authorized', acquirer_code: 'cielo' });
    const id: string = held.json().id;
    const paymentId: string = held.json().acquirer_transaction_id;
    expect(await h.db.read((q) => q('charges').where({ id }).first('acquirer_rail'))).toEqual({
      acquirer_rail: 'cielo:cards-a',
    });

    await setRails(live.tenantId, {
      card: { provider: 'cielo', credentials: 'cards-b' },
      pix: null,
      boleto: null,
    });
    const captured = await post(h, `/api/v1/charges/${id}/capture`, live.key);
    expect([captured.statusCode, captured.json().status]).toEqual([200, 'paid']);
    const refund = await post(
      h,
      `/api/v1/charges/${id}/refund`,
      { ...live.key, 'idempotency-key': 'switch-refund' },
      { amount_cents: 5_000 },
    );
    expect([refund.statusCode, refund.json().status]).toEqual([201, 'succeeded']);
    expect((await get(h, `/api/v1/charges/${id}`, live.key)).json()).toMatchObject({
      status: 'partially_refunded',
    });

    expect(salePaths(cieloA)).toEqual([
      'POST /1/sales/',
      `PUT /1/sales/${paymentId}/capture`,
      `PUT /1/sales/${paymentId}/void?amount=5000`,
    ]);
    expect(cieloB.requests).toEqual([]);

    // A new charge of the card stored at A is still made at A, whose card store holds it: B would not know its CardToken.
    const later = await post(
      h,
      '/api/v1/charges',
      { ...live.key, 'idempotency-key': 'switch-later' },
      cardCharge(token, { amount: 1_000 }),
    );
    expect([later.statusCode, later.json().status]).toEqual([201, 'paid']);
    expect(
      await h.db.read((q) => q('charges').where({ id: later.json().id }).first('acquirer_rail')),
    ).toEqual({ acquirer_rail: 'cielo:cards-a' });
    expect(salePaths(cieloA)).toHaveLength(4);
    expect(cieloB.requests).toEqual([]);

    // A card stored at B after the switch is charged at B.
    const storedAtB = await new CieloAdapter({
      config: cieloConfigFromEnv(credentialsEnv(env, 'cards-b')),
    }).storeCard({
      reference: 'tok_switch_b',
      number: '5555555555554444',
      expMonth: 12,
      expYear: 2031,
      holderName: 'ANA SOUZA',
    });
    if (!storedAtB.ok) throw new Error(storedAtB.message);
    const tokenB = newId('tok_');
    h.vault.tokens.set(tokenB, {
      tenantId: live.tenantId,
      livemode: true,
      sellerId: live.sellerId,
      cardRef: storedAtB.value.cardRef,
      last4: '4444',
      cardRail: 'cielo:cards-b',
    });
    const atB = await post(
      h,
      '/api/v1/charges',
      { ...live.key, 'idempotency-key': 'switch-at-b' },
      cardCharge(tokenB, { amount: 1_500 }),
    );
    expect([atB.statusCode, atB.json().status]).toEqual([201, 'paid']);
    expect(
      await h.db.read((q) => q('charges').where({ id: atB.json().id }).first('acquirer_rail')),
    ).toEqual({ acquirer_rail: 'cielo:cards-b' });
    expect(salePaths(cieloB)).toEqual(['POST /1/sales/']);
  });

  it('Proves a live card stored on an acquirer account the deployment no longer holds credentials for is refused with 422 parameter_invalid on card_token, and no acquirer is sent anything', async () => {
    const live = await merchant(h, { livemode: true });
    await setRails(live.tenantId, {
      card: { provider: 'cielo', credentials: 'cards-b' },
      pix: null,
      boleto: null,
    });
    const token = newId('tok_');
    // Stored while the tenant's card rail was an account whose LIVE_RAIL_CARDS_GONE_* variables have since been removed.
    h.vault.tokens.set(token, {
      tenantId: live.tenantId,
      livemode: true,
      sellerId: live.sellerId,
      cardRef: '33333333-3333-4333-8333-333333333333',
      last4: '1111',
      cardRail: 'cielo:cards-gone',
    });
    const beforeA = cieloA.requests.length;
    const beforeB = cieloB.requests.length;
    const charges = async () =>
      (
        await h.db.read((q) =>
          q('charges')
            .where({ tenant_id: live.tenantId })
            .count<{ count: string | number }[]>('* as count'),
        )
      )[0]?.count;
    const before = await charges();

    const res = await post(
      h,
      '/api/v1/charges',
      { ...live.key, 'idempotency-key': 'gone-rail' },
      cardCharge(token, { amount: 1_000 }),
    );
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({
      error: {
        type: 'invalid_request_error',
        code: 'parameter_invalid',
        message: expect.stringMatching(
          /^card_token: the card was stored with a card acquirer account that is no longer configured/,
        ),
        param: 'card_token',
      },
      request_id: expect.any(String),
    });
    expect(res.json().error.message).not.toMatch(/cards-gone|LIVE_RAIL/i);
    expect([cieloA.requests.length, cieloB.requests.length]).toEqual([beforeA, beforeB]);
    expect(await charges()).toEqual(before);

    // A token made before the vault recorded rails follows the tenant's card rail now, as before.
    const legacy = newId('tok_');
    const storedAtB = await new CieloAdapter({
      config: cieloConfigFromEnv(credentialsEnv(env, 'cards-b')),
    }).storeCard({
      reference: 'tok_legacy_b',
      number: '4111111111111111',
      expMonth: 12,
      expYear: 2031,
      holderName: 'ANA SOUZA',
    });
    if (!storedAtB.ok) throw new Error(storedAtB.message);
    h.vault.tokens.set(legacy, {
      tenantId: live.tenantId,
      livemode: true,
      sellerId: live.sellerId,
      cardRef: storedAtB.value.cardRef,
      last4: '1111',
    });
    const old = await post(
      h,
      '/api/v1/charges',
      { ...live.key, 'idempotency-key': 'legacy-token' },
      cardCharge(legacy, { amount: 1_000 }),
    );
    expect(old.statusCode).toBe(201);
    expect(
      await h.db.read((q) => q('charges').where({ id: old.json().id }).first('acquirer_rail')),
    ).toEqual({ acquirer_rail: 'cielo:cards-b' });
  });

  it("Proves a live boleto registered on bank account A goes out in A's remittance and is paid by A's return file after the tenant moved its boleto rail to account B", async () => {
    const live = await merchant(h, { livemode: true });
    await setRails(live.tenantId, {
      card: null,
      pix: null,
      boleto: { provider: 'cnab240-bb', credentials: 'bb_a' },
    });
    const slip = await post(
      h,
      '/api/v1/charges',
      { ...live.key, 'idempotency-key': 'switch-boleto' },
      { amount: 7_000, payment_method: 'BOLETO', buyer: buyer() },
    );
    expect(slip.statusCode).toBe(201);
    const { id, boleto } = slip.json();
    expect(await h.db.read((q) => q('charges').where({ id }).first('acquirer_rail'))).toEqual({
      acquirer_rail: 'cnab240-bb:bb_a',
    });

    await setRails(live.tenantId, {
      card: null,
      pix: null,
      boleto: { provider: 'cnab240-bb', credentials: 'bb_b' },
    });
    await runJob(h, 'boleto-exchange');
    expect(
      readdirSync(join(dir, 'bb_a', 'to-bank')).filter((f) => !f.startsWith('.')),
    ).toHaveLength(1);

    // Account A's bank liquidates the slip; the tenant no longer names A, and the job still reads A's files.
    const nossoNumero = boleto.barcode.slice(25, 42);
    writeFileSync(
      join(dir, 'bb_a', 'from-bank', 'RET00001.RET'),
      writeReturnFile(PROFILE, 1, [
        {
          code: '06',
          nossoNumero,
          amountCents: 7_000,
          dueDate: boleto.due_date,
          paidCents: 7_000,
          netCreditCents: 6_800,
        },
      ]),
    );
    expect((await runJob(h, 'boleto-exchange')).processed).toBe(1);
    expect((await get(h, `/api/v1/charges/${id}`, live.key)).json()).toMatchObject({
      status: 'paid',
    });
  });
});
