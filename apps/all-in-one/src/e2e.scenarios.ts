// End-to-end flows as an integrator drives them, over HTTP against a gateway's base URL alone, so that the
// same checks run against `npm start` (e2e-*.spec.ts, the all-in-one in the test's process) and against
// `npm run start:distributed` (tools/distributed/start.int.spec.ts, every service a process). Each flow
// needs a fresh seller of its own: the demo's (a tenant with the demo treasury, an approved seller with
// the demo anticipation limit, a test key with every permission).
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateCpf } from '@pgw/domain';
import { waitFor } from '@pgw/testing';

/**
 * How long a flow waits for what the events carry to another service: a moment in the all-in-one (the
 * in-process bus), longer in the distributed mode, whose consumers join their Kafka groups after a start.
 */
const EVENTS_WAIT_MS = 30_000;

export interface Target {
  /** The gateway, e.g. http://127.0.0.1:8080. */
  url: string;
  adminToken: string;
  tenantId: string;
  /** A seller-scoped test key with every permission. */
  apiKey: string;
}

export interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

export function client(target: Target) {
  const call = async (
    method: string,
    path: string,
    options: { bearer?: string; body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<Answer> => {
    const res = await fetch(`${target.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${options.bearer ?? target.apiKey}`,
        ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...options.headers,
      },
      ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
    });
    const text = await res.text();
    return {
      status: res.status,
      headers: res.headers,
      body: text === '' ? null : JSON.parse(text),
    };
  };
  const admin = (method: string, path: string, body?: unknown) =>
    call(method, path, { bearer: target.adminToken, ...(body !== undefined ? { body } : {}) });
  return { call, admin };
}

