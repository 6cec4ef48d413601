import fc from 'fast-check';
import {
  cnpjCheckDigits,
  cpfCheckDigits,
  generateCnpj,
  generateCpf,
  newId,
  verifyBrCode,
  isValidBarcode,
  isValidDigitableLine,
  barcodeFromDigitableLine,
  dueDateFactor,
  addDays,
  readBarcode,
} from '@pgw/domain';
import { createPgliteKnex } from '@pgw/platform-db';
import { PRINCIPAL_HEADER } from '@pgw/platform-http';
import { requestHash } from '@pgw/platform-idempotency';
import { ManualClock } from '@pgw/platform-service';
import {
  apiKey,
  buyer,
  cardCharge,
  get,
  merchant,
  outboxEvents,
  post,
  publishSeller,
  setProviderMode,
  startCharges,
  type Harness,
  type Merchant,
} from '../testing/harness';

const knex = createPgliteKnex(null);
const clock = new ManualClock(new Date());
let h: Harness;
let m: Merchant;
let token: string;

beforeAll(async () => {
  h = await startCharges(knex, { clock });
  m = await merchant(h);
  token = m.token();
}, 60_000);

afterAll(async () => {
  await h.stop();
  await knex.destroy();
});

const create = (body: unknown, headers: Record<string, string> = m.key) =>
  post(h, '/api/v1/charges', headers, body);
const pix = (overrides: Record<string, unknown> = {}) => ({
  amount: 1_000,
  payment_method: 'PIX',
  buyer: buyer(),
  ...overrides,
});
const boleto = (overrides: Record<string, unknown> = {}) => ({
  amount: 1_000,
  payment_method: 'BOLETO',
  buyer: buyer(),
  ...overrides,
});
const withBuyer = (fields: Record<string, unknown>) => cardCharge(token, { buyer: buyer(fields) });
const withAddress = (fields: Record<string, unknown>) =>
  withBuyer({
    address: { line_1: 'Rua A, 10', zip_code: '01310100', city: 'Santos', state: 'SP', ...fields },
  });
// The service's clock and the test's are one: a run across midnight UTC cannot see two different days.
const today = () => clock.today();

