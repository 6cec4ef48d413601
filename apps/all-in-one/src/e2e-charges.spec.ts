// End to end through the gateway, as an integrator drives it: the demo key, the admin token, every
// service of the all-in-one (the real vault and acquirer simulator behind charges), over HTTP.
import {
  generateCpf,
  isValidBarcode,
  isValidDigitableLine,
  verifyBrCode,
  readBarcode,
  dueDateFactor,
} from '@pgw/domain';
import { waitFor } from '@pgw/testing';
import { startAllInOne, type AllInOne } from './all-in-one';
import { BUYER, cardChargeAndRefunds, client, type Target } from './e2e.scenarios';

let system: AllInOne;
let demoKey: string;

beforeAll(async () => {
  system = await startAllInOne({
    dataDir: null,
    port: 0,
    demo: true,
    log: { level: 'silent' },
    // Short deadlines, so the timeout fault mode is quick to test; the background recovery stays off and
    // the test runs the reconciliation job itself.
    env: {
      ...process.env,
      ACQUIRER_TIMEOUT_MS: '500',
      ACQUIRER_SIM_TIMEOUT_DELAY_MS: '1500',
      CHARGES_RECOVERY_INTERVAL_MS: '0',
    },
  });
  if (system.demo === null) throw new Error('the demo was not provisioned');
  demoKey = system.demo.apiKey;
}, 120_000);

afterAll(async () => {
  await system?.stop();
});

const target = (): Target => ({
  url: system.url,
  adminToken: system.adminToken,
  tenantId: system.demo!.tenantId,
  apiKey: demoKey,
});
const call = (...args: Parameters<ReturnType<typeof client>['call']>) =>
  client(target()).call(...args);
const admin = (...args: Parameters<ReturnType<typeof client>['admin']>) =>
  client(target()).admin(...args);
const buyer = BUYER;

async function tokenize(number = '4111 1111 1111 1111'): Promise<string> {
  const res = await call('POST', '/api/v1/payment-methods/tokenize', {
    body: {
      card: { number, exp_month: 12, exp_year: 2031, cvv: '123', holder_name: 'MARIA OLIVEIRA' },
    },
  });
  expect(res.status).toBe(201);
  return res.body.id;
}

