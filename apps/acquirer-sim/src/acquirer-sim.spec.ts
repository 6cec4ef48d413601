import { SimAcquirer, type AcquirerResult } from '@pgw/acquirer';
import { InProcessBus } from '@pgw/platform-bus';
import { createPgliteKnex, sharedDb } from '@pgw/platform-db';
import {
  barcodeFromDigitableLine,
  dueDateFactor,
  isValidBarcode,
  isValidDigitableLine,
  readBarcode,
  verifyBrCode,
} from '@pgw/domain';
import { TestPrincipals } from '@pgw/platform-http';
import {
  HttpPeers,
  InjectPeers,
  ManualClock,
  startService,
  type RunningService,
} from '@pgw/platform-service';
import { acquirerSimService } from './service';
import { REFUND_DECLINED_CARD, simMigrations } from '@pgw/acquirer-simulator';

/** The specs play the gateway: principals are signed with this pair for each request; the simulator holds the public key. */
const PRINCIPALS = new TestPrincipals();

const knex = createPgliteKnex(null);
const db = sharedDb(knex, 'acquirer_sim');
const clock = new ManualClock(new Date('2026-03-01T12:00:00Z'));
const TIMEOUT_DELAY_MS = 1_500;
let service: RunningService;
let peers: InjectPeers;
let acquirer: SimAcquirer;

async function start(env: NodeJS.ProcessEnv = {}): Promise<RunningService> {
  const running = await startService(acquirerSimService, {
    db,
    bus: new InProcessBus(),
    clock,
    principalPublicKey: PRINCIPALS.publicKey,
    peers: new InjectPeers(),
    env: { ACQUIRER_SIM_TIMEOUT_DELAY_MS: String(TIMEOUT_DELAY_MS), ...env },
    log: { level: 'warn' },
  });
  PRINCIPALS.bind(running.app);
  return running;
}

beforeAll(async () => {
  service = await start();
  peers = new InjectPeers();
  peers.register('acquirer-sim', service.app);
  acquirer = new SimAcquirer({ peers, timeoutMs: 1_000 });
});

afterAll(async () => {
  await service.stop();
  await knex.destroy();
});

let seq = 0;
const ref = (what: string) => `${what}_${++seq}_${Date.now()}`;

function value<T>(result: AcquirerResult<T>): T {
  if (!result.ok) throw new Error(`expected ok, got ${JSON.stringify(result)}`);
  return result.value;
}

async function card(number: string): Promise<string> {
  return value(
    await acquirer.storeCard({
      reference: ref('card'),
      number,
      expMonth: 12,
      expYear: 2030,
      holderName: 'ANA SILVA',
    }),
  ).cardRef;
}

const operator = () =>
  PRINCIPALS.header({ kind: 'operator', requestId: 'req_x', expiresAtMs: Date.now() + 60_000 });

async function setMode(
  mode: 'normal' | 'unavailable' | 'timeout',
  app = service.app,
): Promise<void> {
  const res = await app.inject({
    method: 'POST',
    url: '/admin/v1/simulations/provider',
    headers: { 'x-gateway-principal': operator() },
    payload: { mode },
  });
  expect(res.statusCode).toBe(200);
  expect(res.json()).toMatchObject({ object: 'provider_simulation', mode });
}