describe('POST /api/v1/charges: every field rule refused, with its param', () => {
  let other: Merchant;
  beforeAll(async () => {
    other = await merchant(h);
  });

  const cases: Array<[string, () => unknown, string, string | null]> = [
    [
      'amount missing',
      () => ({ ...cardCharge(token), amount: undefined }),
      'parameter_missing',
      'amount',
    ],
    ['amount 0', () => cardCharge(token, { amount: 0 }), 'parameter_invalid', 'amount'],
    [
      'amount as a string',
      () => cardCharge(token, { amount: '100' }),
      'parameter_invalid',
      'amount',
    ],
    ['amount fractional', () => cardCharge(token, { amount: 10.5 }), 'parameter_invalid', 'amount'],
    ['currency USD', () => cardCharge(token, { currency: 'USD' }), 'parameter_invalid', 'currency'],
    [
      'payment_method missing',
      () => ({ ...cardCharge(token), payment_method: undefined }),
      'parameter_missing',
      'payment_method',
    ],
    [
      'payment_method lower case',
      () => cardCharge(token, { payment_method: 'credit_card' }),
      'parameter_invalid',
      'payment_method',
    ],
    [
      'capture_method unknown',
      () => cardCharge(token, { capture_method: 'later' }),
      'parameter_invalid',
      'capture_method',
    ],
    [
      'capture_method manual with PIX',
      () => pix({ capture_method: 'manual' }),
      'parameter_invalid',
      'capture_method',
    ],
    [
      'capture_method manual with BOLETO',
      () => boleto({ capture_method: 'manual' }),
      'parameter_invalid',
      'capture_method',
    ],
    [
      'installments missing for a card',
      () => ({ ...cardCharge(token), installments: undefined }),
      'parameter_missing',
      'installments',
    ],
    [
      'installments 0',
      () => cardCharge(token, { installments: 0 }),
      'parameter_invalid',
      'installments',
    ],
    [
      'installments 25',
      () => cardCharge(token, { installments: 25 }),
      'parameter_invalid',
      'installments',
    ],
    [
      'installments 2 on a debit card',
      () => cardCharge(token, { payment_method: 'DEBIT_CARD', installments: 2 }),
      'parameter_invalid',
      'installments',
    ],
    [
      'installments 3 on a Pix',
      () => pix({ installments: 3 }),
      'parameter_invalid',
      'installments',
    ],
    [
      'card_token missing for a card',
      () => ({ ...cardCharge(token), card_token: undefined }),
      'parameter_missing',
      'card_token',
    ],
    ['card_token malformed', () => cardCharge('card_123'), 'parameter_invalid', 'card_token'],
    ['card_token unknown', () => cardCharge('tok_doesnotexist'), 'parameter_invalid', 'card_token'],
    [
      "card_token of another seller's",
      () => cardCharge(other.token()),
      'parameter_invalid',
      'card_token',
    ],
    ['card_token with PIX', () => pix({ card_token: token }), 'parameter_invalid', 'card_token'],
    [
      'security_code of 2 digits',
      () => cardCharge(token, { security_code: '12' }),
      'parameter_invalid',
      'security_code',
    ],
    [
      'security_code with a letter',
      () => cardCharge(token, { security_code: '12a' }),
      'parameter_invalid',
      'security_code',
    ],
    [
      'security_code with BOLETO',
      () => boleto({ security_code: '123' }),
      'parameter_invalid',
      'security_code',
    ],
    [
      'buyer missing',
      () => ({ ...cardCharge(token), buyer: undefined }),
      'parameter_missing',
      'buyer',
    ],
    [
      'buyer.name of 1 character',
      () => withBuyer({ name: 'A' }),
      'parameter_invalid',
      'buyer.name',
    ],
    [
      'buyer.name of 256 characters',
      () => withBuyer({ name: 'A'.repeat(256) }),
      'parameter_invalid',
      'buyer.name',
    ],
    ['buyer.name missing', () => withBuyer({ name: undefined }), 'parameter_missing', 'buyer.name'],
    [
      'buyer.email not an e-mail',
      () => withBuyer({ email: 'ana-at-example' }),
      'parameter_invalid',
      'buyer.email',
    ],
    [
      'buyer.email of 256 characters',
      () => withBuyer({ email: `${'a'.repeat(244)}@example.com` }),
      'parameter_invalid',
      'buyer.email',
    ],
    [
      'buyer.phone of 9 digits',
      () => withBuyer({ phone: '987654321' }),
      'parameter_invalid',
      'buyer.phone',
    ],
    [
      'buyer.phone of 16 digits',
      () => withBuyer({ phone: '1234567890123456' }),
      'parameter_invalid',
      'buyer.phone',
    ],
    [
      'buyer.phone with letters',
      () => withBuyer({ phone: '11 9876-ABCD' }),
      'parameter_invalid',
      'buyer.phone',
    ],
    [
      'buyer.document with a wrong CPF check digit',
      () => withBuyer({ document: '529.982.247-26' }),
      'parameter_invalid',
      'buyer.document',
    ],
    [
      'buyer.document with a wrong CNPJ check digit',
      () => withBuyer({ document: '11.222.333/0001-82' }),
      'parameter_invalid',
      'buyer.document',
    ],
    [
      'buyer.document of 10 digits',
      () => withBuyer({ document: '1234567890' }),
      'parameter_invalid',
      'buyer.document',
    ],
    [
      'buyer.document all one digit',
      () => withBuyer({ document: '11111111111' }),
      'parameter_invalid',
      'buyer.document',
    ],
    [
      'buyer.ip not an address',
      () => withBuyer({ ip: '300.1.1.1' }),
      'parameter_invalid',
      'buyer.ip',
    ],
    ['buyer unknown field', () => withBuyer({ age: 30 }), 'parameter_unknown', 'buyer.age'],
    [
      'buyer.address missing',
      () => withBuyer({ address: undefined }),
      'parameter_missing',
      'buyer.address',
    ],
    [
      'buyer.address.line_1 of 3 characters',
      () => withAddress({ line_1: 'Rua' }),
      'parameter_invalid',
      'buyer.address.line_1',
    ],
    [
      'buyer.address.line_1 of 221 characters',
      () => withAddress({ line_1: 'R'.repeat(221) }),
      'parameter_invalid',
      'buyer.address.line_1',
    ],
    [
      'buyer.address.line_2 of 221 characters',
      () => withAddress({ line_2: 'R'.repeat(221) }),
      'parameter_invalid',
      'buyer.address.line_2',
    ],
    [
      'buyer.address.zip_code not a CEP in BR',
      () => withAddress({ zip_code: '0131-010' }),
      'parameter_invalid',
      'buyer.address.zip_code',
    ],
    [
      'buyer.address.zip_code missing',
      () => withAddress({ zip_code: undefined }),
      'parameter_missing',
      'buyer.address.zip_code',
    ],
    [
      'buyer.address.city of 1 character',
      () => withAddress({ city: 'S' }),
      'parameter_invalid',
      'buyer.address.city',
    ],
    [
      'buyer.address.state of 1 character',
      () => withAddress({ state: 'S' }),
      'parameter_invalid',
      'buyer.address.state',
    ],
    [
      'buyer.address.country of 3 letters',
      () => withAddress({ country: 'BRA' }),
      'parameter_invalid',
      'buyer.address.country',
    ],
    [
      'buyer.address unknown field',
      () => withAddress({ number: '10' }),
      'parameter_unknown',
      'buyer.address.number',
    ],
    [
      'pix.expires_in 59',
      () => pix({ pix: { expires_in: 59 } }),
      'parameter_invalid',
      'pix.expires_in',
    ],
    [
      'pix.expires_in 86401',
      () => pix({ pix: { expires_in: 86_401 } }),
      'parameter_invalid',
      'pix.expires_in',
    ],
    ['pix unknown field', () => pix({ pix: { key: 'x' } }), 'parameter_unknown', 'pix.key'],
    [
      'pix with a card',
      () => cardCharge(token, { pix: { expires_in: 600 } }),
      'parameter_invalid',
      'pix',
    ],
    [
      'boleto.due_date in the past',
      () => boleto({ boleto: { due_date: addDays(today(), -1) } }),
      'parameter_invalid',
      'boleto.due_date',
    ],
    [
      'boleto.due_date not a date',
      () => boleto({ boleto: { due_date: '2030-02-30' } }),
      'parameter_invalid',
      'boleto.due_date',
    ],
    [
      'boleto unknown field',
      () => boleto({ boleto: { instructions: 'x' } }),
      'parameter_unknown',
      'boleto.instructions',
    ],
    [
      'boleto with a Pix',
      () => pix({ boleto: { due_date: today() } }),
      'parameter_invalid',
      'boleto',
    ],
    ['split empty', () => cardCharge(token, { split: [] }), 'parameter_invalid', 'split'],
    [
      'split of 11 items',
      () =>
        cardCharge(token, {
          split: Array.from({ length: 11 }, () => ({
            recipient_seller_id: newId('seller_'),
            amount_cents: 1,
          })),
        }),
      'parameter_invalid',
      'split',
    ],
    [
      'split item recipient malformed',
      () => cardCharge(token, { split: [{ recipient_seller_id: 'ten_1', amount_cents: 1 }] }),
      'parameter_invalid',
      'split.0.recipient_seller_id',
    ],
    [
      'split item amount_cents 0',
      () =>
        cardCharge(token, { split: [{ recipient_seller_id: other.sellerId, amount_cents: 0 }] }),
      'parameter_invalid',
      'split.0.amount_cents',
    ],
    [
      'split item percentage_bps 10001',
      () =>
        cardCharge(token, {
          split: [{ recipient_seller_id: other.sellerId, percentage_bps: 10_001 }],
        }),
      'parameter_invalid',
      'split.0.percentage_bps',
    ],
    [
      'split item unknown field',
      () =>
        cardCharge(token, {
          split: [{ recipient_seller_id: other.sellerId, amount_cents: 1, liable: true }],
        }),
      'parameter_unknown',
      'split.0.liable',
    ],
    [
      'metadata not an object',
      () => cardCharge(token, { metadata: 'order 1' }),
      'parameter_invalid',
      'metadata',
    ],
    [
      'metadata over 4096 serialized characters',
      () => cardCharge(token, { metadata: { note: 'x'.repeat(4_096 - 10 + 1) } }),
      'parameter_invalid',
      'metadata',
    ],
    [
      'an unknown top-level field',
      () => cardCharge(token, { customer_id: 'c1' }),
      'parameter_unknown',
      'customer_id',
    ],
  ];

  it.each(cases)('%s → 422', async (_name, body, code, param) => {
    // Proves the rule: the request is refused with the contract's error body, naming the field, and no charge is made.
    const before = await h.db.read((q) => q('charges').count<{ n: string }[]>({ n: '*' }));
    const res = await create(body());
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({
      error: { type: 'invalid_request_error', code, message: expect.any(String), param },
      request_id: expect.stringMatching(/^req_/),
    });
    const after = await h.db.read((q) => q('charges').count<{ n: string }[]>({ n: '*' }));
    expect(Number(after[0]!.n)).toBe(Number(before[0]!.n));
  });

  it.each<[string, () => unknown[], string]>([
    [
      'both amount_cents and percentage_bps',
      () => [{ recipient_seller_id: other.sellerId, amount_cents: 10, percentage_bps: 10 }],
      'split.0',
    ],
    [
      'neither amount_cents nor percentage_bps',
      () => [{ recipient_seller_id: other.sellerId }],
      'split.0',
    ],
    [
      'mixed modes',
      () => [
        { recipient_seller_id: other.sellerId, amount_cents: 10 },
        { recipient_seller_id: newId('seller_'), percentage_bps: 10 },
      ],
      'split.1',
    ],
    [
      'the same recipient twice',
      () => [
        { recipient_seller_id: other.sellerId, amount_cents: 10 },
        { recipient_seller_id: other.sellerId, amount_cents: 20 },
      ],
      'split.1.recipient_seller_id',
    ],
    [
      'more than the amount',
      () => [{ recipient_seller_id: other.sellerId, amount_cents: 10_001 }],
      'split',
    ],
    [
      'over 100 %',
      () => [
        { recipient_seller_id: other.sellerId, percentage_bps: 6_000 },
        { recipient_seller_id: newId('seller_'), percentage_bps: 5_000 },
      ],
      'split',
    ],
    [
      'a percentage that resolves to 0 cents',
      () => [{ recipient_seller_id: other.sellerId, percentage_bps: 1 }],
      'split.0.percentage_bps',
    ],
    [
      'an unknown recipient',
      () => [{ recipient_seller_id: newId('seller_'), amount_cents: 10 }],
      'split.0.recipient_seller_id',
    ],
    [
      'the charge’s own seller',
      () => [{ recipient_seller_id: m.sellerId, amount_cents: 10 }],
      'split.0.recipient_seller_id',
    ],
  ])('split with %s → 422 split_invalid', async (_name, split, param) => {
    // Proves each split rule answers split_invalid with the offending item's path.
    const amount = _name === 'a percentage that resolves to 0 cents' ? 50 : 10_000;
    const res = await create(cardCharge(token, { amount, split: split() }));
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toMatchObject({
      type: 'invalid_request_error',
      code: 'split_invalid',
      param,
    });
  });

  it('refuses a recipient that is a seller of another tenant', async () => {
    // Proves split recipients must be sellers of the charge's own tenant.
    const foreign = newId('seller_');
    await publishSeller(h.bus, { sellerId: foreign, tenantId: newId('ten_') });
    const res = await create(
      cardCharge(token, { split: [{ recipient_seller_id: foreign, amount_cents: 100 }] }),
    );
    expect(res.json().error).toMatchObject({
      code: 'split_invalid',
      param: 'split.0.recipient_seller_id',
    });
  });

  it('refuses a Pix or boleto with a key that has no seller: 403 seller_scope_required', async () => {
    // Proves money always belongs to a seller: without a card token, the key must name one.
    const tenantKey = { [PRINCIPAL_HEADER]: apiKey({ tenantId: m.tenantId, sellerId: null }) };
    for (const body of [pix(), boleto()]) {
      const res = await create(body, tenantKey);
      expect(res.statusCode).toBe(403);
      expect(res.json().error).toMatchObject({
        type: 'permission_error',
        code: 'seller_scope_required',
      });
    }
  });

  it('checks the permission before the body: 403 permission_denied even for an invalid body', async () => {
    // Proves 403 comes before 422, so a key without charges:create learns nothing about validation.
    const res = await create(
      { amount: 0 },
      {
        [PRINCIPAL_HEADER]: apiKey({
          tenantId: m.tenantId,
          sellerId: m.sellerId,
          permissions: ['charges:read'],
        }),
      },
    );
    expect(res.statusCode).toBe(403);
    expect(res.json().error.code).toBe('permission_denied');
  });

  it('refuses a request that did not come through the gateway', async () => {
    // Proves the principal check: no signed principal, 401.
    const res = await create(cardCharge(token), {});
    expect(res.statusCode).toBe(401);
  });
});