async function charge(
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<any> {
  const res = await call('POST', '/api/v1/charges', { body: { buyer, ...body }, headers });
  expect([res.status, res.body.error]).toEqual([201, undefined]);
  return res.body;
}

describe('charges end to end through the gateway (demo key)', () => {
  it('tokenize → automatic card charge → partial and full refund', async () => {
    // Proves the card sale path and both refund outcomes on the charge, through the real vault and simulator.
    await cardChargeAndRefunds(target());
  });

  it('manual card charge → capture, with Idempotency-Key replays through the gateway', async () => {
    // Proves authorize-then-capture and that the replay header crosses the gateway.
    const token = await tokenize('5555 5555 5555 4444');
    const key = { 'idempotency-key': `e2e-${Date.now()}` };
    const held = await charge(
      {
        amount: 4_990,
        payment_method: 'CREDIT_CARD',
        installments: 1,
        card_token: token,
        capture_method: 'manual',
      },
      key,
    );
    expect(held).toMatchObject({ status: 'authorized', captured: false, paid_at: null });
    const replay = await call('POST', '/api/v1/charges', {
      body: {
        buyer,
        amount: 4_990,
        payment_method: 'CREDIT_CARD',
        installments: 1,
        card_token: token,
        capture_method: 'manual',
      },
      headers: key,
    });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.id).toBe(held.id);
    const captured = await call('POST', `/api/v1/charges/${held.id}/capture`, {
      headers: { 'idempotency-key': `cap-${held.id}` },
    });
    expect(captured.status).toBe(200);
    expect(captured.body).toMatchObject({
      status: 'paid',
      captured: true,
      paid_at: expect.any(String),
    });
    const again = await call('POST', `/api/v1/charges/${held.id}/capture`);
    expect([again.status, again.body.error.code]).toEqual([422, 'charge_not_capturable']);
  });

  it('the §6 refusals come back with their codes', async () => {
    // Proves the simulator's test cards reach the integrator unchanged.
    for (const [number, reason, code] of [
      ['4000 0000 0000 0002', 'card_declined', '05'],
      ['4000 0000 0000 9995', 'insufficient_funds', '51'],
      ['4000 0000 0000 0069', 'expired_card', '54'],
    ] as const) {
      const refused = await charge({
        amount: 1_000,
        payment_method: 'CREDIT_CARD',
        installments: 1,
        card_token: await tokenize(number),
      });
      expect(refused).toMatchObject({
        status: 'refused',
        refused_reason: reason,
        acquirer_return_code: code,
        captured: false,
      });
    }
    const failed = await charge({
      amount: 1_000,
      payment_method: 'DEBIT_CARD',
      installments: 1,
      card_token: await tokenize('4000 0000 0000 0119'),
    });
    expect(failed).toMatchObject({ status: 'failed', refused_reason: 'processing_error' });
  });

  it('chargeback via the operator simulation: the charge becomes chargeback, listed for the integrator, resolved', async () => {
    // Proves the chargeback simulations of contract §5 and the integrator's read of them.
    const paid = await charge({
      amount: 8_000,
      payment_method: 'CREDIT_CARD',
      installments: 2,
      card_token: await tokenize(),
    });
    const opened = await admin('POST', '/admin/v1/simulations/chargebacks', {
      charge_id: paid.id,
      reason_code: '4853',
    });
    expect(opened.status).toBe(201);
    expect(opened.body).toMatchObject({
      object: 'chargeback',
      status: 'open',
      amount_cents: 8_000,
      charge_id: paid.id,
    });
    expect((await call('GET', `/api/v1/charges/${paid.id}`)).body.status).toBe('chargeback');
    const list = await call('GET', '/api/v1/chargebacks?limit=1');
    expect(list.body).toMatchObject({
      object: 'list',
      page: 1,
      limit: 1,
      total: expect.any(Number),
    });
    expect(list.body.data[0].id).toBe(opened.body.id);
    expect((await call('GET', `/api/v1/chargebacks/${opened.body.id}`)).body.status).toBe('open');
    const lost = await admin(
      'POST',
      `/admin/v1/simulations/chargebacks/${opened.body.id}/resolve`,
      { outcome: 'lost' },
    );
    expect(lost.body).toMatchObject({ status: 'lost', resolved_at: expect.any(String) });
    expect((await call('GET', '/api/v1/chargebacks?page=0')).status).toBe(422);
  });

  it('Pix and boleto stay pending until the simulated provider confirms payment', async () => {
    // Proves both asynchronous methods with the real PSP and bank: valid BR Code, FEBRABAN digits, paid by simulation.
    const pix = await charge({ amount: 2_500, payment_method: 'PIX', pix: { expires_in: 3_600 } });
    expect(pix.status).toBe('pending');
    expect(verifyBrCode(pix.pix.qr_code).ok).toBe(true);
    const slip = await charge({ amount: 15_000, payment_method: 'BOLETO' });
    expect(slip.status).toBe('pending');
    expect(
      isValidBarcode(slip.boleto.barcode) && isValidDigitableLine(slip.boleto.digitable_line),
    ).toBe(true);
    expect(readBarcode(slip.boleto.barcode)).toMatchObject({
      amountCents: 15_000,
      dueDateFactor: dueDateFactor(slip.boleto.due_date),
    });
    for (const c of [pix, slip]) {
      const paid = await admin('POST', `/admin/v1/simulations/charges/${c.id}/pay`);
      expect(paid.status).toBe(200);
      expect(paid.body).toMatchObject({
        status: 'paid',
        captured: true,
        paid_at: expect.any(String),
      });
      expect((await call('GET', `/api/v1/charges/${c.id}`)).body.status).toBe('paid');
    }
  });

  it('an expired Pix is canceled by the pix-expiry job', async () => {
    // Proves the job through the gateway's operator door, with an as_of_date after the expiry.
    const pix = await charge({ amount: 700, payment_method: 'PIX', pix: { expires_in: 60 } });
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const run = await admin('POST', '/admin/v1/jobs/pix-expiry', { as_of_date: tomorrow });
    expect(run.body).toMatchObject({ job: 'pix-expiry', as_of_date: tomorrow });
    expect(run.body.processed).toBeGreaterThanOrEqual(1);
    expect((await call('GET', `/api/v1/charges/${pix.id}`)).body.status).toBe('canceled');
  });

  it('timeout at the simulator: the charge is pending, and reconciliation settles it with exactly one authorization', async () => {
    // Proves fault modes through the operator route, and recovery by reference against the real simulator.
    const token = await tokenize();
    expect(
      (await admin('POST', '/admin/v1/simulations/provider', { mode: 'timeout' })).status,
    ).toBe(200);
    let pending;
    try {
      pending = await charge({
        amount: 3_333,
        payment_method: 'CREDIT_CARD',
        installments: 1,
        card_token: token,
      });
    } finally {
      await admin('POST', '/admin/v1/simulations/provider', { mode: 'normal' });
    }
    expect(pending.status).toBe('pending');
    await new Promise((r) => setTimeout(r, 600));
    const run = await admin('POST', '/admin/v1/jobs/refund-reconciliation');
    expect(run.body.processed).toBeGreaterThanOrEqual(1);
    const settled = (await call('GET', `/api/v1/charges/${pending.id}`)).body;
    expect(settled).toMatchObject({ status: 'paid', captured: true });
    // The simulator holds one authorization under the charge's reference: the one the charge points at.
    const sim = system.services.find((s) => s.name === 'acquirer-sim')!;
    const auth = await sim.app.inject({
      method: 'GET',
      url: `/acquirer/v1/authorizations/${pending.id}`,
    });
    expect(auth.json()).toMatchObject({
      reference: pending.id,
      status: 'captured',
      transaction_id: settled.acquirer_transaction_id,
      amount_cents: 3_333,
    });

    expect(
      (await admin('POST', '/admin/v1/simulations/provider', { mode: 'unavailable' })).status,
    ).toBe(200);
    let refund;
    try {
      refund = await call('POST', `/api/v1/charges/${pending.id}/refund`);
    } finally {
      await admin('POST', '/admin/v1/simulations/provider', { mode: 'normal' });
    }
    expect([refund.status, refund.body.error.code]).toEqual([502, 'provider_unavailable']);
    expect((await call('GET', `/api/v1/charges/${pending.id}`)).body.status).toBe('paid');
  });

  it('split to another seller of the demo tenant, shown on retrieval; buyer.ip is the address the gateway saw', async () => {
    // Proves the split with a recipient the directory announced, and the client IP signed by the gateway:
    // the socket's (no TRUSTED_PROXIES), not the X-Forwarded-For the client wrote.
    const seller = await admin('POST', `/admin/v1/tenants/${system.demo!.tenantId}/sellers`, {
      name: 'Parceiro',
      document: generateCpf(99),
      kyc_status: 'approved',
    });
    expect(seller.status).toBe(201);
    const body = {
      buyer,
      amount: 10_001,
      payment_method: 'PIX',
      split: [{ recipient_seller_id: seller.body.id, percentage_bps: 3_333 }],
    };
    // The recipient reaches charges' copy of the directory through the bus (contract §4b).
    const created = await waitFor(
      async () => {
        const res = await call('POST', '/api/v1/charges', {
          body,
          headers: { 'x-forwarded-for': '198.51.100.23' },
        });
        return res.status === 201 ? res.body : undefined;
      },
      5_000,
      'the new seller to reach charges',
    );
    expect(created.buyer.ip).toBe('127.0.0.1');
    const read = (await call('GET', `/api/v1/charges/${created.id}`)).body;
    expect(read.split).toEqual([{ recipient_seller_id: seller.body.id, amount_cents: 3_333 }]);
  });

  it('a key without a seller cannot take Pix, and another tenant cannot see the demo’s charges', async () => {
    // Proves the seller rule for Pix and boleto, and tenant isolation through the gateway.
    const tenantKey = await admin('POST', '/admin/v1/api-keys', {
      tenant_id: system.demo!.tenantId,
      environment: 'test',
      permissions: ['charges:create', 'charges:read'],
    });
    const refused = await call('POST', '/api/v1/charges', {
      bearer: tenantKey.body.secret,
      body: { buyer, amount: 100, payment_method: 'PIX' },
    });
    expect([refused.status, refused.body.error.code]).toEqual([403, 'seller_scope_required']);

    const mine = await charge({ amount: 100, payment_method: 'PIX' });
    const tenant = await admin('POST', '/admin/v1/tenants', { name: `Other ${Date.now()}` });
    const otherKey = await admin('POST', '/admin/v1/api-keys', {
      tenant_id: tenant.body.id,
      environment: 'test',
      permissions: ['charges:read', 'refunds:create', 'chargebacks:read'],
    });
    const foreign = await call('GET', `/api/v1/charges/${mine.id}`, {
      bearer: otherKey.body.secret,
    });
    expect([foreign.status, foreign.body.error.code]).toEqual([404, 'resource_not_found']);
    const live = await admin('POST', '/admin/v1/api-keys', {
      tenant_id: system.demo!.tenantId,
      seller_id: system.demo!.sellerId,
      environment: 'live',
      permissions: ['charges:read'],
    });
    expect(
      (await call('GET', `/api/v1/charges/${mine.id}`, { bearer: live.body.secret })).status,
    ).toBe(404);
    expect(
      (await call('GET', '/api/v1/chargebacks', { bearer: otherKey.body.secret })).body.total,
    ).toBe(0);
  });
});

