// The SDK (@pgw/sdk) against the all-in-one, as an integrator uses it: every public operation of
// docs/openapi.json once, typed errors, a list read across pages, retries that end in exactly one charge
// (a 503 with Retry-After, a connection dropped after the gateway acted, the acquirer timing out), and a
// real webhook delivery verified with webhooks.constructEvent. Faults between the SDK and the gateway come
// from a small HTTP proxy of this test; the acquirer's from the simulator's fault modes (contract §5).
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import {
  AuthenticationError,
  Gateway,
  GatewayError,
  InvalidRequestError,
  NotFoundError,
  SignatureVerificationError,
  type ChargeCreateParams,
  type RetryPolicy,
  type WebhookEvent,
} from '@pgw/sdk';
import { waitFor } from '@pgw/testing';
import { startAllInOne, type AllInOne } from './all-in-one';
import { BUYER, client } from './e2e.scenarios';

// Short deadlines, so that the acquirer's timeout mode answers within a second.
const ENV = {
  ACQUIRER_TIMEOUT_MS: '500',
  ACQUIRER_SIM_TIMEOUT_DELAY_MS: '1500',
  CHARGES_RECOVERY_INTERVAL_MS: '0',
};
// Fast retries for the test; the bound on attempts is the one under test.
const RETRY: Partial<RetryPolicy> = { retriesMax: 4, delayBaseMs: 20, delayMaxMs: 200 };
const CARD = {
  number: '4111 1111 1111 1111',
  exp_month: 12,
  exp_year: 2031,
  cvv: '123',
  holder_name: 'MARIA OLIVEIRA',
};

let system: AllInOne;
let gateway: Gateway;
const admin = (method: string, path: string, body?: unknown) =>
  client({
    url: system.url,
    adminToken: system.adminToken,
    tenantId: system.demo!.tenantId,
    apiKey: system.demo!.apiKey,
  }).admin(method, path, body);

interface Delivery {
  rawBody: Buffer;
  signature: string | undefined;
  event: WebhookEvent;
}
let receiver: Server;
let webhookSecret: string;
const deliveries: Delivery[] = [];