describe('POST /api/v1/charges: every field rule accepted, normalized as the contract says', () => {
  it('normalizes the buyer: phone and document to digits, document_type derived, CEP to 8 digits, country BR by default', async () => {
    // Proves the buyer's normalization rules and that the stored buyer is what GET shows.
    const res = await create(
      withBuyer({
        phone: '+55 (11) 98765-4321',
        document: '529.982.247-25',
        address: { line_1: 'Rua A, 10', zip_code: '01310-100', city: 'SP', state: 'SP' },
      }),
    );
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body.buyer).toEqual({
      name: 'Ana Souza',
      email: 'ana@example.com',
      phone: '5511987654321',
      document: '52998224725',
      document_type: 'cpf',
      ip: null, // this spec's principal carries no client address (see the buyer.ip rule below)
      address: {
        line_1: 'Rua A, 10',
        line_2: null,
        zip_code: '01310100',
        city: 'SP',
        state: 'SP',
        country: 'BR',
      },
    });
    expect((await get(h, `/api/v1/charges/${body.id}`, m.key)).json().buyer).toEqual(body.buyer);
  });

  it('accepts a CNPJ (document_type cnpj), a foreign address without a CEP, and the limits of every bounded field', async () => {
    // Proves the accepted edges: 2-char name, 4-char line_1, 10- and 15-digit phones, a US zip code.
    const cnpj = generateCnpj(42);
    const short = await create(
      withBuyer({
        name: 'Al',
        document: cnpj,
        phone: '1198765432',
        address: { line_1: '5th ', zip_code: '10001', city: 'NY', state: 'NY', country: 'US' },
      }),
    );
    expect(short.statusCode).toBe(201);
    expect(short.json().buyer).toMatchObject({
      name: 'Al',
      document: cnpj,
      document_type: 'cnpj',
      phone: '1198765432',
      address: { line_1: '5th ', zip_code: '10001', country: 'US' },
    });
    const long = await create(
      withBuyer({
        name: 'A'.repeat(255),
        phone: '123456789012345',
        address: {
          line_1: 'R'.repeat(220),
          line_2: 'x'.repeat(220),
          zip_code: '10001',
          city: 'C'.repeat(120),
          state: 'S'.repeat(80),
          country: 'us',
        },
      }),
    );
    expect(long.statusCode).toBe(201);
    expect(long.json().buyer).toMatchObject({
      phone: '123456789012345',
      address: { country: 'US', line_2: 'x'.repeat(220) },
    });
  });

  it("takes buyer.ip from the body, else the client's address the gateway signed, never from x-forwarded-for", async () => {
    // Proves the ip rule: the body wins; omitted, the address in the signed principal is stored, and a
    // client's own X-Forwarded-For (which it writes freely) is not believed.
    const seen = {
      [PRINCIPAL_HEADER]: apiKey({
        tenantId: m.tenantId,
        sellerId: m.sellerId,
        clientIp: '203.0.113.7',
      }),
    };
    const v6 = await create(withBuyer({ ip: '2001:db8::1' }), seen);
    expect(v6.json().buyer.ip).toBe('2001:db8::1');
    const signed = await create(withBuyer({}), {
      ...seen,
      'x-forwarded-for': '198.51.100.9, 10.0.0.1',
    });
    expect(signed.json().buyer.ip).toBe('203.0.113.7');
    // No address signed (a principal from before the gateway signed one): none stored, whatever the headers say.
    const unsigned = await create(withBuyer({}), { ...m.key, 'x-forwarded-for': '198.51.100.9' });
    expect(unsigned.json().buyer.ip).toBeNull();
  });

  it('accepts each payment method, BRL explicitly, installments 1 and 24, and a 3- or 4-digit security code', async () => {
    // Proves the accepted values of the top-level fields.
    for (const body of [
      cardCharge(token, { currency: 'BRL', installments: 24, security_code: '123' }),
      cardCharge(token, { payment_method: 'DEBIT_CARD', installments: 1, security_code: '1234' }),
      cardCharge(token, { capture_method: 'manual' }),
      pix({ installments: 1, pix: { expires_in: 60 } }),
      pix({ pix: { expires_in: 86_400 } }),
      boleto({ boleto: { due_date: today() } }),
      cardCharge(token, { amount: 1 }),
    ]) {
      const res = await create(body);
      expect([res.statusCode, res.json().error]).toEqual([201, undefined]);
    }
  });

  it('refuses metadata nested 20,000 levels deep with 422 metadata, not a 500 from a serializer out of stack', async () => {
    // Written by hand: the test's own JSON.stringify would overflow on such a value.
    const deep = `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`;
    const card = JSON.stringify(cardCharge(token));
    const payload = `${card.slice(0, -1)},"metadata":${deep}}`;
    const res = await h.app.inject({
      method: 'POST',
      url: '/api/v1/charges',
      headers: { ...m.key, 'content-type': 'application/json', 'idempotency-key': newId('req_') },
      payload,
    });
    expect([res.statusCode, res.json().error?.code, res.json().error?.param]).toEqual([
      422,
      'parameter_invalid',
      'metadata',
    ]);
  });

  it('keeps metadata of exactly 4096 serialized characters as sent, keys in order', async () => {
    // Proves the metadata limit's accepted edge and that metadata is returned unchanged.
    const metadata = { zeta: 1, alpha: { nested: [1, 'two'] }, note: '' };
    metadata.note = 'x'.repeat(4_096 - JSON.stringify(metadata).length);
    expect(JSON.stringify(metadata).length).toBe(4_096);
    const res = await create(cardCharge(token, { metadata }));
    expect(res.statusCode).toBe(201);
    expect(JSON.stringify(res.json().metadata)).toBe(JSON.stringify(metadata));
    expect(
      JSON.stringify((await get(h, `/api/v1/charges/${res.json().id}`, m.key)).json().metadata),
    ).toBe(JSON.stringify(metadata));
  });

  it('makes a card charge with a tenant-wide key belong to the token’s seller', async () => {
    // Proves the owner rule for cards: the token's seller, whatever the key's scope.
    const tenantKey = { [PRINCIPAL_HEADER]: apiKey({ tenantId: m.tenantId, sellerId: null }) };
    const res = await create(cardCharge(token), tenantKey);
    expect(res.statusCode).toBe(201);
    const [created] = (await outboxEvents(h, res.json().id)).filter(
      (e) => e.type === 'charges.charge-created.v1',
    );
    expect((created!.event as { charge: { seller_id: string } }).charge.seller_id).toBe(m.sellerId);
  });

  it('refuses the card charge of a tenant-wide key whose token belongs to a seller not approved (403 seller_kyc_required), and takes it once approved', async () => {
    // Proves contract §4a for the one owner the gateway cannot know: the token's seller under a tenant-wide key.
    const other = await merchant(h);
    const tenantKey = { [PRINCIPAL_HEADER]: apiKey({ tenantId: other.tenantId, sellerId: null }) };
    await publishSeller(h.bus, {
      sellerId: other.sellerId,
      tenantId: other.tenantId,
      kycStatus: 'rejected',
    });
    const calls = h.acquirer.authorizeCalls.length;
    const refused = await create(cardCharge(other.token()), tenantKey);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error).toMatchObject({
      type: 'permission_error',
      code: 'seller_kyc_required',
    });
    expect(h.acquirer.authorizeCalls.length).toBe(calls);
    await publishSeller(h.bus, {
      sellerId: other.sellerId,
      tenantId: other.tenantId,
      kycStatus: 'approved',
    });
    expect((await create(cardCharge(other.token()), tenantKey)).statusCode).toBe(201);
  });

  it('forwards the security code to the acquirer and keeps it nowhere, not even hashed under the key', async () => {
    // Proves the CVV reaches the authorization and no table, event or idempotency hash holds it.
    const body = cardCharge(token, { security_code: '7391' });
    const res = await create(body, { ...m.key, 'idempotency-key': 'cvv-1' });
    expect(res.statusCode).toBe(201);
    expect(h.acquirer.securityCodes.get(res.json().id)).toBe('7391');
    const { security_code: _cvv, ...withoutCvv } = body;
    const [stored] = await h.db.read((q) => q('idempotency_keys').where({ key: 'cvv-1' }));
    expect(stored.request_hash).toBe(requestHash(withoutCvv));
    expect(stored.request_hash).not.toBe(requestHash(body));
    const dump =
      JSON.stringify(await h.db.read((q) => q('charges').select('*'))) +
      JSON.stringify(await h.db.read((q) => q('idempotency_keys').select('*')));
    const events = await h.db.read((q) => q('outbox').select('payload'));
    expect(dump).not.toContain('7391');
    for (const e of events) expect(Buffer.from(e.payload).toString('latin1')).not.toContain('7391');
    expect(res.body).not.toContain('7391');
  });
});

