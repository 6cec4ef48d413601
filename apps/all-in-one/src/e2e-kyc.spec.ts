// KYC end to end (contract §4a, §4b): the operator's answer holds for the integrator's very next request,
// through the real vault and charges, on either of two gateway replicas over the one database.
import { generateCpf } from '@pgw/domain';
import type { App } from '@pgw/platform-http';
import { waitFor } from '@pgw/testing';
import { startAllInOne, type AllInOne } from './all-in-one';

let system: AllInOne;
/** Replica B: another gateway over the same database; the operator talks to replica A (system.url). */
let replica: App;
let tenantId: string;

beforeAll(async () => {
  system = await startAllInOne({ dataDir: null, port: 0, demo: true, log: { level: 'silent' } });
  if (system.demo === null) throw new Error('the demo was not provisioned');
  tenantId = system.demo.tenantId;
  replica = await system.startGatewayReplica();
}, 120_000);

afterAll(async () => {
  await system?.stop();
});

interface Answer {
  status: number;
  body: any;
}

/** Through replica A, over HTTP. */
async function onA(method: string, path: string, bearer: string, body?: unknown): Promise<Answer> {
  const res = await fetch(`${system.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${bearer}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? null : JSON.parse(text) };
}

/** Through replica B. */
async function onB(path: string, bearer: string, body: unknown): Promise<Answer> {
  const res = await replica.inject({
    method: 'POST',
    url: path,
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
  return { status: res.statusCode, body: res.json() };
}

const admin = (method: string, path: string, body?: unknown) =>
  onA(method, path, system.adminToken, body);
const outcome = (res: Answer) => [res.status, res.body.error?.code ?? null];

const buyer = {
  name: 'Maria Oliveira',
  email: 'maria@example.com',
  phone: '(21) 99876-5432',
  document: generateCpf(2026),
  address: {
    line_1: 'Rua do Ouvidor, 50',
    zip_code: '20040-030',
    city: 'Rio de Janeiro',
    state: 'RJ',
  },
};
const card = {
  number: '4111 1111 1111 1111',
  exp_month: 12,
  exp_year: 2031,
  cvv: '123',
  holder_name: 'MARIA OLIVEIRA',
};

let documentSeed = 500;

async function seller(kycStatus: 'pending' | 'approved'): Promise<{ id: string; key: string }> {
  documentSeed += 1;
  const created = await admin('POST', `/admin/v1/tenants/${tenantId}/sellers`, {
    name: 'Loja',
    document: generateCpf(documentSeed),
    kyc_status: kycStatus,
  });
  expect(created.status).toBe(201);
  const key = await admin('POST', '/admin/v1/api-keys', {
    tenant_id: tenantId,
    seller_id: created.body.id,
    permissions: ['payment_methods:tokenize', 'charges:create', 'charges:read'],
  });
  expect(key.status).toBe(201);
  return { id: created.body.id, key: key.body.secret };
}

async function setKyc(sellerId: string, kycStatus: string): Promise<void> {
  const res = await admin('PATCH', `/admin/v1/sellers/${sellerId}`, { kyc_status: kycStatus });
  expect([res.status, res.body.kyc_status]).toEqual([200, kycStatus]);
}

describe('KYC through two gateway replicas and the real services', () => {
  it('approve on A → tokenize on B at once is 201; reject on A → tokenize on B at once is 403', async () => {
    const s = await seller('pending');
    const tokenize = () => onB('/api/v1/payment-methods/tokenize', s.key, { card });
    expect(outcome(await tokenize())).toEqual([403, 'seller_kyc_required']); // B holds the key in its cache now
    await setKyc(s.id, 'approved');
    const token = await tokenize();
    expect([token.status, token.body.seller_id]).toEqual([201, s.id]);
    await setKyc(s.id, 'rejected');
    expect(outcome(await tokenize())).toEqual([403, 'seller_kyc_required']);
    // A card charge of the rejected seller, with the token made while approved: refused at once too.
    const charge = await onB('/api/v1/charges', s.key, {
      buyer,
      amount: 1_000,
      payment_method: 'CREDIT_CARD',
      installments: 1,
      card_token: token.body.id,
    });
    expect(outcome(charge)).toEqual([403, 'seller_kyc_required']);
  });

  it('a pending seller takes no Pix and no boleto (403 seller_kyc_required); once approved, both are 201', async () => {
    const s = await seller('pending');
    for (const payment_method of ['PIX', 'BOLETO']) {
      expect([
        payment_method,
        ...outcome(
          await onA('POST', '/api/v1/charges', s.key, { buyer, amount: 1_000, payment_method }),
        ),
      ]).toEqual([payment_method, 403, 'seller_kyc_required']);
    }
    await setKyc(s.id, 'approved');
    for (const payment_method of ['PIX', 'BOLETO']) {
      const res = await onB('/api/v1/charges', s.key, { buyer, amount: 1_000, payment_method });
      expect([payment_method, res.status, res.body.status]).toEqual([
        payment_method,
        201,
        'pending',
      ]);
    }
  });

  it('a split to a recipient whose KYC is not approved is 422 parameter_invalid on split.0.recipient_seller_id; once approved, 201', async () => {
    const owner = await seller('approved');
    const recipient = await seller('pending');
    const body = {
      buyer,
      amount: 10_000,
      payment_method: 'PIX',
      split: [{ recipient_seller_id: recipient.id, amount_cents: 1_000 }],
    };
    const refused = await onB('/api/v1/charges', owner.key, body);
    expect([refused.status, refused.body.error]).toEqual([
      422,
      expect.objectContaining({
        type: 'invalid_request_error',
        code: 'parameter_invalid',
        param: 'split.0.recipient_seller_id',
      }),
    ]);
    await setKyc(recipient.id, 'approved');
    // Charges learns of a new seller from the directory events (eventual, contract §4b); KYC is not what it waits for.
    const created = await waitFor(
      async () => {
        const res = await onB('/api/v1/charges', owner.key, body);
        return res.status === 201 ? res.body : undefined;
      },
      5_000,
      'the recipient to reach charges',
    );
    expect(created).toMatchObject({ status: 'pending', payment_method: 'pix' });
  });
});