export const BUYER = {
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

/** Tokenizes contract §6's approved Visa test card; its token's id. */
async function tokenizeTestCard(call: ReturnType<typeof client>['call']): Promise<string> {
  const token = await call('POST', '/api/v1/payment-methods/tokenize', {
    body: {
      card: {
        number: '4111 1111 1111 1111',
        exp_month: 12,
        exp_year: 2031,
        cvv: '123',
        holder_name: 'MARIA OLIVEIRA',
      },
    },
  });
  expect(token.status).toBe(201);
  return token.body.id as string;
}

/** tokenize → automatic card charge → partial and full refund: the card sale path and both refund outcomes. */
export async function cardChargeAndRefunds(target: Target): Promise<void> {
  const { call } = client(target);
  const cardToken = await tokenizeTestCard(call);
  const created = await call('POST', '/api/v1/charges', {
    body: {
      buyer: BUYER,
      amount: 10_000,
      payment_method: 'CREDIT_CARD',
      installments: 3,
      card_token: cardToken,
      security_code: '123',
    },
  });
  expect([created.status, created.body.error]).toEqual([201, undefined]);
  const paid = created.body;
  expect(paid).toMatchObject({
    status: 'paid',
    captured: true,
    installments: 3,
    acquirer_code: 'simulator',
    acquirer_return_code: '00',
    paid_at: expect.any(String),
  });
  expect(paid.buyer).toMatchObject({
    phone: '21998765432',
    document_type: 'cpf',
    address: { zip_code: '20040030', country: 'BR' },
  });
  const read = await call('GET', `/api/v1/charges/${paid.id}`);
  expect(read.status).toBe(200);
  expect(read.headers.get('x-request-id')).toBe(read.body.request_id);

  const part = await call('POST', `/api/v1/charges/${paid.id}/refund`, {
    body: { amount_cents: 3_000, reason: 'damaged item' },
  });
  expect(part.status).toBe(201);
  expect(part.body).toMatchObject({
    object: 'refund',
    status: 'succeeded',
    amount_cents: 3_000,
    charge_id: paid.id,
    provider_reference: expect.stringMatching(/^rfd_/),
  });
  expect((await call('GET', `/api/v1/charges/${paid.id}`)).body.status).toBe('partially_refunded');
  const over = await call('POST', `/api/v1/charges/${paid.id}/refund`, {
    body: { amount_cents: 7_001 },
  });
  expect([over.status, over.body.error.code]).toEqual([422, 'refund_amount_exceeds_remaining']);
  const rest = await call('POST', `/api/v1/charges/${paid.id}/refund`);
  expect(rest.body).toMatchObject({ status: 'succeeded', amount_cents: 7_000 });
  expect((await call('GET', `/api/v1/charges/${paid.id}`)).body.status).toBe('refunded');
}

/**
 * tokenize → 3x credit charge → simulate → execute → receivables anticipated and available → balance
 * moved → webhook: the anticipation service prices the receivables the charge created, executes
 * atomically, and receivables, the ledger and webhooks apply its event. The webhook receiver listens on
 * 127.0.0.1 (the gateway must allow private webhook targets, as both local modes do).
 */
export async function anticipationFlow(target: Target): Promise<void> {
  const { call, admin } = client(target);
  const webhooks: Array<{ headers: IncomingMessage['headers']; body: any }> = [];
  const receiver = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
    req.on('end', () => {
      webhooks.push({ headers: req.headers, body: JSON.parse(raw) });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  try {
    const endpoint = await admin('POST', `/admin/v1/tenants/${target.tenantId}/webhook-endpoints`, {
      url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`,
      events: ['anticipation.succeeded'],
    });
    expect(endpoint.status).toBe(201);

    const cardToken = await tokenizeTestCard(call);
    const charge = await call('POST', '/api/v1/charges', {
      body: {
        buyer: BUYER,
        amount: 30_000,
        payment_method: 'CREDIT_CARD',
        installments: 3,
        card_token: cardToken,
      },
    });
    expect([charge.status, charge.body.status]).toEqual([201, 'paid']);

    // Three receivables of 10,000 gross, MDR 299 → net 9,701 each, due D+30, D+60, D+90; the anticipation
    // service hears of them through the events.
    const simulated = await waitFor(
      async () => {
        const res = await call('POST', '/api/v1/anticipations/simulate');
        return res.status === 200 && res.body.eligible_receivable_count === 3 ? res : undefined;
      },
      EVENTS_WAIT_MS,
      'the three receivables to be eligible',
    );
    // 9701 × 199 × 30 / 300000 = 193.05 → 193; × 60 → 386.1 → 386; × 90 → 579.15 → 579.
    expect(
      simulated.body.items.map((i: any) => [
        i.days_anticipated,
        i.gross_amount_cents,
        i.fee_amount_cents,
        i.net_amount_cents,
      ]),
    ).toEqual([
      [30, 9_701, 193, 9_508],
      [60, 9_701, 386, 9_315],
      [90, 9_701, 579, 9_122],
    ]);
    expect(simulated.body).toMatchObject({
      object: 'anticipation_simulation',
      gross_amount_cents: 29_103,
      fee_amount_cents: 1_158,
      net_amount_cents: 27_945,
      fee_bps_per_month: 199,
      settlement_delay_days: 30,
      pricing_plan_id: null,
      exposure: {
        limit_cents: 10_000_000,
        outstanding_cents: 0,
        projected_cents: 29_103,
        within_limit: true,
      },
      treasury: {
        available_cash_cents: 100_000_000,
        requested_cash_out_cents: 27_945,
        within_limit: true,
      },
    });
    expect(simulated.headers.get('x-request-id')).toBe(simulated.body.request_id);
    // The ledger books the charge from the same events, on its own time (contract §4b): the distributed
    // mode's consumers are separate processes.
    const before = await waitFor(
      async () => {
        const res = await call('GET', '/api/v1/balance');
        return res.body.pending_cents === 29_103 ? res.body : undefined;
      },
      EVENTS_WAIT_MS,
      'the ledger to book the charge',
    );
    expect(before).toMatchObject({ pending_cents: 29_103, available_cents: 0 });

    const key = { 'idempotency-key': `ant-${Date.now()}` };
    const executed = await call('POST', '/api/v1/anticipations', { headers: key });
    expect(executed.status).toBe(201);
    expect(executed.body).toMatchObject({
      object: 'anticipation',
      status: 'succeeded',
      gross_amount_cents: 29_103,
      fee_amount_cents: 1_158,
      net_amount_cents: 27_945,
    });
    expect(executed.body.items.map((i: any) => [i.days_anticipated, i.fee_amount_cents])).toEqual([
      [30, 193],
      [60, 386],
      [90, 579],
    ]);
    const replay = await call('POST', '/api/v1/anticipations', { headers: key });
    expect([replay.status, replay.headers.get('idempotent-replayed'), replay.body.id]).toEqual([
      201,
      'true',
      executed.body.id,
    ]);

    // Receivables: the originals anticipated, one available receivable per item for its net, due today.
    const receivables = await waitFor(
      async () => {
        const res = await call('GET', '/api/v1/receivables?limit=100');
        const mine = (res.body.data as any[]).filter((r) => r.charge_id === charge.body.id);
        return mine.filter((r) => r.status === 'anticipated').length === 3 &&
          mine.filter((r) => r.status === 'available').length === 3
          ? mine
          : undefined;
      },
      EVENTS_WAIT_MS,
      'receivables to apply the anticipation',
    );
    const today = new Date().toISOString().slice(0, 10);
    const created = receivables
      .filter((r) => r.status === 'available')
      .sort((a, b) => a.installment - b.installment);
    expect(
      created.map((r) => [r.installment, r.net_amount_cents, r.due_date, r.anticipation_id]),
    ).toEqual([
      [1, 9_508, today, executed.body.id],
      [2, 9_315, today, executed.body.id],
      [3, 9_122, today, executed.body.id],
    ]);
    const originals = receivables
      .filter((x) => x.status === 'anticipated')
      .sort((a, b) => a.installment - b.installment);
    expect(originals.map((r) => [r.id, r.anticipation_id])).toEqual(
      executed.body.receivable_ids.map((id: string) => [id, executed.body.id]),
    );

    // The ledger: pending to available, net of the fee.
    const after = await waitFor(
      async () => {
        const res = await call('GET', '/api/v1/balance');
        return res.body.available_cents === 27_945 ? res.body : undefined;
      },
      EVENTS_WAIT_MS,
      'the ledger to book the anticipation',
    );
    expect(after).toMatchObject({
      pending_cents: 0,
      available_cents: 27_945,
      reserved_cents: 0,
      requestable_cents: 27_945,
    });
    const history = await call('GET', '/api/v1/balance/history');
    expect(history.body.data[0]).toMatchObject({
      type: 'anticipation.executed',
      direction: 'debit',
      amount_cents: 1_158,
    });

    // The anticipation resource, its list, what is left to anticipate, and the treasury spent.
    const read = await call('GET', `/api/v1/anticipations/${executed.body.id}`);
    const { request_id: _r1, ...resource } = executed.body;
    const { request_id: _r2, ...readBack } = read.body;
    expect([read.status, readBack]).toEqual([200, resource]);
    const list = await call('GET', '/api/v1/anticipations?limit=1');
    expect(list.body).toMatchObject({
      object: 'list',
      page: 1,
      limit: 1,
      total: 1,
      total_pages: 1,
      data: [resource],
    });
    const again = await call('POST', '/api/v1/anticipations/simulate');
    expect(again.body).toMatchObject({
      eligible_receivable_count: 0,
      exposure: { outstanding_cents: 29_103 },
      treasury: { available_cash_cents: 100_000_000 - 27_945 },
    });

    // The webhook anticipation.succeeded carries the resource.
    const hook = await waitFor(
      async () => webhooks.find((w) => w.body.type === 'anticipation.succeeded'),
      EVENTS_WAIT_MS,
      'the anticipation.succeeded webhook',
    );
    expect(hook.body).toMatchObject({
      object: 'event',
      type: 'anticipation.succeeded',
      livemode: false,
      data: { object: resource },
    });
    expect(hook.headers['x-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
  } finally {
    await new Promise((resolve) => receiver.close(resolve));
  }
}