describe('the acquirer simulator: test cards (contract §6)', () => {
  it('gives each test card its brand and its authorization outcome, and approves any other Luhn-valid number', async () => {
    const cases: Array<[string, string, Record<string, unknown>]> = [
      ['4111111111111111', 'visa', { status: 'captured', refusedReason: null, returnCode: '00' }],
      [
        '5555555555554444',
        'mastercard',
        { status: 'captured', refusedReason: null, returnCode: '00' },
      ],
      ['378282246310005', 'amex', { status: 'captured', refusedReason: null, returnCode: '00' }],
      [
        '4000000000000002',
        'visa',
        {
          status: 'refused',
          refusedReason: 'card_declined',
          returnCode: '05',
          authorizationCode: null,
        },
      ],
      [
        '4000000000009995',
        'visa',
        {
          status: 'refused',
          refusedReason: 'insufficient_funds',
          returnCode: '51',
          authorizationCode: null,
        },
      ],
      [
        '4000000000000069',
        'visa',
        {
          status: 'refused',
          refusedReason: 'expired_card',
          returnCode: '54',
          authorizationCode: null,
        },
      ],
      [
        '4000000000000119',
        'visa',
        {
          status: 'failed',
          refusedReason: 'processing_error',
          authorizationCode: null,
          capturedAmountCents: 0,
        },
      ],
      ['6362970000457013', 'elo', { status: 'captured', refusedReason: null, returnCode: '00' }],
    ];
    for (const [number, brand, expected] of cases) {
      const stored = value(
        await acquirer.storeCard({
          reference: ref('card'),
          number,
          expMonth: 1,
          expYear: 2031,
          holderName: 'ANA',
        }),
      );
      expect([number, stored.brand, stored.last4]).toEqual([number, brand, number.slice(-4)]);
      const auth = value(
        await acquirer.authorize({
          reference: ref('auth'),
          cardRef: stored.cardRef,
          amountCents: 1000,
          installments: 1,
          capture: true,
        }),
      );
      expect([number, auth]).toEqual([number, expect.objectContaining(expected)]);
      if (auth.status === 'captured') expect(auth.authorizationCode).toMatch(/^[A-Z0-9]{6}$/);
    }
  });

  it('refuses a Luhn-invalid number at the card store', async () => {
    const result = await acquirer.storeCard({
      reference: ref('card'),
      number: '4111111111111112',
      expMonth: 1,
      expYear: 2031,
      holderName: 'ANA',
    });
    expect(result).toMatchObject({ ok: false, kind: 'rejected', code: 'card_number_invalid' });
  });

  it('does not keep the security code: it is accepted with the sale and found in no column afterwards', async () => {
    const cardRef = await card('4111111111111111');
    const reference = ref('auth');
    value(
      await acquirer.authorize({
        reference,
        cardRef,
        amountCents: 777,
        installments: 1,
        capture: false,
        securityCode: '9183',
      }),
    );
    const row = await db.read((q) => q('authorizations').where({ reference }).first());
    expect(JSON.stringify(row)).not.toContain('9183');
  });
});

