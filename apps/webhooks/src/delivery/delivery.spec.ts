import type { Knex } from 'knex';
import { createPgliteKnex } from '@pgw/platform-db';
import { waitFor } from '@pgw/testing';
import { verifyWebhook } from '@pgw/webhook-signature';
import {
  deliveryOf as deliveryOfAt,
  FAST_ENV,
  newCharge,
  newTenant,
  operatorHeaders,
  publishCharge,
  publishEndpoint,
  Receiver,
  startWebhooks,
  type Harness,
} from '../testing/harness';

// The delivery of contract §7 end to end: the service consumes events from the in-process bus (the same
// Avro bytes as Kafka), and POSTs them to a real HTTP receiver on 127.0.0.1. Back-off in milliseconds
// (FAST_ENV); one embedded PostgreSQL for the file.

const nowSeconds = () => Math.floor(Date.now() / 1000);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('webhook delivery to a real HTTP receiver', () => {
  let knex: Knex;
  let h: Harness;
  let receiver: Receiver;

  beforeAll(async () => {
    knex = createPgliteKnex(null);
    h = await startWebhooks(knex);
    receiver = await Receiver.start();
  });
  afterAll(async () => {
    await h.stop();
    await receiver.stop();
    await knex.destroy();
  });

  const deliveryOf = (endpointId: string, eventId: string) => deliveryOfAt(h, endpointId, eventId);

  it('POSTs the body of contract §7 signed with the endpoint secret, which the helper accepts', async () => {
    const tenantId = newTenant();
    const chargeId = newCharge();
    const endpoint = await publishEndpoint(h.bus, { tenantId, url: receiver.url('/signed') });
    const event = await publishCharge(h.bus, 'charges.charge-paid.v1', {
      tenantId,
      chargeId,
      requestId: 'req_abc',
      occurredAtMs: Date.parse('2026-03-01T12:00:00.123Z'),
    });
    const [received] = await waitFor(
      () =>
        receiver.requestsTo('/signed').length === 1 ? receiver.requestsTo('/signed') : undefined,
      5_000,
      'the delivery',
    );

    expect(received!.headers['content-type']).toBe('application/json');
    const verified = verifyWebhook({
      rawBody: received!.rawBody,
      header: received!.headers['x-signature'],
      secrets: [endpoint.secret],
      nowSeconds: nowSeconds(),
    });
    expect(verified.ok).toBe(true);
    expect(received!.headers['x-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(JSON.parse(received!.rawBody.toString())).toEqual({
      id: event.envelope.event_id,
      object: 'event',
      type: 'charge.paid',
      created_at: '2026-03-01T12:00:00.123Z',
      livemode: false,
      data: { object: JSON.parse(event.resource_json) },
      request_id: 'req_abc',
    });
    expect(Object.keys(received!.event)).toEqual([
      'id',
      'object',
      'type',
      'created_at',
      'livemode',
      'data',
      'request_id',
    ]);
  });

  it('is refused by the helper when the body was tampered with, the timestamp is old, or the secret is another', async () => {
    const tenantId = newTenant();
    const endpoint = await publishEndpoint(h.bus, { tenantId, url: receiver.url('/tamper') });
    await publishCharge(h.bus, 'charges.charge-paid.v1', { tenantId, chargeId: newCharge() });
    const [received] = await waitFor(
      () =>
        receiver.requestsTo('/tamper').length === 1 ? receiver.requestsTo('/tamper') : undefined,
      5_000,
      'the delivery',
    );
    const header = received!.headers['x-signature'];
    const rawBody = received!.rawBody;
    const t = Number(/^t=(\d+)/.exec(String(header))![1]);
    expect(Math.abs(t - nowSeconds())).toBeLessThanOrEqual(5);

    const tampered = Buffer.from(
      rawBody.toString().replace('"amount_cents":10000', '"amount_cents":99999'),
    );
    expect(tampered.equals(rawBody)).toBe(false);
    expect(
      verifyWebhook({ rawBody: tampered, header, secrets: [endpoint.secret], nowSeconds: t }),
    ).toEqual({ ok: false, reason: 'signature_mismatch' });
    expect(
      verifyWebhook({ rawBody, header, secrets: [endpoint.secret], nowSeconds: t + 301 }),
    ).toEqual({ ok: false, reason: 'timestamp_outside_tolerance' });
    expect(
      verifyWebhook({
        rawBody,
        header,
        secrets: ['whsec_not_this_endpoints_secret'],
        nowSeconds: t,
      }),
    ).toEqual({ ok: false, reason: 'signature_mismatch' });
    expect(verifyWebhook({ rawBody, header, secrets: [endpoint.secret], nowSeconds: t }).ok).toBe(
      true,
    );
  });

  it('retries after a 500 with growing delays, signing each attempt afresh, and logs every attempt', async () => {
    const tenantId = newTenant();
    const endpoint = await publishEndpoint(h.bus, { tenantId, url: receiver.url('/flaky') });
    receiver.on('/flaky', (i) => (i < 3 ? { status: 500, body: `boom ${i}` } : { status: 204 }));
    const event = await publishCharge(h.bus, 'charges.charge-paid.v1', {
      tenantId,
      chargeId: newCharge(),
    });
    const requests = await waitFor(
      () =>
        receiver.requestsTo('/flaky').length === 4 ? receiver.requestsTo('/flaky') : undefined,
      5_000,
      'four attempts',
    );

    for (const r of requests) {
      expect(r.event.id).toBe(event.envelope.event_id);
      expect(
        verifyWebhook({
          rawBody: r.rawBody,
          header: r.headers['x-signature'],
          secrets: [endpoint.secret],
        }).ok,
      ).toBe(true);
    }
    const gaps = requests.slice(1).map((r, i) => r.receivedAtMs - requests[i]!.receivedAtMs);
    // base 20 ms, doubling, ±20 %: at least 16, 32, 64 ms.
    expect(gaps[0]).toBeGreaterThanOrEqual(15);
    expect(gaps[1]).toBeGreaterThanOrEqual(31);
    expect(gaps[2]).toBeGreaterThanOrEqual(63);

    const delivery = await waitFor(async () => {
      const d = await deliveryOf(endpoint.id, event.envelope.event_id);
      return d?.status === 'succeeded' ? d : undefined;
    });
    expect(delivery).toMatchObject({
      object: 'webhook_delivery',
      event_type: 'charge.paid',
      attempt_count: 4,
      last_status_code: 204,
      last_error: null,
      next_attempt_at: null,
    });
    expect(delivery.delivered_at).not.toBeNull();
    expect(delivery.event).toEqual(requests[0]!.event);
    expect(
      delivery.attempts.map((a) => [
        a.number,
        a.status_code,
        a.succeeded,
        a.response_excerpt,
        a.error,
      ]),
    ).toEqual([
      [1, 500, false, 'boom 0', 'http status 500'],
      [2, 500, false, 'boom 1', 'http status 500'],
      [3, 500, false, 'boom 2', 'http status 500'],
      [4, 204, true, null, null],
    ]);
    for (const a of delivery.attempts) {
      expect(a.latency_ms).toBeGreaterThanOrEqual(0);
      expect(a.latency_ms).toBeLessThan(1_000);
    }
  });

  it('keeps at most 1 KB of a response in the attempt log', async () => {
    const tenantId = newTenant();
    const endpoint = await publishEndpoint(h.bus, { tenantId, url: receiver.url('/chatty') });
    receiver.on('/chatty', () => ({ status: 200, body: 'é'.repeat(5_000) }));
    const event = await publishCharge(h.bus, 'charges.charge-paid.v1', {
      tenantId,
      chargeId: newCharge(),
    });
    const delivery = await waitFor(async () => {
      const d = await deliveryOf(endpoint.id, event.envelope.event_id);
      return d?.status === 'succeeded' ? d : undefined;
    });
    const excerpt = delivery.attempts[0]!.response_excerpt;
    expect(Buffer.byteLength(excerpt ?? '')).toBeLessThanOrEqual(1024);
    expect(excerpt).toBe('é'.repeat(512));
  });

  it('retries after a timeout: a receiver that never answers is a failed attempt after the attempt timeout', async () => {
    const tenantId = newTenant();
    const endpoint = await publishEndpoint(h.bus, { tenantId, url: receiver.url('/silent') });
    receiver.on('/silent', (i) => (i === 0 ? 'hang' : { status: 200 }));
    const event = await publishCharge(h.bus, 'charges.charge-paid.v1', {
      tenantId,
      chargeId: newCharge(),
    });
    const delivery = await waitFor(async () => {
      const d = await deliveryOf(endpoint.id, event.envelope.event_id);
      return d?.status === 'succeeded' ? d : undefined;
    }, 10_000);
    expect(receiver.requestsTo('/silent')).toHaveLength(2);
    const [first, second] = delivery.attempts;
    expect(first).toMatchObject({
      number: 1,
      status_code: null,
      succeeded: false,
      error: 'timeout: no answer within 300 ms',
      response_excerpt: null,
    });
    expect(first.latency_ms).toBeGreaterThanOrEqual(290);
    expect(second).toMatchObject({ number: 2, status_code: 200, succeeded: true });
  });

  it('delivers the events of one resource in order: the second waits until the first succeeds, other resources do not', async () => {
    const tenantId = newTenant();
    const chargeA = newCharge();
    const chargeB = newCharge();
    await publishEndpoint(h.bus, { tenantId, url: receiver.url('/ordered') });
    let createdAttempts = 0;
    receiver.on('/ordered', (_i, r) =>
      r.event.data.object.id === chargeA &&
      r.event.type === 'charge.created' &&
      ++createdAttempts <= 3
        ? { status: 503 }
        : { status: 200 },
    );
    const created = await publishCharge(h.bus, 'charges.charge-created.v1', {
      tenantId,
      chargeId: chargeA,
      status: 'pending',
    });
    const paid = await publishCharge(h.bus, 'charges.charge-paid.v1', {
      tenantId,
      chargeId: chargeA,
    });
    const other = await publishCharge(h.bus, 'charges.charge-paid.v1', {
      tenantId,
      chargeId: chargeB,
    });
    await waitFor(
      () =>
        receiver.requestsTo('/ordered').some((r) => r.event.id === paid.envelope.event_id)
          ? true
          : undefined,
      5_000,
      'the paid event',
    );

    const seen = receiver.requestsTo('/ordered').map((r) => r.event.id);
    const firstSuccess = seen.lastIndexOf(created.envelope.event_id);
    expect(seen.filter((id) => id === created.envelope.event_id)).toHaveLength(4);
    expect(seen.indexOf(paid.envelope.event_id)).toBeGreaterThan(firstSuccess);
    // The other charge was not held back by charge A's failing event.
    expect(seen.indexOf(other.envelope.event_id)).toBeLessThan(firstSuccess);
  });

  it('sends a test event only to test endpoints and a live event only to live ones, of that tenant only', async () => {
    const tenantId = newTenant();
    await publishEndpoint(h.bus, { tenantId, url: receiver.url('/env-test'), livemode: false });
    await publishEndpoint(h.bus, { tenantId, url: receiver.url('/env-live'), livemode: true });
    await publishEndpoint(h.bus, {
      tenantId: newTenant(),
      url: receiver.url('/env-stranger'),
      livemode: false,
    });
    const testEvent = await publishCharge(h.bus, 'charges.charge-paid.v1', {
      tenantId,
      chargeId: newCharge(),
      livemode: false,
    });
    const liveEvent = await publishCharge(h.bus, 'charges.charge-paid.v1', {
      tenantId,
      chargeId: newCharge(),
      livemode: true,
    });
    await waitFor(
      () =>
        receiver.requestsTo('/env-test').length >= 1 && receiver.requestsTo('/env-live').length >= 1
          ? true
          : undefined,
      5_000,
      'both deliveries',
    );
    await sleep(200);
    expect(receiver.requestsTo('/env-test').map((r) => [r.event.id, r.event.livemode])).toEqual([
      [testEvent.envelope.event_id, false],
    ]);
    expect(receiver.requestsTo('/env-live').map((r) => [r.event.id, r.event.livemode])).toEqual([
      [liveEvent.envelope.event_id, true],
    ]);
    expect(receiver.requestsTo('/env-stranger')).toEqual([]);
  });

  it("sends only the kinds an endpoint's events filter names ('*' is all)", async () => {
    const tenantId = newTenant();
    const chargeId = newCharge();
    await publishEndpoint(h.bus, {
      tenantId,
      url: receiver.url('/only-refunds'),
      events: ['charge.refunded', 'refund.succeeded'],
    });
    await publishEndpoint(h.bus, { tenantId, url: receiver.url('/everything'), events: ['*'] });
    await publishCharge(h.bus, 'charges.charge-paid.v1', { tenantId, chargeId });
    await publishCharge(h.bus, 'charges.charge-refunded.v1', {
      tenantId,
      chargeId,
      status: 'refunded',
    });
    await waitFor(
      () =>
        receiver.requestsTo('/everything').length === 2 &&
        receiver.requestsTo('/only-refunds').length === 1
          ? true
          : undefined,
      5_000,
      'deliveries',
    );
    await sleep(200);
    expect(receiver.requestsTo('/only-refunds').map((r) => r.event.type)).toEqual([
      'charge.refunded',
    ]);
    expect(receiver.requestsTo('/everything').map((r) => r.event.type)).toEqual([
      'charge.paid',
      'charge.refunded',
    ]);
  });

  it('keeps the highest endpoint version: a newer URL takes over, an older event changes nothing', async () => {
    const tenantId = newTenant();
    const endpoint = await publishEndpoint(h.bus, {
      tenantId,
      url: receiver.url('/v1'),
      version: 1,
    });
    await publishEndpoint(h.bus, {
      id: endpoint.id,
      tenantId,
      url: receiver.url('/v3'),
      secret: endpoint.secret,
      version: 3,
    });
    await publishEndpoint(h.bus, {
      id: endpoint.id,
      tenantId,
      url: receiver.url('/v2'),
      secret: endpoint.secret,
      version: 2,
    });
    await publishCharge(h.bus, 'charges.charge-paid.v1', { tenantId, chargeId: newCharge() });
    await waitFor(
      () => (receiver.requestsTo('/v3').length === 1 ? true : undefined),
      5_000,
      'the delivery',
    );
    expect(receiver.requestsTo('/v1')).toEqual([]);
    expect(receiver.requestsTo('/v2')).toEqual([]);
  });
});