describe('Idempotency-Key scope through the gateway (contract §3)', () => {
  it("two sellers' keys of one tenant, same Idempotency-Key and body: two charges, each seller sees only its own", async () => {
    // Proves a seller-scoped key has a namespace of its own: the second seller is not answered with the
    // first seller's charge (and its buyer).
    const seller = await admin('POST', `/admin/v1/tenants/${system.demo!.tenantId}/sellers`, {
      name: 'Outra Loja',
      document: generateCpf(77),
      kyc_status: 'approved',
    });
    expect(seller.status).toBe(201);
    const otherKey = (
      await admin('POST', '/admin/v1/api-keys', {
        tenant_id: system.demo!.tenantId,
        seller_id: seller.body.id,
        environment: 'test',
        permissions: ['charges:create', 'charges:read'],
      })
    ).body.secret;
    const headers = { 'idempotency-key': `shared-${Date.now()}` };
    const body = { buyer, amount: 1_234, payment_method: 'PIX' };
    const mine = await call('POST', '/api/v1/charges', { body, headers });
    const theirs = await call('POST', '/api/v1/charges', { bearer: otherKey, body, headers });
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.body.id).not.toBe(mine.body.id);
    expect(
      (await call('GET', `/api/v1/charges/${mine.body.id}`, { bearer: otherKey })).status,
    ).toBe(404);
    expect((await call('GET', `/api/v1/charges/${theirs.body.id}`)).status).toBe(404);
    expect(
      (await call('GET', `/api/v1/charges/${theirs.body.id}`, { bearer: otherKey })).status,
    ).toBe(200);
    // Each seller's retry is a replay of its own charge.
    const retried = await call('POST', '/api/v1/charges', { bearer: otherKey, body, headers });
    expect([retried.headers.get('idempotent-replayed'), retried.body.id]).toEqual([
      'true',
      theirs.body.id,
    ]);
  });

  it('a refund sent again on the percent-encoded path with the same key replays the first refund: nothing is refunded twice', async () => {
    // Proves the key's path is canonical: `/charges/%63h_…/refund` is `/charges/ch_…/refund`.
    const paid = await charge({
      amount: 10_000,
      payment_method: 'CREDIT_CARD',
      installments: 1,
      card_token: await tokenize(),
      security_code: '123',
    });
    const headers = { 'idempotency-key': `refund-${paid.id}` };
    const first = await call('POST', `/api/v1/charges/${paid.id}/refund`, {
      body: { amount_cents: 4_000 },
      headers,
    });
    const encoded = await call(
      'POST',
      `/api/v1/charges/%63h_${paid.id.slice('ch_'.length)}/refund`,
      { body: { amount_cents: 4_000 }, headers },
    );
    expect([first.status, encoded.status]).toEqual([201, 201]);
    expect(encoded.headers.get('idempotent-replayed')).toBe('true');
    expect(encoded.body.id).toBe(first.body.id);
    // 6 000 are left to refund, not 2 000.
    const rest = await call('POST', `/api/v1/charges/${paid.id}/refund`, {
      body: { amount_cents: 6_000 },
    });
    expect([rest.status, rest.body.amount_cents]).toEqual([201, 6_000]);
    expect((await call('GET', `/api/v1/charges/${paid.id}`)).body.status).toBe('refunded');
  });
});