describe('the acquirer simulator keeps no PAN (contract §6)', () => {
  // Proves the card store keeps a fingerprint, last4, brand, expiry and profile, and the number in no row of any table.
  it('stores each test card without its number, and still answers its outcome from what it kept', async () => {
    const numbers = ['4111111111111111', '4000000000009995', REFUND_DECLINED_CARD];
    for (const number of numbers) await card(number);
    const tables = await db.read((q) =>
      q.raw<{ rows: { table_name: string }[] }>(
        `select table_name from information_schema.tables where table_schema = 'acquirer_sim'`,
      ),
    );
    expect(tables.rows.map((t) => t.table_name)).toEqual(
      expect.arrayContaining(['cards', 'authorizations', 'refunds']),
    );
    for (const { table_name } of tables.rows) {
      const rows = JSON.stringify(await db.read((q) => q(table_name).select('*')));
      for (const number of numbers)
        expect([table_name, rows.includes(number)]).toEqual([table_name, false]);
    }
    const kept = await db.read((q) => q('cards').where({ last4: '9995' }).first());
    expect(kept).toMatchObject({
      brand: 'visa',
      last4: '9995',
      profile: 'insufficient_funds',
      fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(kept).not.toHaveProperty('pan');
  });

  // Proves a database made before this rule loses its stored numbers and keeps every card's outcome.
  it('migrates cards stored with their number: profile and fingerprint derived, the column dropped', async () => {
    const oldKnex = createPgliteKnex(null);
    const oldDb = sharedDb(oldKnex, 'acquirer_sim');
    try {
      const [first, second] = simMigrations;
      await oldDb.tx((trx) => first!.up(trx));
      await oldDb.tx((trx) =>
        trx('cards').insert([
          {
            card_ref: 'card_a',
            reference: 'r_a',
            pan: '4000000000000002',
            brand: 'visa',
            last4: '0002',
            exp_month: 1,
            exp_year: 2031,
            holder_name: 'A',
            created_at: clock.now(),
          },
          {
            card_ref: 'card_b',
            reference: 'r_b',
            pan: REFUND_DECLINED_CARD,
            brand: 'visa',
            last4: '5126',
            exp_month: 1,
            exp_year: 2031,
            holder_name: 'B',
            created_at: clock.now(),
          },
        ]),
      );
      await oldDb.tx((trx) => second!.up(trx));
      const rows = await oldDb.read((q) => q('cards').orderBy('card_ref'));
      expect(rows.map((r: Record<string, unknown>) => [r.card_ref, r.profile, 'pan' in r])).toEqual(
        [
          ['card_a', 'card_declined', false],
          ['card_b', 'refund_declined', false],
        ],
      );
      expect(JSON.stringify(rows)).not.toContain('4000000000000002');
    } finally {
      await oldKnex.destroy();
    }
  });
});

describe('the acquirer simulator: idempotency by reference', () => {
  it('answers the same reference with the same authorization and authorizes only once, even concurrently', async () => {
    const cardRef = await card('4111111111111111');
    const reference = ref('auth');
    const input = { reference, cardRef, amountCents: 2500, installments: 3, capture: false };
    const results = await Promise.all([1, 2, 3, 4, 5].map(() => acquirer.authorize(input)));
    const ids = new Set(results.map((r) => value(r).transactionId));
    expect(ids.size).toBe(1);
    expect(value(await acquirer.authorize(input)).transactionId).toBe([...ids][0]);
    const rows = await db.read((q) => q('authorizations').where({ reference }));
    expect(rows).toHaveLength(1);
  });

  it('refuses the same reference with a different request (reference_reused) and changes nothing', async () => {
    const cardRef = await card('4111111111111111');
    const reference = ref('auth');
    const first = value(
      await acquirer.authorize({
        reference,
        cardRef,
        amountCents: 100,
        installments: 1,
        capture: true,
      }),
    );
    const other = await acquirer.authorize({
      reference,
      cardRef,
      amountCents: 101,
      installments: 1,
      capture: true,
    });
    expect(other).toMatchObject({ ok: false, kind: 'rejected', code: 'reference_reused' });
    expect(value(await acquirer.getAuthorization(reference))).toEqual(first);
    const cardReused = await acquirer.storeCard({
      reference: (await db.read((q) => q('cards').where({ card_ref: cardRef }).first())).reference,
      number: '5555555555554444',
      expMonth: 12,
      expYear: 2030,
      holderName: 'ANA SILVA',
    });
    expect(cardReused).toMatchObject({ ok: false, kind: 'rejected', code: 'reference_reused' });
  });

  it('stores a card once per reference', async () => {
    const reference = ref('card');
    const input = {
      reference,
      number: '5555555555554444',
      expMonth: 5,
      expYear: 2029,
      holderName: 'BIA',
    };
    const a = value(await acquirer.storeCard(input));
    const b = value(await acquirer.storeCard(input));
    expect(b).toEqual(a);
    expect(await db.read((q) => q('cards').where({ reference }))).toHaveLength(1);
  });

  it('refunds once per reference, so a retried refund never moves money twice', async () => {
    const cardRef = await card('4111111111111111');
    const auth = value(
      await acquirer.authorize({
        reference: ref('auth'),
        cardRef,
        amountCents: 1000,
        installments: 1,
        capture: true,
      }),
    );
    const input = { reference: ref('refund'), transactionId: auth.transactionId, amountCents: 600 };
    const a = value(await acquirer.refund(input));
    const b = value(await acquirer.refund(input));
    expect(b).toEqual(a);
    expect(a.status).toBe('succeeded');
    expect(value(await acquirer.getAuthorization(auth.reference)).refundedAmountCents).toBe(600);
    // 600 of 1000 refunded: 500 more is above what remains, 400 is exactly what remains.
    expect(
      await acquirer.refund({
        reference: ref('refund'),
        transactionId: auth.transactionId,
        amountCents: 500,
      }),
    ).toMatchObject({
      ok: false,
      kind: 'rejected',
      code: 'refund_amount_exceeds_captured',
    });
    expect(
      value(
        await acquirer.refund({
          reference: ref('refund'),
          transactionId: auth.transactionId,
          amountCents: 400,
        }),
      ).status,
    ).toBe('succeeded');
    expect(value(await acquirer.getRefund(input.reference))).toEqual(a);
    expect(await acquirer.getRefund('never-sent')).toMatchObject({ ok: false, kind: 'not_found' });
  });
});

describe('the acquirer simulator: capture, cancel, refund rules', () => {
  it('captures an authorization once, cancels only what is not captured, and refunds only what is captured', async () => {
    const cardRef = await card('4111111111111111');
    const held = value(
      await acquirer.authorize({
        reference: ref('auth'),
        cardRef,
        amountCents: 5000,
        installments: 2,
        capture: false,
      }),
    );
    expect(held).toMatchObject({ status: 'authorized', capturedAmountCents: 0, capturedAt: null });
    expect(
      await acquirer.refund({
        reference: ref('refund'),
        transactionId: held.transactionId,
        amountCents: 1,
      }),
    ).toMatchObject({ kind: 'rejected', code: 'not_refundable' });
    const captured = value(await acquirer.capture({ transactionId: held.transactionId }));
    expect(captured).toMatchObject({
      status: 'captured',
      capturedAmountCents: 5000,
      capturedAt: '2026-03-01T12:00:00.000Z',
    });
    expect(value(await acquirer.capture({ transactionId: held.transactionId }))).toEqual(captured);
    expect(await acquirer.cancel({ transactionId: held.transactionId })).toMatchObject({
      ok: false,
      kind: 'rejected',
      code: 'not_cancelable',
    });

    const other = value(
      await acquirer.authorize({
        reference: ref('auth'),
        cardRef,
        amountCents: 700,
        installments: 1,
        capture: false,
      }),
    );
    const canceled = value(await acquirer.cancel({ transactionId: other.transactionId }));
    expect(canceled.status).toBe('canceled');
    expect(value(await acquirer.cancel({ transactionId: other.transactionId }))).toEqual(canceled);
    expect(await acquirer.capture({ transactionId: other.transactionId })).toMatchObject({
      ok: false,
      kind: 'rejected',
      code: 'not_capturable',
    });
    expect(await acquirer.capture({ transactionId: 'txn_doesnotexist' })).toMatchObject({
      ok: false,
      kind: 'not_found',
    });
  });

  it('declines refunds of the refund-declined card with status failed, and counts nothing as refunded', async () => {
    const cardRef = await card(REFUND_DECLINED_CARD);
    const auth = value(
      await acquirer.authorize({
        reference: ref('auth'),
        cardRef,
        amountCents: 900,
        installments: 1,
        capture: true,
      }),
    );
    expect(auth.status).toBe('captured');
    const refund = value(
      await acquirer.refund({
        reference: ref('refund'),
        transactionId: auth.transactionId,
        amountCents: 900,
      }),
    );
    expect(refund).toMatchObject({ status: 'failed', failureReason: 'refund_declined' });
    expect(value(await acquirer.getAuthorization(auth.reference)).refundedAmountCents).toBe(0);
  });

  it('refuses an authorization on a card_ref it never issued', async () => {
    const result = await acquirer.authorize({
      reference: ref('auth'),
      cardRef: 'card_unknown',
      amountCents: 1,
      installments: 1,
      capture: true,
    });
    expect(result).toMatchObject({ ok: false, kind: 'rejected', code: 'card_not_found' });
  });
});

describe('the acquirer simulator: Pix PSP', () => {
  it('creates a charge with a valid BR Code and txid, pays it once, and refuses to expire a paid one', async () => {
    const reference = ref('pix');
    const pix = value(
      await acquirer.createPixCharge({ reference, amountCents: 4990, expiresInSeconds: 3600 }),
    );
    expect(pix).toMatchObject({
      status: 'active',
      amountCents: 4990,
      expiresAt: '2026-03-01T13:00:00.000Z',
      paidAt: null,
    });
    expect(pix.txid).toMatch(/^[A-Za-z0-9]{26,35}$/);
    const verified = verifyBrCode(pix.qrCode);
    expect(verified.ok).toBe(true);
    expect(pix.qrCode).toContain('540549.90');
    expect(pix.qrCode).toContain(pix.txid);
    expect(
      value(
        await acquirer.createPixCharge({ reference, amountCents: 4990, expiresInSeconds: 3600 }),
      ),
    ).toEqual(pix);
    const paid = value(await acquirer.payPix(reference));
    expect(paid).toMatchObject({ status: 'paid', paidAt: '2026-03-01T12:00:00.000Z' });
    expect(value(await acquirer.payPix(reference))).toEqual(paid);
    expect(await acquirer.expirePix(reference)).toMatchObject({
      ok: false,
      kind: 'rejected',
      code: 'pix_not_expirable',
    });
  });

  it('expires a charge on demand or when its time has passed, and refuses to pay an expired one', async () => {
    const onDemand = ref('pix');
    value(
      await acquirer.createPixCharge({
        reference: onDemand,
        amountCents: 100,
        expiresInSeconds: 600,
      }),
    );
    expect(value(await acquirer.expirePix(onDemand)).status).toBe('expired');
    expect(await acquirer.payPix(onDemand)).toMatchObject({
      ok: false,
      kind: 'rejected',
      code: 'pix_not_payable',
    });

    const onTime = ref('pix');
    value(
      await acquirer.createPixCharge({ reference: onTime, amountCents: 100, expiresInSeconds: 60 }),
    );
    clock.set(new Date('2026-03-01T12:01:00Z'));
    try {
      expect(value(await acquirer.getPixCharge(onTime)).status).toBe('expired');
      expect(await acquirer.payPix(onTime)).toMatchObject({
        ok: false,
        kind: 'rejected',
        code: 'pix_not_payable',
      });
    } finally {
      clock.set(new Date('2026-03-01T12:00:00Z'));
    }
  });
});

describe('the acquirer simulator: boleto bank', () => {
  it('registers a slip whose barcode and digitable line carry valid FEBRABAN check digits, the amount and the post-2025 factor', async () => {
    const reference = ref('boleto');
    const boleto = value(
      await acquirer.registerBoleto({ reference, amountCents: 123456, dueDate: '2026-03-10' }),
    );
    expect(boleto).toMatchObject({
      status: 'registered',
      dueDate: '2026-03-10',
      amountCents: 123456,
      paidAt: null,
    });
    expect(isValidBarcode(boleto.barcode)).toBe(true);
    expect(isValidDigitableLine(boleto.digitableLine)).toBe(true);
    expect(barcodeFromDigitableLine(boleto.digitableLine)).toBe(boleto.barcode);
    const parts = readBarcode(boleto.barcode);
    expect(parts).toMatchObject({
      bankCode: '237',
      currencyCode: '9',
      amountCents: 123456,
      dueDateFactor: dueDateFactor('2026-03-10'),
    });
    // 2025-02-22 restarted the factor at 1000: 2026-03-10 is 381 days later.
    expect(parts?.dueDateFactor).toBe(1381);
    expect(
      value(
        await acquirer.registerBoleto({ reference, amountCents: 123456, dueDate: '2026-03-10' }),
      ),
    ).toEqual(boleto);
    expect(
      await acquirer.registerBoleto({ reference, amountCents: 123457, dueDate: '2026-03-10' }),
    ).toMatchObject({ kind: 'rejected', code: 'reference_reused' });
    const paid = value(await acquirer.payBoleto(reference));
    expect(paid).toMatchObject({
      status: 'paid',
      paidAt: '2026-03-01T12:00:00.000Z',
      barcode: boleto.barcode,
    });
    expect(value(await acquirer.payBoleto(reference))).toEqual(paid);
    expect(value(await acquirer.getBoleto(reference))).toEqual(paid);
  });

  it('refuses a due date in the past', async () => {
    expect(
      await acquirer.registerBoleto({
        reference: ref('boleto'),
        amountCents: 100,
        dueDate: '2026-02-28',
      }),
    ).toMatchObject({
      ok: false,
      kind: 'rejected',
      code: 'boleto_due_date_invalid',
    });
  });
});

describe('the acquirer simulator: fault modes (contract §5)', () => {
  afterEach(async () => setMode('normal'));

  it('takes the mode only from the operator: no principal or an API key principal is 401', async () => {
    const none = await service.app.inject({
      method: 'POST',
      url: '/admin/v1/simulations/provider',
      payload: { mode: 'timeout' },
    });
    expect(none.statusCode).toBe(401);
    const apiKey = PRINCIPALS.header({
      kind: 'api_key',
      tenantId: 'ten_1',
      sellerId: null,
      keyId: 'key_1',
      permissions: [],
      livemode: false,
      requestId: 'req_x',
      expiresAtMs: Date.now() + 60_000,
    });
    const withKey = await service.app.inject({
      method: 'POST',
      url: '/admin/v1/simulations/provider',
      headers: { 'x-gateway-principal': apiKey },
      payload: { mode: 'timeout' },
    });
    expect(withKey.statusCode).toBe(401);
    const bad = await service.app.inject({
      method: 'POST',
      url: '/admin/v1/simulations/provider',
      headers: { 'x-gateway-principal': operator() },
      payload: { mode: 'slow' },
    });
    expect(bad.statusCode).toBe(422);
    const read = await service.app.inject({
      method: 'GET',
      url: '/admin/v1/simulations/provider',
      headers: { 'x-gateway-principal': operator() },
    });
    expect(read.json()).toMatchObject({ mode: 'normal' });
  });

  it('unavailable: answers 503 and does nothing, so the caller knows nothing happened', async () => {
    const cardRef = await card('4111111111111111');
    await setMode('unavailable');
    const reference = ref('auth');
    expect(
      await acquirer.authorize({
        reference,
        cardRef,
        amountCents: 100,
        installments: 1,
        capture: true,
      }),
    ).toMatchObject({ ok: false, kind: 'unavailable' });
    expect(
      await acquirer.storeCard({
        reference: ref('card'),
        number: '4111111111111111',
        expMonth: 1,
        expYear: 2030,
        holderName: 'ANA',
      }),
    ).toMatchObject({
      kind: 'unavailable',
    });
    const raw = await service.app.inject({
      method: 'POST',
      url: '/acquirer/v1/pix/charges',
      payload: { reference: ref('pix'), amount_cents: 100, expires_in: 60 },
    });
    expect(raw.statusCode).toBe(503);
    expect(await db.read((q) => q('authorizations').where({ reference }))).toHaveLength(0);
    await setMode('normal');
    expect(await acquirer.getAuthorization(reference)).toMatchObject({
      ok: false,
      kind: 'not_found',
    });
    expect(
      value(
        await acquirer.authorize({
          reference,
          cardRef,
          amountCents: 100,
          installments: 1,
          capture: true,
        }),
      ).status,
    ).toBe('captured');
  });

  it('timeout: applies the request, the HTTP client gives up at its deadline, and the lookup by reference reveals the outcome', async () => {
    const cardRef = await card('4111111111111111');
    const address = await service.app.listen({ port: 0, host: '127.0.0.1' });
    const overHttp = new SimAcquirer({
      peers: new HttpPeers({ 'acquirer-sim': address }),
      timeoutMs: 200,
    });
    await setMode('timeout');
    const reference = ref('auth');
    const startedMs = Date.now();
    const result = await overHttp.authorize({
      reference,
      cardRef,
      amountCents: 4321,
      installments: 1,
      capture: true,
    });
    expect(result).toMatchObject({ ok: false, kind: 'timeout' });
    expect(Date.now() - startedMs).toBeLessThan(TIMEOUT_DELAY_MS);
    // Applied although the caller could not know; the fault mode holds lookups too, until it is lifted.
    expect(await db.read((q) => q('authorizations').where({ reference }))).toHaveLength(1);
    expect(await overHttp.getAuthorization(reference)).toMatchObject({
      ok: false,
      kind: 'timeout',
    });
    await setMode('normal');
    const found = value(await overHttp.getAuthorization(reference));
    expect(found).toMatchObject({ status: 'captured', amountCents: 4321 });
    // The caller's retry with the same reference gets the same authorization: no second sale.
    expect(
      value(
        await overHttp.authorize({
          reference,
          cardRef,
          amountCents: 4321,
          installments: 1,
          capture: true,
        }),
      ).transactionId,
    ).toBe(found.transactionId);
  });

  it('timeout over the in-process peers too: the answer is held beyond the deadline', async () => {
    const cardRef = await card('5555555555554444');
    await setMode('timeout');
    const quick = new SimAcquirer({ peers, timeoutMs: 100 });
    const reference = ref('refundable');
    expect(
      await quick.authorize({
        reference,
        cardRef,
        amountCents: 50,
        installments: 1,
        capture: true,
      }),
    ).toMatchObject({ kind: 'timeout' });
    await setMode('normal');
    expect(value(await acquirer.getAuthorization(reference)).status).toBe('captured');
  });

  it('keeps its state and its mode across a restart', async () => {
    const cardRef = await card('4111111111111111');
    const reference = ref('auth');
    const before = value(
      await acquirer.authorize({
        reference,
        cardRef,
        amountCents: 300,
        installments: 1,
        capture: false,
      }),
    );
    await setMode('unavailable');
    await service.stop();
    service = await start();
    peers.register('acquirer-sim', service.app);
    expect(await acquirer.getAuthorization(reference)).toMatchObject({
      ok: false,
      kind: 'unavailable',
    });
    await setMode('normal');
    expect(value(await acquirer.getAuthorization(reference))).toEqual(before);
  });

  it('with a shared key configured, refuses callers without it', async () => {
    const keyed = await start({ ACQUIRER_SIM_KEY: 'sim-key-0123456789abcdef' });
    try {
      const keyedPeers = new InjectPeers();
      keyedPeers.register('acquirer-sim', keyed.app);
      const without = new SimAcquirer({ peers: keyedPeers });
      const withKey = new SimAcquirer({ peers: keyedPeers, key: 'sim-key-0123456789abcdef' });
      expect(await without.getBoleto('x')).toMatchObject({ ok: false, kind: 'unavailable' });
      expect(await withKey.getBoleto('x')).toMatchObject({ ok: false, kind: 'not_found' });
    } finally {
      await keyed.stop();
    }
  });
});