beforeAll(async () => {
  system = await startAllInOne({
    dataDir: null,
    port: 0,
    demo: true,
    log: { level: 'silent' },
    env: { ...process.env, ...ENV },
  });
  if (system.demo === null) throw new Error('the demo was not provisioned');
  gateway = new Gateway({ apiKey: system.demo.apiKey, baseUrl: system.url, retry: RETRY });
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks);
      deliveries.push({
        rawBody,
        signature: req.headers['x-signature'] as string | undefined,
        event: JSON.parse(rawBody.toString('utf8')),
      });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const endpoint = await admin(
    'POST',
    `/admin/v1/tenants/${system.demo.tenantId}/webhook-endpoints`,
    {
      url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`,
      events: ['charge.paid'],
    },
  );
  expect(endpoint.status).toBe(201);
  webhookSecret = endpoint.body.secret;
}, 120_000);

afterAll(async () => {
  await new Promise((resolve) => receiver?.close(resolve));
  await system?.stop();
});

const cardCharge = (
  token: string,
  amount: number,
  extra: Partial<ChargeCreateParams> = {},
): ChargeCreateParams => ({
  amount,
  payment_method: 'CREDIT_CARD',
  installments: 1,
  card_token: token,
  buyer: BUYER,
  ...extra,
});

/** The thrown GatewayError of `call`, or a failure of the test when it succeeded. */
async function failure(call: Promise<unknown>): Promise<GatewayError> {
  const outcome = await call.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(outcome instanceof GatewayError))
    throw new Error(`expected a GatewayError, got ${String(outcome)}`);
  return outcome;
}

interface Exchange {
  method: string;
  path: string;
  key: string | undefined;
  status: number | 'dropped';
  replayed: string | null;
}

/**
 * A proxy in front of the gateway that records each exchange and lets the test decide, per request,
 * to answer by itself (`respond`), or to forward it and then drop the connection instead of answering.
 */
async function startProxy(
  decide: (
    n: number,
    method: string,
    path: string,
  ) =>
    | 'forward'
    | 'drop-after-forward'
    | { status: number; headers: Record<string, string>; body: unknown },
) {
  const exchanges: Exchange[] = [];
  let n = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        const method = req.method ?? 'GET';
        const path = req.url ?? '/';
        const key = req.headers['idempotency-key'] as string | undefined;
        const decision = decide(n++, method, path);
        if (typeof decision === 'object') {
          exchanges.push({ method, path, key, status: decision.status, replayed: null });
          res
            .writeHead(decision.status, { 'content-type': 'application/json', ...decision.headers })
            .end(JSON.stringify(decision.body));
          return;
        }
        const upstream = await fetch(`${system.url}${path}`, {
          method,
          headers: forwardable(req.headers),
          ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
        });
        const body = Buffer.from(await upstream.arrayBuffer());
        const replayed = upstream.headers.get('idempotent-replayed');
        if (decision === 'drop-after-forward') {
          // The gateway acted and answered; the answer is lost on the way back.
          exchanges.push({ method, path, key, status: 'dropped', replayed });
          req.socket.destroy();
          return;
        }
        exchanges.push({ method, path, key, status: upstream.status, replayed });
        res
          .writeHead(upstream.status, {
            'content-type': upstream.headers.get('content-type') ?? 'application/json',
          })
          .end(body);
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, exchanges, close: () => new Promise((resolve) => server.close(resolve)) };
}

function forwardable(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of ['authorization', 'content-type', 'idempotency-key']) {
    const value = headers[name];
    if (typeof value === 'string') out[name] = value;
  }
  return out;
}

/** Every operation of docs/openapi.json as `METHOD /path/{param}`, and a matcher of concrete URLs to it. */
function documentedOperations(): {
  all: string[];
  of: (method: string, url: string) => string | undefined;
} {
  const document = JSON.parse(
    readFileSync(join(__dirname, '..', '..', '..', 'docs', 'openapi.json'), 'utf8'),
  ) as { paths: Record<string, Record<string, unknown>> };
  const all = Object.entries(document.paths).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))
      .map((m) => `${m.toUpperCase()} ${path}`),
  );
  const patterns = all.map((op) => ({
    op,
    re: new RegExp(`^${op.replace(/\{[^}]+\}/g, '[^/]+').replace(/\./g, '\\.')}$`),
  }));
  return {
    all,
    of: (method, url) => patterns.find((p) => p.re.test(`${method} ${new URL(url).pathname}`))?.op,
  };
}

describe('@pgw/sdk against the all-in-one', () => {
  it('reaches every public operation of docs/openapi.json', async () => {
    // Proves each SDK method against the real gateway and services, with the answer a user would check,
    // and that together they reach every operation the document lists.
    const operations = documentedOperations();
    const reached = new Set<string>();
    const gateway = new Gateway({
      apiKey: system.demo!.apiKey,
      baseUrl: system.url,
      fetch: (request) => {
        reached.add(
          operations.of(request.method, request.url) ??
            `undocumented ${request.method} ${request.url}`,
        );
        return fetch(request);
      },
    });
    const health = await gateway.health.retrieve();
    expect(health).toMatchObject({ object: 'health', status: 'ok', version: 'v1' });
    const openapi = await gateway.documents.openapi();
    expect(Object.keys(openapi['paths'] as object)).toContain('/api/v1/charges');
    expect((await gateway.documents.asyncapi())['asyncapi']).toEqual(expect.any(String));

    const token = await gateway.tokens.create({ card: CARD });
    expect(token).toMatchObject({ object: 'payment_method_token', brand: 'visa', last4: '1111' });

    const held = await gateway.charges.create(
      cardCharge(token.id, 4_990, { capture_method: 'manual' }),
    );
    expect(held).toMatchObject({ status: 'authorized', captured: false });
    const captured = await gateway.charges.capture(held.id);
    expect(captured).toMatchObject({
      id: held.id,
      status: 'paid',
      captured: true,
      paid_at: expect.any(String),
    });
    expect((await gateway.charges.retrieve(held.id)).status).toBe('paid');
    expect(
      (await gateway.charges.list({ status: 'paid', payment_method: 'credit_card' })).data.map(
        (c) => c.id,
      ),
    ).toContain(held.id);
    const refund = await gateway.charges.refund(held.id, {
      amount_cents: 990,
      reason: 'one item returned',
    });
    expect(refund).toMatchObject({
      object: 'refund',
      status: 'succeeded',
      amount_cents: 990,
      charge_id: held.id,
    });
    expect(
      (await gateway.charges.refunds(held.id)).data.map((r) => [r.id, r.amount_cents]),
    ).toEqual([[refund.id, 990]]);
    const events = (await gateway.charges.events(held.id)).data;
    expect(events.map((e) => e.type)).toEqual(
      expect.arrayContaining(['charge.paid', 'refund.succeeded']),
    );

    // Three installments: three receivables, due after today, that the anticipation will take.
    const sale = await gateway.charges.create(cardCharge(token.id, 30_000, { installments: 3 }));
    expect(sale.status).toBe('paid');
    const balance = await waitFor(
      async () => {
        const b = await gateway.balance.retrieve();
        return b.pending_cents > 0 ? b : undefined;
      },
      10_000,
      'the ledger to book the sale',
    );
    expect(balance).toMatchObject({ object: 'balance', currency: 'BRL' });
    const history = await gateway.balance.history({ limit: 5 });
    expect(history).toMatchObject({ object: 'list', page: 1, limit: 5 });
    expect(history.data.length).toBeGreaterThan(0);

    const receivables = await waitFor(
      async () => {
        const page = await gateway.receivables.list({ status: 'pending', limit: 100 });
        return page.data.filter((r) => r.charge_id === sale.id).length === 3 ? page : undefined;
      },
      10_000,
      'the sale’s receivables',
    );
    const first = receivables.data.find((r) => r.charge_id === sale.id)!;
    expect(await gateway.receivables.retrieve(first.id)).toMatchObject({
      id: first.id,
      object: 'receivable',
      status: 'pending',
    });

    const simulation = await waitFor(
      async () => {
        const s = await gateway.anticipations.simulate();
        return s.eligible_receivable_count >= 3 ? s : undefined;
      },
      10_000,
      'the receivables to be eligible',
    );
    expect(simulation).toMatchObject({
      object: 'anticipation_simulation',
      exposure: { within_limit: true },
    });
    const anticipation = await gateway.anticipations.create({
      receivable_ids: receivables.data.filter((r) => r.charge_id === sale.id).map((r) => r.id),
    });
    expect(anticipation).toMatchObject({ object: 'anticipation', status: 'succeeded' });
    expect((await gateway.anticipations.list()).data.map((a) => a.id)).toContain(anticipation.id);
    expect((await gateway.anticipations.retrieve(anticipation.id)).id).toBe(anticipation.id);

    // The anticipated receivables are available at once: the settlement run pays them out.
    await waitFor(
      async () =>
        (await gateway.receivables.list({ status: 'available' })).total > 0 ? true : undefined,
      10_000,
      'available receivables',
    );
    expect((await admin('POST', '/admin/v1/jobs/settlement-run')).status).toBe(200);
    const settlements = await waitFor(
      async () => {
        const page = await gateway.settlements.list({ status: 'paid' });
        return page.data.length > 0 ? page : undefined;
      },
      10_000,
      'a paid settlement',
    );
    expect(await gateway.settlements.retrieve(settlements.data[0]!.id)).toMatchObject({
      object: 'settlement',
      status: 'paid',
    });

    const opened = await admin('POST', '/admin/v1/simulations/chargebacks', {
      charge_id: held.id,
      reason_code: '4853',
    });
    expect(opened.status).toBe(201);
    expect((await gateway.chargebacks.list()).data.map((c) => c.id)).toContain(opened.body.id);
    expect(await gateway.chargebacks.retrieve(opened.body.id)).toMatchObject({
      status: 'open',
      charge_id: held.id,
    });

    expect([...reached].sort()).toEqual([...operations.all].sort());
  });

  it('throws errors typed by the body’s type and code', async () => {
    // Proves the mapping of contract §2 to classes, with the code, param and request id a user reports.
    const missing = await failure(gateway.charges.retrieve('ch_doesnotexist'));
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing).toMatchObject({
      type: 'not_found_error',
      code: 'resource_not_found',
      status: 404,
      requestId: expect.stringMatching(/^req_/),
    });

    const invalid = await failure(
      gateway.tokens.create({ card: { ...CARD, number: '4111 1111 1111 1112' } }),
    );
    expect(invalid).toBeInstanceOf(InvalidRequestError);
    expect(invalid.code).toBe('card_number_invalid');

    const token = await gateway.tokens.create({ card: CARD });
    const paid = await gateway.charges.create(cardCharge(token.id, 1_000));
    const over = await failure(
      gateway.charges.refund(
        paid.id,
        { amount_cents: 1_001 },
        { idempotencyKey: `over-${paid.id}` },
      ),
    );
    expect(over).toMatchObject({
      type: 'invalid_request_error',
      code: 'refund_amount_exceeds_remaining',
      idempotencyKey: `over-${paid.id}`,
    });

    const stranger = new Gateway({ apiKey: 'sk_test_not_a_real_key', baseUrl: system.url });
    const denied = await failure(stranger.balance.retrieve());
    expect(denied).toBeInstanceOf(AuthenticationError);
    expect(denied.code).toBe('api_key_invalid');
  });

  it('iterates a list across pages with for await', async () => {
    // Proves the async iterator: pages of 2 give the same receivables, in the same order, as one page of 100.
    const token = await gateway.tokens.create({ card: CARD });
    await gateway.charges.create(cardCharge(token.id, 9_000, { installments: 3 }));
    const all = await waitFor(
      async () => {
        const page = await gateway.receivables.list({ limit: 100 });
        return page.total >= 5 ? page : undefined;
      },
      10_000,
      'five receivables',
    );
    const firstPage = await gateway.receivables.list({ limit: 2 });
    expect(firstPage.total_pages).toBeGreaterThan(2);
    const ids: string[] = [];
    for await (const receivable of gateway.receivables.list({ limit: 2 })) ids.push(receivable.id);
    expect(ids).toEqual(all.data.map((r) => r.id));
  });

  it('retries a 503 with its Retry-After and the same key: one charge', async () => {
    // Proves the retry after load shedding: the gateway sees the second attempt only, with the first's key.
    const proxy = await startProxy((n, method) =>
      n === 0 && method === 'POST'
        ? {
            status: 503,
            headers: { 'retry-after': '1' },
            body: {
              error: {
                type: 'api_error',
                code: 'service_unavailable',
                message: 'busy',
                param: null,
              },
              request_id: 'req_proxy',
            },
          }
        : 'forward',
    );
    try {
      const token = await gateway.tokens.create({ card: CARD });
      const started = Date.now();
      const charge = await new Gateway({
        apiKey: system.demo!.apiKey,
        baseUrl: proxy.url,
        retry: RETRY,
      }).charges.create(cardCharge(token.id, 2_101));
      expect(Date.now() - started).toBeGreaterThanOrEqual(990);
      expect(charge.status).toBe('paid');
      expect(proxy.exchanges.map((e) => e.status)).toEqual([503, 201]);
      expect(proxy.exchanges[0]!.key).toMatch(/^sdk_/);
      expect(proxy.exchanges[1]!.key).toBe(proxy.exchanges[0]!.key);
    } finally {
      await proxy.close();
    }
  });

  it('retries a connection dropped after the gateway charged: the retry is the replay of that one charge', async () => {
    // Proves that a lost answer is recovered without a second charge: the gateway replays the first.
    const proxy = await startProxy((n, method) =>
      n === 0 && method === 'POST' ? 'drop-after-forward' : 'forward',
    );
    try {
      const token = await gateway.tokens.create({ card: CARD });
      const charge = await new Gateway({
        apiKey: system.demo!.apiKey,
        baseUrl: proxy.url,
        retry: RETRY,
      }).charges.create(cardCharge(token.id, 2_202));
      expect(charge.status).toBe('paid');
      expect(proxy.exchanges.map((e) => [e.status, e.replayed])).toEqual([
        ['dropped', null],
        [201, 'true'],
      ]);
      expect(proxy.exchanges[1]!.key).toBe(proxy.exchanges[0]!.key);
      // The webhook of the sale arrives once, for the charge the SDK returned.
      await waitFor(
        () => (deliveries.some((d) => d.event.data.object.id === charge.id) ? true : undefined),
        10_000,
        'the charge.paid delivery',
      );
      expect(
        deliveries
          .filter((d) => d.event.data.object['amount_cents'] === 2_202)
          .map((d) => d.event.data.object.id),
      ).toEqual([charge.id]);
    } finally {
      await proxy.close();
    }
  });

  it('outlasts the acquirer timing out: attempts cut short and 409 idempotency_key_in_use end in one charge', async () => {
    // Proves the retry of a client timeout while the gateway still works on the first attempt.
    const proxy = await startProxy(() => 'forward');
    const impatient = new Gateway({
      apiKey: system.demo!.apiKey,
      baseUrl: proxy.url,
      retry: { ...RETRY, retriesMax: 8, timeoutMs: 250 },
    });
    const token = await gateway.tokens.create({ card: CARD });
    expect(
      (await admin('POST', '/admin/v1/simulations/provider', { mode: 'timeout' })).status,
    ).toBe(200);
    try {
      const charge = await impatient.charges.create(cardCharge(token.id, 2_303));
      // The acquirer did not answer in time: the charge waits for reconciliation, once.
      expect(charge.status).toBe('pending');
      const charges = proxy.exchanges.filter((e) => e.method === 'POST');
      // One attempt made the charge (its answer came after the SDK had given up on it); retries met it still
      // running (409), and the last one got its answer replayed. All with one key.
      expect(charges.filter((e) => e.status === 201 && e.replayed === null)).toHaveLength(1);
      expect(charges.map((e) => e.status)).toContain(409);
      expect(charges.filter((e) => e.replayed === 'true')).toHaveLength(1);
      expect(new Set(charges.map((e) => e.key)).size).toBe(1);
    } finally {
      await admin('POST', '/admin/v1/simulations/provider', { mode: 'normal' });
      await proxy.close();
    }
  });

  it('verifies a real delivery with webhooks.constructEvent, and refuses it altered', async () => {
    // Proves the SDK accepts what the webhooks service signs, over the raw bytes received.
    const token = await gateway.tokens.create({ card: CARD });
    const charge = await gateway.charges.create(cardCharge(token.id, 2_404));
    const delivery = await waitFor(
      () => deliveries.find((d) => d.event.data.object.id === charge.id),
      10_000,
      'the charge.paid delivery',
    );
    const event = gateway.webhooks.constructEvent(
      delivery.rawBody,
      delivery.signature,
      webhookSecret,
      { toleranceSeconds: 300 },
    );
    expect(event).toMatchObject({
      object: 'event',
      type: 'charge.paid',
      data: { object: { id: charge.id, status: 'paid' } },
    });
    const altered = Buffer.from(delivery.rawBody.toString('utf8').replace('"paid"', '"refunded"'));
    expect(() =>
      gateway.webhooks.constructEvent(altered, delivery.signature, webhookSecret),
    ).toThrow(SignatureVerificationError);
    expect(() =>
      gateway.webhooks.constructEvent(delivery.rawBody, delivery.signature, webhookSecret, {
        nowSeconds: Math.floor(Date.now() / 1000) + 600,
      }),
    ).toThrow('timestamp outside tolerance');
  });
});