describe('webhook targets where private targets are not allowed (contract §7)', () => {
  let knex: Knex;
  let h: Harness;
  let receiver: Receiver;

  beforeAll(async () => {
    knex = createPgliteKnex(null);
    const { WEBHOOK_ALLOW_PRIVATE_TARGETS: _allowed, ...env } = FAST_ENV;
    h = await startWebhooks(knex, { env });
    receiver = await Receiver.start();
  });
  afterAll(async () => {
    await h.stop();
    await receiver.stop();
    await knex.destroy();
  });

  async function attemptsOf(endpointId: string) {
    return waitFor(
      async () => {
        const list = await h.service.app.inject({
          method: 'GET',
          url: `/admin/v1/webhook-endpoints/${endpointId}/deliveries?limit=10`,
          headers: operatorHeaders(),
        });
        const [summary] = list.json().data;
        if (summary === undefined) return undefined;
        const delivery = (
          await h.service.app.inject({
            method: 'GET',
            url: `/admin/v1/webhook-deliveries/${summary.id}`,
            headers: operatorHeaders(),
          })
        ).json();
        return delivery.attempts.length >= 2 ? delivery.attempts : undefined;
      },
      5_000,
      'two attempts',
    );
  }

  it.each([
    ['a loopback literal', (port: number) => `http://127.0.0.1:${port}/in`],
    ['a name resolving to loopback', (port: number) => `http://localhost:${port}/in`],
    ['an IPv4-mapped IPv6 literal', (port: number) => `http://[::ffff:127.0.0.1]:${port}/in`],
    ['the metadata address', () => 'http://169.254.169.254/latest/meta-data/'],
  ])(
    'Proves a target at %s gets failed attempts with reason blocked_address and receives nothing',
    async (_name, url) => {
      const tenantId = newTenant();
      const port = Number(new URL(receiver.url('/')).port);
      const endpoint = await publishEndpoint(h.bus, { tenantId, url: url(port) });
      await publishCharge(h.bus, 'charges.charge-paid.v1', { tenantId, chargeId: newCharge() });
      const attempts = await attemptsOf(endpoint.id);
      for (const a of attempts) {
        expect(a.succeeded).toBe(false);
        expect(a.status_code).toBeNull();
        expect(a.error).toMatch(/^blocked_address: /);
      }
      expect(receiver.requestsTo('/in')).toHaveLength(0);
    },
  );
});

