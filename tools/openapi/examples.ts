import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { crc16CcittFalse, generateCnpj } from '@pgw/domain';
import { WEBHOOK_KINDS } from '@pgw/contracts';
import { REFUND_DECLINED_CARD } from '@pgw/acquirer-simulator';
import { PERMISSIONS } from '../../apps/gateway/src/auth/permissions';
import { PARKING_SERVICES } from '../../apps/gateway/src/routes.table';
import { BUYER } from '../../apps/all-in-one/src/e2e.scenarios';
import { TEST_CARDS } from './introduction';

// The documents' examples are real answers: an integrator's day driven through the all-in-one's gateway
// (the one captureRoutes starts, on a clock stopped at EXAMPLES_NOW), each request and answer recorded
// under its route. What differs from one run to the next is made stable afterwards: every id, secret and
// request id is renamed in order of first appearance (ch_0000000000000001, …), and every instant becomes
// EXAMPLES_NOW, so that the committed documents compare equal to a fresh generation.

export const EXAMPLES_NOW = new Date('2026-03-02T12:00:00.000Z');

export interface Exchange {
  /** What the example shows, e.g. `card` or `pix`. */
  name: string;
  status: number;
  request?: unknown;
  response: unknown;
}

export interface Examples {
  /** By route, `METHOD url` as the routes table writes it. */
  routes: Record<string, Exchange[]>;
  /** A delivered event body of each webhook kind the day caused. */
  events: Record<string, unknown>;
}

/** How long the day waits for the events to reach other services (the in-process bus: moments). */
const EVENTS_WAIT_MS = 20_000;

const cardOf = (number: string) => ({
  card: { number, exp_month: 12, exp_year: 2031, cvv: '123', holder_name: 'MARIA OLIVEIRA' },
});

async function waitFor<T>(probe: () => Promise<T | undefined>, what: string): Promise<T> {
  const deadline = Date.now() + EVENTS_WAIT_MS;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`examples: gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

class Recorder {
  readonly routes: Record<string, Exchange[]> = {};
  apiKey = '';

  constructor(
    private readonly url: string,
    private readonly adminToken: string,
  ) {}

  /**
   * Calls `path` and records the exchange under `route` as `name` (unless name is null); answers the body.
   * `expected` is the status the day needs: anything else throws, so a broken example never lands.
   */
  // The day reads the answers' fields by name, as an integrator's script would; a field that is not there
  // fails the next call's status check.
  async call(
    route: string,
    path: string,
    name: string | null,
    expected: number,
    options: { body?: unknown; headers?: Record<string, string>; bearer?: string | null } = {},
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
  ): Promise<any> {
    const [method] = route.split(' ');
    const admin = route.split(' ')[1]!.startsWith('/admin/');
    const bearer =
      options.bearer === undefined ? (admin ? this.adminToken : this.apiKey) : options.bearer;
    const res = await fetch(`${this.url}${path}`, {
      method,
      headers: {
        ...(bearer !== null ? { authorization: `Bearer ${bearer}` } : {}),
        ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...options.headers,
      },
      ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
    });
    const text = await res.text();
    const body: unknown = text === '' ? null : JSON.parse(text);
    if (res.status !== expected)
      throw new Error(
        `examples: ${route} (${name}) answered ${res.status}, not ${expected}: ${text}`,
      );
    if (name !== null)
      (this.routes[route] ??= []).push({
        name,
        status: res.status,
        ...(options.body !== undefined ? { request: options.body } : {}),
        response: body,
      });
    return body;
  }
}

/** Drives the day against the gateway at `url` and answers its examples, made stable. */
export async function recordExamples(url: string, adminToken: string): Promise<Examples> {
  const events: Array<{ type: string; data: { object: { id: string } } }> = [];
  const receiver = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
    req.on('end', () => {
      events.push(JSON.parse(raw) as (typeof events)[number]);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const r = new Recorder(url, adminToken);
  const hooksUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`;
  try {
    await day(r, hooksUrl, events);
  } finally {
    await new Promise((resolve) => receiver.close(resolve));
  }
  return stabilize(r.routes, events, hooksUrl);
}

