import { waitFor } from '@pgw/testing';
import type { App } from '@pgw/platform-http';
import type { Response as InjectResponse } from 'light-my-request';
import {
  ADMIN_TOKEN,
  bearer,
  createKey,
  createSeller,
  createTenant,
  Gate,
  startFixture,
  stopFixture,
  stubService,
  type Fixture,
  type StubCall,
} from '../testing/gateway-fixture';

// Each suite boots an embedded PostgreSQL (PGlite, a few seconds) once in beforeAll.
jest.setTimeout(60_000);

const BOUND = 3;
const HOLD = { 'x-stub-hold': '1' };
/**
 * A latency target no held request reaches: these suites prove the bound itself, which the adaptive
 * limit (adaptive-limit.spec.ts, and the last suite here) moves only on late answers.
 */
const FIXED = { UPSTREAM_LATENCY_TARGET_MS: '600000' };

function expectAtCapacity(
  res: InjectResponse | { statusCode: number; headers: Record<string, unknown>; json(): any },
): void {
  expect(res.statusCode).toBe(503);
  expect(res.headers['retry-after']).toBe('1');
  expect(res.json()).toEqual({
    error: {
      type: 'api_error',
      code: 'service_unavailable',
      message: expect.stringContaining('at capacity'),
      param: null,
    },
    request_id: res.headers['x-request-id'],
  });
}

/**
 * GET /api/v1/charges/ch_1 with the reader's key, and `hold(count)`: starts that many requests that the
 * charges stub holds at `gate`, and waits until all of them are there. The fixture and key are read when
 * called (they are made in beforeAll).
 */
function chargeReader(fixture: () => Fixture, gate: Gate, secret: () => string) {
  const getCharge = (headers: Record<string, string> = {}) =>
    fixture().app.inject({
      url: '/api/v1/charges/ch_1',
      headers: { ...bearer(secret()), ...headers },
    });
  const hold = async (count: number): Promise<Promise<InjectResponse>[]> => {
    const before = gate.arrived;
    const held = Array.from({ length: count }, () => getCharge(HOLD));
    await waitFor(
      async () => (gate.arrived === before + count ? true : undefined),
      10_000,
      'the held requests',
    );
    return held;
  };
  return { getCharge, hold };
}

