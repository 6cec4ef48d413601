import fc from 'fast-check';
import { luhnCheckDigit } from '@pgw/domain';
import { createPgliteKnex } from '@pgw/platform-db';
import { vaultKeysForAllInOne } from '../config';
import { openDetails, type TokenRow } from '../data/token.repository';
import { newSeller, principal, startVault, validCard, type VaultHarness } from '../testing/harness';
import { METADATA_CHARS_MAX, METADATA_DEPTH_MAX } from './tokenize.route';

const knex = createPgliteKnex(null);
let h: VaultHarness;
let seller: { tenantId: string; sellerId: string };

beforeAll(async () => {
  h = await startVault(knex);
  seller = newSeller();
});

afterAll(async () => {
  await h.stop();
  await knex.destroy();
});

const withCheckDigit = (body: string) => body + luhnCheckDigit(body);

async function tokenize(
  payload: unknown,
  who: {
    tenantId: string;
    sellerId: string | null;
    livemode?: boolean;
    permissions?: string[];
  } = seller,
) {
  return h.vault.app.inject({
    method: 'POST',
    url: '/api/v1/payment-methods/tokenize',
    headers: { 'x-gateway-principal': principal(who) },
    payload: payload as object,
  });
}

const tokenCount = async () =>
  Number(
    (await h.db.read((q) => q('tokens').count<Array<{ count: string | number }>>('* as count')))[0]
      ?.count,
  );