describe('redirects (contract §7)', () => {
  let knex: Knex;
  let h: Harness;
  let receiver: Receiver;

  beforeAll(async () => {
    knex = createPgliteKnex(null);
    h = await startWebhooks(knex);
    receiver = await Receiver.start();
  });
  afterAll(async () => {
    await h.stop();
    await receiver.stop();
    await knex.destroy();
  });

  it('Proves a 3xx is a failed attempt and its Location is never followed', async () => {
    const tenantId = newTenant();
    const endpoint = await publishEndpoint(h.bus, { tenantId, url: receiver.url('/bounce') });
    receiver.on('/bounce', () => ({ status: 302, body: 'moved' }));
    // The receiver's writeHead sets no Location; a follower would still retry the same URL, which the count shows.
    await publishCharge(h.bus, 'charges.charge-paid.v1', { tenantId, chargeId: newCharge() });
    await waitFor(
      () => (receiver.requestsTo('/bounce').length >= 2 ? true : undefined),
      5_000,
      'two attempts',
    );
    const list = await h.service.app.inject({
      method: 'GET',
      url: `/admin/v1/webhook-endpoints/${endpoint.id}/deliveries?limit=10`,
      headers: operatorHeaders(),
    });
    const delivery = (
      await h.service.app.inject({
        method: 'GET',
        url: `/admin/v1/webhook-deliveries/${list.json().data[0].id}`,
        headers: operatorHeaders(),
      })
    ).json();
    expect(delivery.status).not.toBe('succeeded');
    expect(delivery.attempts[0]).toMatchObject({
      status_code: 302,
      succeeded: false,
      error: 'http status 302',
    });
  });
});