async function day(
  r: Recorder,
  hooksUrl: string,
  events: ReadonlyArray<{ type: string; data: { object: { id: string } } }>,
): Promise<void> {
  // The operator provisions a tenant, its seller, a pricing plan, a key and a webhook endpoint.
  const tenant = await r.call('POST /admin/v1/tenants', '/admin/v1/tenants', 'tenant', 201, {
    body: { name: 'Loja Exemplo', treasury_available_cash_cents: 100_000_000 },
  });
  await r.call(
    'PATCH /admin/v1/tenants/:tenant_id',
    `/admin/v1/tenants/${tenant.id}`,
    'treasury',
    200,
    { body: { treasury_available_cash_cents: 200_000_000 } },
  );
  const seller = await r.call(
    'POST /admin/v1/tenants/:tenant_id/sellers',
    `/admin/v1/tenants/${tenant.id}/sellers`,
    'seller',
    201,
    {
      body: {
        name: 'Padaria Exemplo',
        document: generateCnpj(2026),
        kyc_status: 'pending',
        anticipation_limit_cents: 10_000_000,
      },
    },
  );
  const plan = await r.call(
    'POST /admin/v1/tenants/:tenant_id/pricing-plans',
    `/admin/v1/tenants/${tenant.id}/pricing-plans`,
    'plan',
    201,
    {
      body: {
        name: 'Padrão',
        fee_bps_per_month: 199,
        settlement_delay_days: 30,
        mdr_bps: { credit_card: 299, debit_card: 149, pix: 99, boleto: 199 },
      },
    },
  );
  await r.call(
    'PATCH /admin/v1/pricing-plans/:plan_id',
    `/admin/v1/pricing-plans/${plan.id}`,
    'fee',
    200,
    { body: { fee_bps_per_month: 189 } },
  );
  await r.call(
    'PATCH /admin/v1/sellers/:seller_id',
    `/admin/v1/sellers/${seller.id}`,
    'kyc approved',
    200,
    { body: { kyc_status: 'approved', pricing_plan_id: plan.id } },
  );
  const key = await r.call('POST /admin/v1/api-keys', '/admin/v1/api-keys', 'seller key', 201, {
    body: {
      tenant_id: tenant.id,
      seller_id: seller.id,
      environment: 'test',
      permissions: [...PERMISSIONS],
    },
  });
  r.apiKey = key.secret;
  const endpoint = await r.call(
    'POST /admin/v1/tenants/:tenant_id/webhook-endpoints',
    `/admin/v1/tenants/${tenant.id}/webhook-endpoints`,
    'every event',
    201,
    { body: { url: hooksUrl } },
  );
  // The tenant's lists, each of one item (GET /admin/v1/tenants is not recorded: tenants made in the stopped
  // clock's one instant are ordered by their random ids, which would change the document at every run).
  await r.call(
    'GET /admin/v1/tenants/:tenant_id/sellers',
    `/admin/v1/tenants/${tenant.id}/sellers`,
    'page',
    200,
  );
  await r.call(
    'GET /admin/v1/tenants/:tenant_id/pricing-plans',
    `/admin/v1/tenants/${tenant.id}/pricing-plans`,
    'page',
    200,
  );
  await r.call(
    'GET /admin/v1/tenants/:tenant_id/api-keys',
    `/admin/v1/tenants/${tenant.id}/api-keys`,
    'page',
    200,
  );
  await r.call(
    'GET /admin/v1/tenants/:tenant_id/webhook-endpoints',
    `/admin/v1/tenants/${tenant.id}/webhook-endpoints`,
    'page',
    200,
  );

  // Errors an integrator meets first.
  await r.call('GET /api/v1/balance', '/api/v1/balance', 'api_key_missing', 401, { bearer: null });
  await r.call(
    'POST /api/v1/payment-methods/tokenize',
    '/api/v1/payment-methods/tokenize',
    'card_number_invalid',
    422,
    { body: cardOf('4111 1111 1111 1112') },
  );

  // A card sale: tokenize, charge (idempotent), read, refund in part, replay and misuse of the key.
  const token = await r.call(
    'POST /api/v1/payment-methods/tokenize',
    '/api/v1/payment-methods/tokenize',
    'visa',
    201,
    { body: cardOf('4111 1111 1111 1111') },
  );
  const sale = {
    amount: 30_000,
    payment_method: 'CREDIT_CARD',
    installments: 3,
    card_token: token.id,
    security_code: '123',
    buyer: BUYER,
  };
  const charge = await r.call('POST /api/v1/charges', '/api/v1/charges', 'card', 201, {
    body: sale,
    headers: { 'idempotency-key': 'order-1001' },
  });
  await r.call('POST /api/v1/charges', '/api/v1/charges', 'idempotency_key_reused', 409, {
    body: { ...sale, amount: 31_000 },
    headers: { 'idempotency-key': 'order-1001' },
  });
  await r.call('GET /api/v1/charges/:id', `/api/v1/charges/${charge.id}`, 'paid', 200);
  await r.call(
    'GET /api/v1/charges/:id',
    '/api/v1/charges/ch_doesnotexist',
    'resource_not_found',
    404,
  );
  await r.call(
    'POST /api/v1/charges/:id/refund',
    `/api/v1/charges/${charge.id}/refund`,
    'partial',
    201,
    { body: { amount_cents: 1_000, reason: 'damaged item' } },
  );
  await r.call(
    'POST /api/v1/charges/:id/refund',
    `/api/v1/charges/${charge.id}/refund`,
    'refund_amount_exceeds_remaining',
    422,
    { body: { amount_cents: 30_000 } },
  );
  await r.call(
    'GET /api/v1/charges/:id/refunds',
    `/api/v1/charges/${charge.id}/refunds`,
    'one partial refund',
    200,
  );
  await r.call(
    'GET /api/v1/charges/:id/events',
    `/api/v1/charges/${charge.id}/events`,
    'created, paid, refunded in part',
    200,
  );

  // The schedule, the balance, an anticipation and a payout, while the sale is the seller's only one: its
  // three receivables have distinct due dates, so every list answers them in the same order on every run.
  await waitFor(async () => {
    const page = await r.call('GET /api/v1/receivables', '/api/v1/receivables', null, 200);
    return page.total === 3 ? page : undefined;
  }, 'the receivables of the card charges');
  const receivables = await r.call(
    'GET /api/v1/receivables',
    '/api/v1/receivables?limit=3',
    'page',
    200,
  );
  await r.call(
    'GET /api/v1/receivables/:id',
    `/api/v1/receivables/${receivables.data[0].id}`,
    'pending',
    200,
  );
  await waitFor(async () => {
    const answer = await r.call(
      'POST /api/v1/anticipations/simulate',
      '/api/v1/anticipations/simulate',
      null,
      200,
    );
    return answer.eligible_receivable_count === 3 ? answer : undefined;
  }, 'the receivables to reach anticipation');
  await r.call(
    'POST /api/v1/anticipations/simulate',
    '/api/v1/anticipations/simulate',
    'every pending receivable',
    200,
  );
  const anticipation = await r.call(
    'POST /api/v1/anticipations',
    '/api/v1/anticipations',
    'every pending receivable',
    201,
    { headers: { 'idempotency-key': 'anticipation-0302' } },
  );
  await r.call('GET /api/v1/anticipations', '/api/v1/anticipations', 'page', 200);
  await r.call(
    'GET /api/v1/anticipations/:id',
    `/api/v1/anticipations/${anticipation.id}`,
    'succeeded',
    200,
  );
  await waitFor(async () => {
    const balance = await r.call('GET /api/v1/balance', '/api/v1/balance', null, 200);
    return balance.available_cents > 0 ? balance : undefined;
  }, 'the ledger to book the anticipation');
  await r.call('GET /api/v1/balance', '/api/v1/balance', 'after an anticipation', 200);
  await r.call('GET /api/v1/balance/history', '/api/v1/balance/history?limit=5', 'page', 200);
  const today = EXAMPLES_NOW.toISOString().slice(0, 10);
  await r.call(
    'POST /admin/v1/jobs/receivables-release',
    '/admin/v1/jobs/receivables-release',
    'today',
    200,
    { body: { as_of_date: today } },
  );
  await r.call(
    'POST /admin/v1/jobs/settlement-run',
    '/admin/v1/jobs/settlement-run',
    'today',
    200,
    { body: { as_of_date: today } },
  );
  const settlements = await waitFor(async () => {
    const page = await r.call('GET /api/v1/settlements', '/api/v1/settlements', null, 200);
    return page.total >= 1 ? page : undefined;
  }, 'a settlement');
  await r.call('GET /api/v1/settlements', '/api/v1/settlements', 'page', 200);
  await r.call(
    'GET /api/v1/settlements/:id',
    `/api/v1/settlements/${settlements.data[0].id}`,
    'one',
    200,
  );

  // Then a manual capture, a Pix charge paid in the simulator, and each test card's outcome as the introduction says.
  const held = await r.call('POST /api/v1/charges', '/api/v1/charges', 'manual capture', 201, {
    body: { ...sale, amount: 5_000, installments: 1, capture_method: 'manual' },
  });
  await r.call(
    'POST /api/v1/charges/:id/capture',
    `/api/v1/charges/${held.id}/capture`,
    'captured',
    200,
  );
  await r.call(
    'POST /api/v1/charges/:id/capture',
    `/api/v1/charges/${held.id}/capture`,
    'charge_not_capturable',
    422,
  );
  const pix = await r.call('POST /api/v1/charges', '/api/v1/charges', 'pix', 201, {
    body: { amount: 2_500, payment_method: 'PIX', pix: { expires_in: 3_600 }, buyer: BUYER },
  });
  await r.call(
    'POST /admin/v1/simulations/charges/:charge_id/pay',
    `/admin/v1/simulations/charges/${pix.id}/pay`,
    'pix paid',
    200,
  );
  for (const card of TEST_CARDS) {
    const tested = await r.call(
      'POST /api/v1/payment-methods/tokenize',
      '/api/v1/payment-methods/tokenize',
      null,
      201,
      { body: cardOf(card.number) },
    );
    const answer = await r.call(
      'POST /api/v1/charges',
      '/api/v1/charges',
      card.status === 'refused' && card.refusedReason === 'card_declined' ? 'refused' : null,
      201,
      {
        body: { ...sale, amount: 1_000, installments: 1, card_token: tested.id },
      },
    );
    const seen = {
      brand: tested.brand,
      status: answer.status,
      refusedReason: answer.refused_reason ?? undefined,
      returnCode: answer.acquirer_return_code ?? undefined,
    };
    const said = {
      brand: card.brand,
      status: card.status,
      refusedReason: card.refusedReason,
      returnCode: card.status === 'paid' ? seen.returnCode : card.returnCode,
    };
    if (JSON.stringify(seen) !== JSON.stringify(said))
      throw new Error(
        `test card ${card.number}: the introduction says ${JSON.stringify(said)}, the simulator answered ${JSON.stringify(seen)}`,
      );
  }

  // The rest of contract §7's events: a refund in full, a refund the acquirer declines, a Pix charge that
  // expires unpaid, and a chargeback lost.
  const refundable = await r.call('POST /api/v1/charges', '/api/v1/charges', null, 201, {
    body: { ...sale, amount: 2_000, installments: 1 },
  });
  await r.call(
    'POST /api/v1/charges/:id/refund',
    `/api/v1/charges/${refundable.id}/refund`,
    'full',
    201,
  );
  const declining = await r.call(
    'POST /api/v1/payment-methods/tokenize',
    '/api/v1/payment-methods/tokenize',
    null,
    201,
    { body: cardOf(REFUND_DECLINED_CARD) },
  );
  const undone = await r.call('POST /api/v1/charges', '/api/v1/charges', null, 201, {
    body: { ...sale, amount: 1_500, installments: 1, card_token: declining.id },
  });
  await r.call(
    'POST /api/v1/charges/:id/refund',
    `/api/v1/charges/${undone.id}/refund`,
    'declined by the acquirer',
    201,
  );
  const lapsing = await r.call('POST /api/v1/charges', '/api/v1/charges', null, 201, {
    body: { amount: 1_200, payment_method: 'PIX', pix: { expires_in: 60 }, buyer: BUYER },
  });
  const tomorrow = new Date(EXAMPLES_NOW.getTime() + 86_400_000).toISOString().slice(0, 10);
  await r.call('POST /admin/v1/jobs/pix-expiry', '/admin/v1/jobs/pix-expiry', 'tomorrow', 200, {
    body: { as_of_date: tomorrow },
  });
  const lapsed = await r.call(
    'GET /api/v1/charges/:id',
    `/api/v1/charges/${lapsing.id}`,
    null,
    200,
  );
  if (lapsed.status !== 'canceled')
    throw new Error(`examples: the Pix charge is ${lapsed.status} after pix-expiry, not canceled`);
  const disputed = await r.call('POST /api/v1/charges', '/api/v1/charges', null, 201, {
    body: { ...sale, amount: 4_000, installments: 1 },
  });
  const lost = await r.call(
    'POST /admin/v1/simulations/chargebacks',
    '/admin/v1/simulations/chargebacks',
    null,
    201,
    { body: { charge_id: disputed.id, reason_code: '4853' } },
  );
  await r.call(
    'POST /admin/v1/simulations/chargebacks/:cb_id/resolve',
    `/admin/v1/simulations/chargebacks/${lost.id}/resolve`,
    'lost',
    200,
    { body: { outcome: 'lost' } },
  );

  // A chargeback, opened and won.
  const won = await r.call(
    'POST /admin/v1/simulations/chargebacks',
    '/admin/v1/simulations/chargebacks',
    'opened',
    201,
    { body: { charge_id: held.id, reason_code: '4837' } },
  );
  await r.call(
    'POST /admin/v1/simulations/chargebacks/:cb_id/resolve',
    `/admin/v1/simulations/chargebacks/${won.id}/resolve`,
    'won',
    200,
    { body: { outcome: 'won' } },
  );
  await r.call('GET /api/v1/chargebacks', '/api/v1/chargebacks?limit=10', 'page', 200);
  await r.call('GET /api/v1/chargebacks/:id', `/api/v1/chargebacks/${won.id}`, 'won', 200);
  // One Pix charge: the examples' clock is stopped, so charges created together tie on created_at.
  await r.call(
    'GET /api/v1/charges',
    '/api/v1/charges?payment_method=pix&status=paid',
    'page',
    200,
  );

  // The operator's side of webhooks, the other jobs, the simulator's modes and the parked events.
  // Every kind is awaited before the endpoint goes, so that each run records the same events.
  await waitFor(
    async () =>
      WEBHOOK_KINDS.every((kind) => events.some((e) => e.type === kind)) ? true : undefined,
    'a webhook of every kind',
  );
  const deliveries = await r.call(
    'GET /admin/v1/webhook-endpoints/:id/deliveries',
    `/admin/v1/webhook-endpoints/${endpoint.id}/deliveries?limit=2`,
    'page',
    200,
  );
  await r.call(
    'GET /admin/v1/webhook-deliveries/:id',
    `/admin/v1/webhook-deliveries/${deliveries.data[0].id}`,
    'delivered',
    200,
  );
  await r.call(
    'POST /admin/v1/webhook-deliveries/:id/redeliver',
    `/admin/v1/webhook-deliveries/${deliveries.data[0].id}/redeliver`,
    'again',
    200,
  );
  await r.call(
    'POST /admin/v1/webhook-endpoints/:id/rotate-secret',
    `/admin/v1/webhook-endpoints/${endpoint.id}/rotate-secret`,
    'new secret',
    200,
  );
  for (const job of ['authorization-expiry', 'pix-expiry', 'refund-reconciliation'])
    await r.call(`POST /admin/v1/jobs/${job}`, `/admin/v1/jobs/${job}`, 'today', 200, {
      body: { as_of_date: today },
    });
  await r.call(
    'POST /admin/v1/simulations/provider',
    '/admin/v1/simulations/provider',
    'normal',
    200,
    { body: { mode: 'normal' } },
  );
  for (const service of PARKING_SERVICES) {
    await r.call(
      `GET /admin/v1/services/${service}/dead-letters`,
      `/admin/v1/services/${service}/dead-letters`,
      'none',
      200,
    );
    await r.call(
      `POST /admin/v1/services/${service}/dead-letters/replay`,
      `/admin/v1/services/${service}/dead-letters/replay`,
      'none',
      200,
    );
  }
  await r.call('DELETE /admin/v1/api-keys/:key_id', `/admin/v1/api-keys/${key.id}`, 'revoked', 200);
  await r.call('GET /api/v1/balance', '/api/v1/balance', 'api_key_revoked', 401);
  await r.call(
    'DELETE /admin/v1/webhook-endpoints/:id',
    `/admin/v1/webhook-endpoints/${endpoint.id}`,
    'deleted',
    200,
  );
}