describe('admission control over HTTP: at most UPSTREAM_IN_FLIGHT_MAX requests in flight per service', () => {
  let f: Fixture;
  let charges: App;
  let ledger: App;
  const gate = new Gate();
  const calls: StubCall[] = [];
  let downUrl: string;
  let chargesUrl: string;
  let ledgerUrl: string;
  let reader: { secret: string };

  beforeAll(async () => {
    charges = await stubService('charges', calls, gate);
    chargesUrl = await charges.listen({ port: 0, host: '127.0.0.1' });
    ledger = await stubService('ledger', calls);
    ledgerUrl = await ledger.listen({ port: 0, host: '127.0.0.1' });
    const down = await stubService('receivables');
    downUrl = await down.listen({ port: 0, host: '127.0.0.1' });
    await down.close();
    f = await startFixture({
      upstreams: {
        mode: 'http',
        baseUrls: { charges: chargesUrl, ledger: ledgerUrl, receivables: downUrl },
      },
      env: { UPSTREAM_IN_FLIGHT_MAX: String(BOUND), ...FIXED },
    });
    const tenantId = await createTenant(f);
    const sellerId = await createSeller(f, tenantId, { kyc_status: 'approved' });
    reader = await createKey(f, {
      tenantId,
      sellerId,
      permissions: ['charges:read', 'balance:read', 'receivables:read'],
    });
  });
  afterAll(async () => {
    gate.open();
    await stopFixture(f);
    await charges.close();
    await ledger.close();
  });

  const { getCharge, hold } = chargeReader(
    () => f,
    gate,
    () => reader.secret,
  );

  it('answers the request over the bound 503 with Retry-After at once, without forwarding it, on public and operator routes; other services still answer', async () => {
    const held = await hold(BOUND);
    expect(f.gateway.inFlight()).toMatchObject({ charges: BOUND });
    const callsBefore = calls.length;

    const refused = await getCharge();
    expectAtCapacity(refused);
    // The operator's routes to the same service share its bound: it protects the service.
    const job = await f.app.inject({
      method: 'POST',
      url: '/admin/v1/jobs/pix-expiry',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expectAtCapacity(job);
    expect(calls.length).toBe(callsBefore);
    // Authentication still comes first: a bad key is a 401, not a 503.
    const anonymous = await f.app.inject({ url: '/api/v1/charges/ch_1' });
    expect(anonymous.statusCode).toBe(401);
    const balance = await f.app.inject({ url: '/api/v1/balance', headers: bearer(reader.secret) });
    expect([balance.statusCode, balance.json().service]).toEqual([200, 'ledger']);

    gate.open();
    expect((await Promise.all(held)).map((r) => r.statusCode)).toEqual([200, 200, 200]);
    expect(f.gateway.inFlight()).toMatchObject({ charges: 0, ledger: 0 });
    // The whole bound is free again: BOUND more are admitted, and the next is refused again.
    const again = await hold(BOUND);
    expectAtCapacity(await getCharge());
    gate.open();
    expect((await Promise.all(again)).map((r) => r.statusCode)).toEqual([200, 200, 200]);
    expect((await getCharge()).statusCode).toBe(200);
  });

  it("at capacity a charge is refused before the gateway reads its seller's KYC, after the key is checked", async () => {
    // Proves shedding costs no database read: a seller whose KYC is pending (a 403 once the gateway reads it) gets the 503.
    const tenantId = await createTenant(f);
    const pending = await createSeller(f, tenantId, { kyc_status: 'pending' });
    const seller = await createKey(f, {
      tenantId,
      sellerId: pending,
      permissions: ['charges:create'],
    });
    const charge = (secret: string) =>
      f.app.inject({
        method: 'POST',
        url: '/api/v1/charges',
        headers: { ...bearer(secret), 'content-type': 'application/json' },
        payload: { amount: 1000, payment_method: 'PIX' },
      });
    const held = await hold(BOUND);
    expectAtCapacity(await charge(seller.secret));
    // The key is still checked first.
    expect((await charge('sk_test_unknown')).statusCode).toBe(401);
    gate.open();
    await Promise.all(held);
    const refused = await charge(seller.secret);
    expect([refused.statusCode, refused.json().error.code]).toEqual([403, 'seller_kyc_required']);
  });

  it('a client that gives up keeps its slot while the service still works on its request, and frees it when the service answers', async () => {
    const url = await f.app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const before = gate.arrived;
      const aborts = Array.from({ length: BOUND }, () => new AbortController());
      const gone = aborts.map((abort) =>
        fetch(`${url}/api/v1/charges/ch_1`, {
          headers: { ...bearer(reader.secret), ...HOLD },
          signal: abort.signal,
        }).catch((error: unknown) => error),
      );
      await waitFor(
        async () => (gate.arrived === before + BOUND ? true : undefined),
        10_000,
        'the held requests',
      );
      for (const abort of aborts) abort.abort();
      for (const outcome of await Promise.all(gone))
        expect((outcome as Error).name).toBe('AbortError');

      // The service has not answered yet: the bound still counts its work.
      expect(f.gateway.inFlight()).toMatchObject({ charges: BOUND });
      expectAtCapacity(await getCharge());

      gate.open();
      await waitFor(
        async () => (f.gateway.inFlight().charges === 0 ? true : undefined),
        10_000,
        'the slots back',
      );
      expect((await getCharge()).statusCode).toBe(200);
    } finally {
      gate.open();
    }
  });

  it('a reset connection or a service that is down frees the slot: more failures in a row than the bound all reach the upstream', async () => {
    for (let n = 0; n < BOUND + 2; n += 1) {
      const reset = await getCharge({ 'x-stub-reset': '1' });
      expect([reset.statusCode, reset.json().error.message]).toEqual([
        503,
        'The charges service did not answer.',
      ]);
      const down = await f.app.inject({
        url: '/api/v1/receivables',
        headers: bearer(reader.secret),
      });
      expect([down.statusCode, down.json().error.message]).toEqual([
        503,
        'The receivables service did not answer.',
      ]);
    }
    expect(f.gateway.inFlight()).toMatchObject({ charges: 0, receivables: 0 });
    expect((await getCharge()).statusCode).toBe(200);
  });

  it('a service that does not answer within UPSTREAM_TIMEOUT_MS frees the slot at the deadline', async () => {
    // A second replica on the same database, with a short deadline.
    const quick = await startFixture({
      knex: f.knex,
      upstreams: { mode: 'http', baseUrls: { charges: chargesUrl } },
      env: { UPSTREAM_IN_FLIGHT_MAX: String(BOUND), UPSTREAM_TIMEOUT_MS: '300', ...FIXED },
    });
    try {
      const before = gate.arrived;
      const late = await Promise.all(
        Array.from({ length: BOUND }, () =>
          quick.app.inject({
            url: '/api/v1/charges/ch_1',
            headers: { ...bearer(reader.secret), ...HOLD },
          }),
        ),
      );
      expect(gate.arrived).toBe(before + BOUND);
      expect(late.map((r) => [r.statusCode, r.json().error.code])).toEqual(
        Array.from({ length: BOUND }, () => [503, 'service_unavailable']),
      );
      expect(quick.gateway.inFlight()).toEqual({ charges: 0 });
      expect(
        (await quick.app.inject({ url: '/api/v1/charges/ch_1', headers: bearer(reader.secret) }))
          .statusCode,
      ).toBe(200);
    } finally {
      gate.open();
      await stopFixture(quick, { keepDatabase: true });
    }
  });

  it('refuses to start with a bound that is not a positive integer', async () => {
    for (const value of ['0', '-1', '1.5', 'many']) {
      await expect(
        startFixture({ knex: f.knex, env: { UPSTREAM_IN_FLIGHT_MAX: value } }),
      ).rejects.toThrow(/UPSTREAM_IN_FLIGHT_MAX/);
    }
  });
});

describe('admission control in-process (the all-in-one mode)', () => {
  let f: Fixture;
  const gate = new Gate();
  const calls: StubCall[] = [];
  let reader: { secret: string };

  beforeAll(async () => {
    const apps = new Map([['charges', await stubService('charges', calls, gate)]] as const);
    f = await startFixture({
      upstreams: { mode: 'inject', apps },
      env: { UPSTREAM_IN_FLIGHT_MAX: String(BOUND), UPSTREAM_TIMEOUT_MS: '5000', ...FIXED },
    });
    const tenantId = await createTenant(f);
    reader = await createKey(f, { tenantId, permissions: ['charges:read'] });
  });
  afterAll(async () => {
    gate.open();
    await stopFixture(f);
  });

  const { getCharge } = chargeReader(
    () => f,
    gate,
    () => reader.secret,
  );

  it('refuses the request over the bound without forwarding it, and frees every slot when the service answers, even with a 5xx', async () => {
    const before = gate.arrived;
    const held = Array.from({ length: BOUND }, (_, n) =>
      getCharge({ ...HOLD, 'x-stub-status': n === 0 ? '500' : '200' }),
    );
    await waitFor(
      async () => (gate.arrived === before + BOUND ? true : undefined),
      10_000,
      'the held requests',
    );
    const callsBefore = calls.length;
    expectAtCapacity(await getCharge());
    expect(calls.length).toBe(callsBefore);
    gate.open();
    expect((await Promise.all(held)).map((r) => r.statusCode)).toEqual([500, 200, 200]);
    expect(f.gateway.inFlight()).toEqual({ charges: 0 });
    const answers = await Promise.all(Array.from({ length: BOUND }, () => getCharge()));
    expect(answers.map((r) => r.statusCode)).toEqual([200, 200, 200]);
  });
});

describe('the adaptive limit through the gateway (issue 18)', () => {
  let f: Fixture;
  const gate = new Gate();
  const calls: StubCall[] = [];
  let reader: { secret: string };
  const CEILING = 8;

  beforeAll(async () => {
    const apps = new Map([['charges', await stubService('charges', calls, gate)]] as const);
    f = await startFixture({
      upstreams: { mode: 'inject', apps },
      env: { UPSTREAM_IN_FLIGHT_MAX: String(CEILING), UPSTREAM_LATENCY_TARGET_MS: '50' },
    });
    const tenantId = await createTenant(f);
    reader = await createKey(f, { tenantId, permissions: ['charges:read'] });
  });
  afterAll(async () => {
    gate.open();
    await stopFixture(f);
  });

  const { getCharge, hold } = chargeReader(
    () => f,
    gate,
    () => reader.secret,
  );

  it('answers later than UPSTREAM_LATENCY_TARGET_MS lower the limit: fewer requests are admitted, the next is refused 503 at once', async () => {
    // Proves a service that falls behind is sent less, so that what is admitted is not queued behind the rest.
    // A fast answer first: the service's baseline is ~ms, so the target stays 50 ms.
    expect((await getCharge()).statusCode).toBe(200);
    const held = await hold(CEILING);
    expectAtCapacity(await getCharge());
    await new Promise((resolve) => setTimeout(resolve, 200));
    gate.open();
    expect((await Promise.all(held)).map((r) => r.statusCode)).toEqual(
      Array.from({ length: CEILING }, () => 200),
    );

    const limit = f.gateway.limits().charges!;
    expect(limit).toBeGreaterThanOrEqual(1);
    expect(limit).toBeLessThanOrEqual(CEILING / 2);
    const again = await hold(limit);
    const callsBefore = calls.length;
    expectAtCapacity(await getCharge());
    expect(calls.length).toBe(callsBefore);
    gate.open();
    await Promise.all(again);
  });
});