describe('POST /api/v1/payment-methods/tokenize: accepted inputs', () => {
  it('accepts every rule of the api-v1 table at its edges and answers the token resource with no other field', async () => {
    const nineteen = withCheckDigit('4'.padEnd(18, '0'));
    const thirtyTwoChars = [...nineteen].map((d, i) => (i < 13 ? `${d}-` : d)).join('');
    expect(thirtyTwoChars).toHaveLength(32);
    const accepted: Array<[string, Record<string, unknown>]> = [
      ['the minimal body', { card: validCard() }],
      ['a number with hyphens', { card: validCard({ number: '4111-1111-1111-1111' }) }],
      [
        'a 12-character number of 12 digits',
        { card: validCard({ number: withCheckDigit('12345678901') }) },
      ],
      ['a 32-character number of 19 digits', { card: validCard({ number: thirtyTwoChars }) }],
      ['exp_month 1 and exp_year 2026', { card: validCard({ exp_month: 1, exp_year: 2026 }) }],
      ['exp_month 12 and exp_year 2100', { card: validCard({ exp_month: 12, exp_year: 2100 }) }],
      ['a 4-digit cvv', { card: validCard({ cvv: '1234' }) }],
      ['a 2-character holder_name', { card: validCard({ holder_name: 'Al' }) }],
      ['a 120-character holder_name', { card: validCard({ holder_name: 'A'.repeat(120) }) }],
      [
        'a billing_address with every field at its maximum length',
        {
          card: validCard(),
          billing_address: {
            country: 'BR',
            zip_code: '0'.repeat(20),
            state: 'S'.repeat(80),
            city: 'C'.repeat(120),
            line_1: 'L'.repeat(160),
            line_2: 'M'.repeat(160),
          },
        },
      ],
      ['an empty billing_address', { card: validCard(), billing_address: {} }],
      [
        'free-form metadata',
        { card: validCard(), metadata: { order: 'A-1', nested: { deep: [1, 2, { x: true }] } } },
      ],
    ];
    for (const [what, payload] of accepted) {
      const res = await tokenize(payload);
      expect([what, res.statusCode]).toEqual([what, 201]);
      const body = res.json();
      expect(Object.keys(body).sort()).toEqual([
        'brand',
        'environment',
        'exp_month',
        'exp_year',
        'id',
        'last4',
        'livemode',
        'object',
        'request_id',
        'seller_id',
        'type',
      ]);
      const number = String((payload.card as { number: string }).number).replace(/[ -]/g, '');
      expect(body).toMatchObject({
        object: 'payment_method_token',
        type: 'card',
        last4: number.slice(-4),
        exp_month: (payload.card as { exp_month: number }).exp_month,
        exp_year: (payload.card as { exp_year: number }).exp_year,
        livemode: false,
        environment: 'TEST',
        seller_id: seller.sellerId,
      });
      expect(body.id).toMatch(/^tok_[A-Za-z0-9_-]+$/);
      expect(body.request_id).toMatch(/^req_/);
    }
  });

  it('takes livemode and environment from the principal', async () => {
    const live = { ...seller, livemode: true };
    const res = await tokenize({ card: validCard() }, live);
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ livemode: true, environment: 'LIVE' });
  });

  it('detects the brand of real BIN ranges for every brand of contract §6 (and Elo inside the Visa range)', async () => {
    const samples: Array<[string, string]> = [
      ['4111 1111 1111 1111', 'visa'],
      ['4012888888881881', 'visa'],
      ['5555 5555 5555 4444', 'mastercard'],
      ['2223003122003222', 'mastercard'],
      ['3782 822463 10005', 'amex'],
      ['371449635398431', 'amex'],
      ['6362970000457013', 'elo'],
      [withCheckDigit('401178000000000'), 'elo'],
      [withCheckDigit('509000000000000'), 'elo'],
      ['6062825624254001', 'hipercard'],
      [withCheckDigit('384100000000000'), 'hipercard'],
      ['36490102462661', 'diners'],
      ['30569309025904', 'diners'],
      ['6011111111111117', 'discover'],
      [withCheckDigit('650034000000000'), 'discover'],
      ['3530111333300000', 'jcb'],
      ['3566002020360505', 'jcb'],
    ];
    for (const [number, brand] of samples) {
      const res = await tokenize({ card: validCard({ number }) });
      expect([number, res.statusCode, res.json().brand]).toEqual([number, 201, brand]);
    }
  });

  it('hands the normalised PAN to the card store under the token id as reference, and keeps the card_ref it answers', async () => {
    const res = await tokenize({ card: validCard({ number: '5555-5555 5555-4444' }) });
    const id = res.json().id as string;
    expect(h.cardStore.received.find((r) => r.reference === id)?.number).toBe('5555555555554444');
    const row = await h.db.read((q) => q('tokens').where({ id }).first());
    expect(row).toMatchObject({
      tenant_id: seller.tenantId,
      seller_id: seller.sellerId,
      livemode: false,
      brand: 'mastercard',
      last4: '4444',
      holder_name: 'ANA SILVA',
    });
    expect(row.card_ref).toMatch(/^card_/);
    // Test mode's card store is the simulator: the token keeps the rail whose store holds card_ref.
    expect(row.card_rail).toBe('simulator');
    expect(row.fingerprint).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('POST /api/v1/payment-methods/tokenize: refused inputs', () => {
  it('refuses every broken rule with 422, the right code and the dotted param, and keeps nothing', async () => {
    const refused: Array<[string, unknown, string, string | null]> = [
      ['no body fields', {}, 'parameter_missing', 'card'],
      ['card not an object', { card: 'x' }, 'parameter_invalid', 'card'],
      [
        'an unknown top-level field',
        { card: validCard(), customer: 'c' },
        'parameter_unknown',
        'customer',
      ],
      [
        'an unknown card field',
        { card: validCard({ cvc: '123' }) },
        'parameter_unknown',
        'card.cvc',
      ],
      [
        'an unknown billing_address field',
        { card: validCard(), billing_address: { street: 'x' } },
        'parameter_unknown',
        'billing_address.street',
      ],
      [
        'card.number missing',
        { card: { exp_month: 1, exp_year: 2030, cvv: '123', holder_name: 'AN' } },
        'parameter_missing',
        'card.number',
      ],
      [
        'card.exp_month missing',
        { card: { number: '4111111111111111', exp_year: 2030, cvv: '123', holder_name: 'AN' } },
        'parameter_missing',
        'card.exp_month',
      ],
      [
        'card.exp_year missing',
        { card: { number: '4111111111111111', exp_month: 1, cvv: '123', holder_name: 'AN' } },
        'parameter_missing',
        'card.exp_year',
      ],
      [
        'card.cvv missing',
        { card: { number: '4111111111111111', exp_month: 1, exp_year: 2030, holder_name: 'AN' } },
        'parameter_missing',
        'card.cvv',
      ],
      [
        'card.holder_name missing',
        { card: { number: '4111111111111111', exp_month: 1, exp_year: 2030, cvv: '123' } },
        'parameter_missing',
        'card.holder_name',
      ],
      [
        'card.number of 11 characters',
        { card: validCard({ number: '41111111111' }) },
        'parameter_invalid',
        'card.number',
      ],
      [
        'card.number of 33 characters',
        { card: validCard({ number: '4111 1111 1111 1111 1111 1111 111' }) },
        'parameter_invalid',
        'card.number',
      ],
      [
        'card.number with a letter',
        { card: validCard({ number: '4111 1111 1111 111a' }) },
        'parameter_invalid',
        'card.number',
      ],
      [
        'card.number with dots',
        { card: validCard({ number: '4111.1111.1111.1111' }) },
        'parameter_invalid',
        'card.number',
      ],
      [
        'card.number as a number',
        { card: validCard({ number: 4111111111111111 }) },
        'parameter_invalid',
        'card.number',
      ],
      [
        'card.number failing Luhn',
        { card: validCard({ number: '4111 1111 1111 1112' }) },
        'card_number_invalid',
        'card.number',
      ],
      [
        'card.number of 11 digits in 12 characters',
        { card: validCard({ number: '4111 1111111' }) },
        'card_number_invalid',
        'card.number',
      ],
      [
        'card.number of 20 digits',
        { card: validCard({ number: withCheckDigit('4'.padEnd(19, '0')) }) },
        'card_number_invalid',
        'card.number',
      ],
      [
        'card.exp_month 0',
        { card: validCard({ exp_month: 0 }) },
        'parameter_invalid',
        'card.exp_month',
      ],
      [
        'card.exp_month 13',
        { card: validCard({ exp_month: 13 }) },
        'parameter_invalid',
        'card.exp_month',
      ],
      [
        'card.exp_month as a string',
        { card: validCard({ exp_month: '12' }) },
        'parameter_invalid',
        'card.exp_month',
      ],
      [
        'card.exp_month not an integer',
        { card: validCard({ exp_month: 1.5 }) },
        'parameter_invalid',
        'card.exp_month',
      ],
      [
        'card.exp_year 2025',
        { card: validCard({ exp_year: 2025 }) },
        'parameter_invalid',
        'card.exp_year',
      ],
      [
        'card.exp_year 2101',
        { card: validCard({ exp_year: 2101 }) },
        'parameter_invalid',
        'card.exp_year',
      ],
      ['card.cvv of 2 digits', { card: validCard({ cvv: '12' }) }, 'parameter_invalid', 'card.cvv'],
      [
        'card.cvv of 5 digits',
        { card: validCard({ cvv: '12345' }) },
        'parameter_invalid',
        'card.cvv',
      ],
      [
        'card.cvv with a letter',
        { card: validCard({ cvv: '12a' }) },
        'parameter_invalid',
        'card.cvv',
      ],
      ['card.cvv as a number', { card: validCard({ cvv: 123 }) }, 'parameter_invalid', 'card.cvv'],
      [
        'card.holder_name of 1 character',
        { card: validCard({ holder_name: 'A' }) },
        'parameter_invalid',
        'card.holder_name',
      ],
      [
        'card.holder_name of 121 characters',
        { card: validCard({ holder_name: 'A'.repeat(121) }) },
        'parameter_invalid',
        'card.holder_name',
      ],
      [
        'billing_address not an object',
        { card: validCard(), billing_address: 'Rua X' },
        'parameter_invalid',
        'billing_address',
      ],
      [
        'billing_address.country of 3 characters',
        { card: validCard(), billing_address: { country: 'BRA' } },
        'parameter_invalid',
        'billing_address.country',
      ],
      [
        'billing_address.zip_code of 21 characters',
        { card: validCard(), billing_address: { zip_code: '0'.repeat(21) } },
        'parameter_invalid',
        'billing_address.zip_code',
      ],
      [
        'billing_address.state of 81 characters',
        { card: validCard(), billing_address: { state: 'S'.repeat(81) } },
        'parameter_invalid',
        'billing_address.state',
      ],
      [
        'billing_address.city of 121 characters',
        { card: validCard(), billing_address: { city: 'C'.repeat(121) } },
        'parameter_invalid',
        'billing_address.city',
      ],
      [
        'billing_address.line_1 of 161 characters',
        { card: validCard(), billing_address: { line_1: 'L'.repeat(161) } },
        'parameter_invalid',
        'billing_address.line_1',
      ],
      [
        'billing_address.line_2 of 161 characters',
        { card: validCard(), billing_address: { line_2: 'L'.repeat(161) } },
        'parameter_invalid',
        'billing_address.line_2',
      ],
      [
        'billing_address.city as a number',
        { card: validCard(), billing_address: { city: 5 } },
        'parameter_invalid',
        'billing_address.city',
      ],
      [
        'metadata as a string',
        { card: validCard(), metadata: 'x' },
        'parameter_invalid',
        'metadata',
      ],
      [
        'metadata as an array',
        { card: validCard(), metadata: [1] },
        'parameter_invalid',
        'metadata',
      ],
      ['metadata null', { card: validCard(), metadata: null }, 'parameter_invalid', 'metadata'],
    ];
    const before = await tokenCount();
    for (const [what, payload, code, param] of refused) {
      const res = await tokenize(payload);
      expect([what, res.statusCode, res.json().error]).toEqual([
        what,
        422,
        expect.objectContaining({ type: 'invalid_request_error', code, param }),
      ]);
    }
    expect(await tokenCount()).toBe(before);
  });

  it(`keeps metadata ${METADATA_DEPTH_MAX} levels deep, refuses one level more with 422 metadata before the card store, and answers 422, not 500, at depths JSON.stringify cannot serialize`, async () => {
    // Proves the bound protects something: without it 10,000 levels (a 60 KB body) overflowed the stack
    // while sealing, answering 500 after the PAN had been sent to the card store.
    const nested = (depth: number, kind: 'object' | 'array') =>
      (kind === 'object' ? '{"a":' : '[').repeat(depth) +
      '"leaf"' +
      (kind === 'object' ? '}' : ']').repeat(depth);
    const raw = (metadata: string) =>
      `{"card":${JSON.stringify(validCard())},"metadata":${metadata}}`;
    const send = (body: string) =>
      h.vault.app.inject({
        method: 'POST',
        url: '/api/v1/payment-methods/tokenize',
        headers: { 'x-gateway-principal': principal(seller), 'content-type': 'application/json' },
        payload: body,
      });

    const deepest = nested(METADATA_DEPTH_MAX, 'object');
    const kept = await send(raw(deepest));
    expect(kept.statusCode).toBe(201);
    const row = await h.db.read((q) => q('tokens').where({ id: kept.json().id }).first<TokenRow>());
    expect(openDetails((await vaultKeysForAllInOne({}, h.db)).keyring, row!).metadata).toEqual(
      JSON.parse(deepest),
    );

    const before = await tokenCount();
    const sentToCardStore = h.cardStore.received.length;
    for (const [what, metadata] of [
      ['one level more', nested(METADATA_DEPTH_MAX + 1, 'object')],
      ['arrays inside', `{"list":${nested(METADATA_DEPTH_MAX, 'array')}}`],
      ['3,000 levels', nested(3_000, 'object')],
      ['100,000 levels of arrays', `{"x":${nested(100_000, 'array')}}`],
    ] as const) {
      const res = await send(raw(metadata));
      expect([what, res.statusCode, res.json().error]).toEqual([
        what,
        422,
        {
          type: 'invalid_request_error',
          code: 'parameter_invalid',
          message: `metadata: must not nest objects and arrays more than ${METADATA_DEPTH_MAX} levels deep`,
          param: 'metadata',
        },
      ]);
    }
    expect(await tokenCount()).toBe(before);
    expect(h.cardStore.received.length).toBe(sentToCardStore);
  });

  it(`keeps metadata of ${METADATA_CHARS_MAX} serialized characters and refuses one more with 422 metadata, before the card store`, async () => {
    // Proves issue 16 item 9: metadata is held to the size POST /charges allows, not only to a depth.
    const sized = (chars: number) => ({ note: 'x'.repeat(chars - '{"note":""}'.length) });
    expect(JSON.stringify(sized(METADATA_CHARS_MAX)).length).toBe(METADATA_CHARS_MAX);
    expect(
      (await tokenize({ card: validCard(), metadata: sized(METADATA_CHARS_MAX) })).statusCode,
    ).toBe(201);
    const before = await tokenCount();
    const sentToCardStore = h.cardStore.received.length;
    for (const metadata of [
      sized(METADATA_CHARS_MAX + 1),
      Object.fromEntries(Array.from({ length: 2_000 }, (_, i) => [`k${i}`, i])),
    ]) {
      const res = await tokenize({ card: validCard(), metadata });
      expect([res.statusCode, res.json().error]).toEqual([
        422,
        {
          type: 'invalid_request_error',
          code: 'parameter_invalid',
          message: `metadata: must be at most ${METADATA_CHARS_MAX} characters once serialized`,
          param: 'metadata',
        },
      ]);
    }
    expect(await tokenCount()).toBe(before);
    expect(h.cardStore.received.length).toBe(sentToCardStore);
  });

  it('answers invalid_json for a body that is not JSON', async () => {
    const res = await h.vault.app.inject({
      method: 'POST',
      url: '/api/v1/payment-methods/tokenize',
      headers: { 'x-gateway-principal': principal(seller), 'content-type': 'application/json' },
      payload: '{"card": {"number": "4111',
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().error.code).toBe('invalid_json');
  });

  it('checks the principal before the body: 401 without one, 403 without the permission or the seller scope', async () => {
    const none = await h.vault.app.inject({
      method: 'POST',
      url: '/api/v1/payment-methods/tokenize',
      payload: { card: {} },
    });
    expect(none.statusCode).toBe(401);
    const noPermission = await tokenize(
      { card: {} },
      { ...seller, permissions: ['charges:create'] },
    );
    expect([noPermission.statusCode, noPermission.json().error.code]).toEqual([
      403,
      'permission_denied',
    ]);
    const tenantKey = await tokenize({ card: {} }, { tenantId: seller.tenantId, sellerId: null });
    expect([tenantKey.statusCode, tenantKey.json().error]).toEqual([
      403,
      expect.objectContaining({ type: 'permission_error', code: 'seller_scope_required' }),
    ]);
  });

  it('answers 502 provider_unavailable when the card store is unavailable or times out, and keeps nothing', async () => {
    const before = await tokenCount();
    for (const mode of ['unavailable', 'timeout'] as const) {
      h.cardStore.mode = mode;
      try {
        const res = await tokenize({ card: validCard() });
        expect([mode, res.statusCode, res.json().error]).toEqual([
          mode,
          502,
          expect.objectContaining({ type: 'provider_error', code: 'provider_unavailable' }),
        ]);
      } finally {
        h.cardStore.mode = 'normal';
      }
    }
    expect(await tokenCount()).toBe(before);
  });
});

describe("POST /api/v1/payment-methods/tokenize: KYC is the gateway's", () => {
  it('tokenizes for a seller it has heard nothing of: no event-fed copy can refuse a seller the gateway has just approved', async () => {
    const res = await tokenize(
      { card: validCard() },
      { tenantId: 'ten_kyc1', sellerId: 'seller_justapproved1' },
    );
    expect([res.statusCode, res.json().seller_id]).toEqual([201, 'seller_justapproved1']);
  });
});

describe('POST /api/v1/payment-methods/tokenize: random card numbers (fast-check)', () => {
  const separators = fc.array(fc.constantFrom('', '', ' ', '-'), { minLength: 19, maxLength: 19 });

  it('accepts any Luhn-valid 12–19 digit number however it is spaced, and shows only its last four digits', async () => {
    await fc.assert(
      fc.asyncProperty(fc.stringMatching(/^[1-9][0-9]{10,17}$/), separators, async (body, seps) => {
        const digits = withCheckDigit(body);
        const number = [...digits]
          .map((d, i) => (i < digits.length - 1 ? d + (seps[i] ?? '') : d))
          .join('')
          .slice(0, 32);
        fc.pre(number.replace(/[ -]/g, '') === digits);
        const res = await tokenize({ card: validCard({ number }) });
        expect(res.statusCode).toBe(201);
        expect(res.json().last4).toBe(digits.slice(-4));
        expect(res.body).not.toContain(digits);
      }),
      { numRuns: 25 },
    );
  });

  it('refuses any number with one digit changed from a valid one with card_number_invalid', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.stringMatching(/^[1-9][0-9]{10,17}$/),
        fc.nat(),
        fc.integer({ min: 1, max: 9 }),
        async (body, position, delta) => {
          const valid = withCheckDigit(body);
          const i = position % valid.length;
          const broken =
            valid.slice(0, i) + String((Number(valid[i]) + delta) % 10) + valid.slice(i + 1);
          const res = await tokenize({ card: validCard({ number: broken }) });
          expect([res.statusCode, res.json().error.code, res.json().error.param]).toEqual([
            422,
            'card_number_invalid',
            'card.number',
          ]);
        },
      ),
      { numRuns: 25 },
    );
  });
});