// An id, key or secret: a lower-case prefix and at least 16 random base62 characters, which (unlike a word
// such as partially_refunded) hold a digit or a capital.
const ID = /\b(sk_test|sk_live|[a-z]+)_(?=[a-z]*[A-Z0-9])([A-Za-z0-9]{16,})\b/g;
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
/** Values the simulator draws at random, by field, renamed like ids (they also appear inside a Pix code). */
const DRAWN = new Set(['authorization_code', 'acquirer_transaction_id']);
/**
 * Measured or drawn, and shown as this value: a latency, and the end of a key's secret (the day's one key,
 * whose secret is renamed sk_test_…0001, so its end agrees with it).
 */
const SHOWN_AS: Readonly<Record<string, number | string>> = {
  latency_ms: 20,
  secret_last4: '0001',
};
const PIX_CRC = /^(000201.*6304)[0-9A-F]{4}$/;

function stabilize(
  routes: Record<string, Exchange[]>,
  events: ReadonlyArray<{ type: string; data: { object: { id: string } } }>,
  hooksUrl: string,
): Examples {
  const renamed = new Map<string, string>();
  const counters = new Map<string, number>();
  const next = (prefix: string, length: number) => {
    const n = (counters.get(prefix) ?? 0) + 1;
    counters.set(prefix, n);
    return String(n).padStart(length, '0');
  };
  const rename = (match: string, prefix: string, rest: string) => {
    if (!renamed.has(match)) renamed.set(match, `${prefix}_${next(prefix, rest.length)}`);
    return renamed.get(match)!;
  };
  const drawn = new Map<string, string>();
  const collect = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(collect);
    else if (value !== null && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) {
        if (DRAWN.has(k) && typeof v === 'string' && !drawn.has(v)) drawn.set(v, next(k, v.length));
        collect(v);
      }
    }
  };
  const text = (value: string): string => {
    if (value === hooksUrl) return 'https://shop.example/webhooks';
    if (INSTANT.test(value)) return EXAMPLES_NOW.toISOString();
    let out = value.replace(ID, rename);
    for (const [from, to] of drawn) out = out.split(from).join(to);
    // A Pix code whose transaction id was renamed keeps a valid checksum.
    const pix = PIX_CRC.exec(out);
    return pix !== null && out !== value ? `${pix[1]}${crc16CcittFalse(pix[1]!)}` : out;
  };
  const stable = (value: unknown): unknown => {
    if (typeof value === 'string') return text(value);
    if (Array.isArray(value)) return value.map(stable);
    if (value !== null && typeof value === 'object')
      return Object.fromEntries(
        Object.entries(value).map(([k, v]) => [
          k,
          k in SHOWN_AS && (typeof v === 'number' || typeof v === 'string')
            ? SHOWN_AS[k]
            : stable(v),
        ]),
      );
    return value;
  };
  const order = Object.keys(routes).sort();
  for (const route of order) collect(routes[route]);
  const stableRoutes = Object.fromEntries(
    order.map((route) => [route, routes[route]!.map((e) => stable(e) as Exchange)]),
  );
  // One event of each kind: of several (a charge.paid per sale), the one about the resource named first.
  const chosen: Record<string, unknown> = {};
  for (const type of [...new Set(events.map((e) => e.type))].sort()) {
    const candidates = events
      .filter((e) => e.type === type)
      .map((e) => ({ about: stable(e.data.object.id) as string, event: e }));
    candidates.sort((a, b) => a.about.localeCompare(b.about));
    collect(candidates[0]!.event);
    chosen[type] = stable(candidates[0]!.event);
  }
  return { routes: stableRoutes, events: chosen };
}