describe('contract §6 test cards', () => {
  it.each([
    ['4111111111111111', 'paid', null, '00'],
    ['5555555555554444', 'paid', null, '00'],
    ['378282246310005', 'paid', null, '00'],
    ['4000000000000002', 'refused', 'card_declined', '05'],
    ['4000000000009995', 'refused', 'insufficient_funds', '51'],
    ['4000000000000069', 'refused', 'expired_card', '54'],
    ['4000000000000119', 'failed', 'processing_error', null],
  ])('card %s → %s (%s, %s)', async (pan, status, reason, code) => {
    // Proves each test card's outcome reaches the charge with the acquirer's reason and return code.
    const res = await create(cardCharge(m.token(pan)));
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toMatchObject({
      status,
      refused_reason: reason,
      acquirer_return_code: code,
      captured: status === 'paid',
      acquirer_code: 'simulator',
    });
    expect(body.acquirer_transaction_id).toMatch(/^txn_/);
    expect(body.paid_at === null).toBe(status !== 'paid');
    const types = (await outboxEvents(h, body.id)).map((e) => e.type);
    expect(types).toEqual([
      'charges.charge-created.v1',
      status === 'paid' ? 'charges.charge-paid.v2' : `charges.charge-${status}.v1`,
    ]);
  });

  it('a manual approved charge is authorized, not captured', async () => {
    // Proves capture_method=manual holds the amount: status authorized, captured false, no paid_at.
    const res = await create(cardCharge(m.token(), { capture_method: 'manual' }));
    expect(res.json()).toMatchObject({
      status: 'authorized',
      captured: false,
      paid_at: null,
      capture_method: 'manual',
      authorization_code: expect.any(String),
    });
  });
});

describe('Pix and boleto', () => {
  it('a Pix charge is pending with a BR Code whose CRC16 checks, and its expiry', async () => {
    // Proves contract §4's pix block: a verifiable BR Code and expires_at = now + expires_in.
    const res = await create(pix({ amount: 12_345, pix: { expires_in: 600 } }));
    const body = res.json();
    expect(body).toMatchObject({
      status: 'pending',
      payment_method: 'pix',
      captured: false,
      installments: null,
    });
    expect(verifyBrCode(body.pix.qr_code).ok).toBe(true);
    expect(body.pix.qr_code).toContain('5406123.45');
    const expiresInMs =
      new Date(body.pix.expires_at).getTime() - new Date(body.created_at).getTime();
    expect(expiresInMs).toBeGreaterThan(590_000);
    expect(expiresInMs).toBeLessThan(610_000);
  });

  it('a boleto is pending with FEBRABAN check digits, the amount and the post-2025 due-date factor; due in 3 days by default', async () => {
    // Proves contract §4's boleto block: valid barcode and digitable line, factor from the 2025-02-22 reset.
    const res = await create(boleto({ amount: 98_765 }));
    const body = res.json();
    expect(body.status).toBe('pending');
    expect(body.boleto.due_date).toBe(addDays(today(), 3));
    expect(isValidBarcode(body.boleto.barcode)).toBe(true);
    expect(isValidDigitableLine(body.boleto.digitable_line)).toBe(true);
    expect(barcodeFromDigitableLine(body.boleto.digitable_line)).toBe(body.boleto.barcode);
    const parts = readBarcode(body.boleto.barcode)!;
    expect(parts.amountCents).toBe(98_765);
    expect(parts.dueDateFactor).toBe(dueDateFactor(body.boleto.due_date));
    expect(dueDateFactor('2025-02-22')).toBe(1000);
  });
});

describe('POST /api/v1/charges when the provider cannot be reached (contract §5)', () => {
  afterEach(async () => {
    await setProviderMode(h, 'normal');
  });

  it('unavailable at create: the charge is failed (201), nothing was authorized', async () => {
    // Proves "nothing happened" becomes a failed charge with the reason in acquirer_return_message.
    await setProviderMode(h, 'unavailable');
    const card = await create(cardCharge(m.token()));
    expect(card.statusCode).toBe(201);
    expect(card.json()).toMatchObject({
      status: 'failed',
      refused_reason: null,
      acquirer_return_message: expect.stringMatching(/could not be reached/),
    });
    expect(h.acquirer.authorizations.has(card.json().id)).toBe(false);
    const instant = await create(pix({ amount: 100 }));
    expect([instant.statusCode, instant.json().status]).toEqual([201, 'failed']);
  });
});

describe('property tests at the API', () => {
  let recipients: string[];
  beforeAll(async () => {
    recipients = Array.from({ length: 5 }, () => newId('seller_'));
    for (const sellerId of recipients)
      await publishSeller(h.bus, { sellerId, tenantId: m.tenantId });
  });

  it('a split by percentage or amount allocates every cent: recipients floored, the rest to the charge’s seller', async () => {
    // Proves split allocation end to end: shown on retrieval and in the event, parts add up, or split_invalid when they cannot.
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 5_000_000 }),
        fc.boolean(),
        fc.array(fc.integer({ min: 1, max: 10_000 }), { minLength: 1, maxLength: 5 }),
        async (amount, byPercentage, values) => {
          const split = values.map((v, i) => ({
            recipient_seller_id: recipients[i]!,
            ...(byPercentage ? { percentage_bps: v } : { amount_cents: v }),
          }));
          const res = await create(pix({ amount, split }));
          const expected = values.map((v) =>
            byPercentage ? Math.floor((amount * v) / 10_000) : v,
          );
          const totalBps = values.reduce((a, b) => a + b, 0);
          const fits =
            expected.every((c) => c >= 1) &&
            expected.reduce((a, b) => a + b, 0) <= amount &&
            (!byPercentage || totalBps <= 10_000);
          if (!fits) {
            expect(res.json().error?.code).toBe('split_invalid');
            return;
          }
          expect(res.statusCode).toBe(201);
          expect(res.json().split).toBeUndefined(); // create shows no split (api-v1 §2)
          const shown = (await get(h, `/api/v1/charges/${res.json().id}`, m.key)).json().split;
          expect(shown).toEqual(
            split.map((s, i) => ({
              recipient_seller_id: s.recipient_seller_id,
              amount_cents: expected[i],
            })),
          );
          const [event] = await outboxEvents(h, res.json().id);
          const snapshot = (
            event!.event as {
              charge: { split: unknown[]; seller_id: string; amount_cents: number };
            }
          ).charge;
          expect(snapshot.split).toEqual(shown);
          expect(snapshot.seller_id).toBe(m.sellerId);
          expect(amount - expected.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(0);
        },
      ),
      { numRuns: 25 },
    );
  });

  it('any CPF or CNPJ with right check digits, punctuated or not, is accepted as digits; a wrong check digit is refused', async () => {
    // Proves the document rule for generated documents at the API, both ways.
    await fc.assert(
      fc.asyncProperty(
        fc.boolean(),
        fc.integer({ min: 0, max: 2 ** 31 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 9 }),
        async (isCpf, seed, punctuate, delta) => {
          const digits = isCpf ? generateCpf(seed) : generateCnpj(seed);
          const check = isCpf
            ? cpfCheckDigits(digits.slice(0, 9))
            : cnpjCheckDigits(digits.slice(0, 12));
          expect(digits.endsWith(check)).toBe(true);
          const shown = punctuate
            ? isCpf
              ? `${digits.slice(0, 3)}.${digits.slice(3, 6)}.${digits.slice(6, 9)}-${digits.slice(9)}`
              : `${digits.slice(0, 2)}.${digits.slice(2, 5)}.${digits.slice(5, 8)}/${digits.slice(8, 12)}-${digits.slice(12)}`
            : digits;
          const ok = await create(pix({ buyer: buyer({ document: shown }) }));
          expect(ok.statusCode).toBe(201);
          expect(ok.json().buyer).toMatchObject({
            document: digits,
            document_type: isCpf ? 'cpf' : 'cnpj',
          });
          const last = Number(digits[digits.length - 1]);
          const wrong = digits.slice(0, -1) + String((last + delta) % 10);
          const bad = await create(pix({ buyer: buyer({ document: wrong }) }));
          expect(bad.statusCode).toBe(422);
          expect(bad.json().error).toMatchObject({
            code: 'parameter_invalid',
            param: 'buyer.document',
          });
        },
      ),
      { numRuns: 20 },
    );
  });
});
