// POST /admin/v1/simulations/provider: the operator's fault modes (contract §5) and what each does.
import { SimAcquirer } from '@pgw/acquirer';
import { HttpPeers, InjectPeers } from '@pgw/platform-service';
import { simHarness, TIMEOUT_DELAY_MS } from '../testing/sim-harness';

const { sim, principals, acquirer, app, card, ref, value, operator, setMode } = simHarness();

describe('POST /admin/v1/simulations/provider', () => {
  afterEach(async () => setMode('normal'));
  /** Peers that reach this harness's app in process, for a client with a shorter deadline. */
  const inProcess = () => {
    const peers = new InjectPeers();
    peers.register('acquirer-sim', app());
    return peers;
  };

  it('takes the mode only from the operator: no principal or an API key principal is 401', async () => {
    const none = await app().inject({
      method: 'POST',
      url: '/admin/v1/simulations/provider',
      payload: { mode: 'timeout' },
    });
    expect(none.statusCode).toBe(401);
    const apiKey = principals.header({
      kind: 'api_key',
      tenantId: 'ten_1',
      sellerId: null,
      keyId: 'key_1',
      permissions: [],
      livemode: false,
      requestId: 'req_x',
      expiresAtMs: Date.now() + 60_000,
    });
    const withKey = await app().inject({
      method: 'POST',
      url: '/admin/v1/simulations/provider',
      headers: { 'x-gateway-principal': apiKey },
      payload: { mode: 'timeout' },
    });
    expect(withKey.statusCode).toBe(401);
    const bad = await app().inject({
      method: 'POST',
      url: '/admin/v1/simulations/provider',
      headers: { 'x-gateway-principal': operator() },
      payload: { mode: 'slow' },
    });
    expect(bad.statusCode).toBe(422);
    const read = await app().inject({
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
    const raw = await app().inject({
      method: 'POST',
      url: '/acquirer/v1/pix/charges',
      payload: { reference: ref('pix'), amount_cents: 100, expires_in: 60 },
    });
    expect(raw.statusCode).toBe(503);
    expect(sim.authorizations.has(reference)).toBe(false);
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
    const address = await app().listen({ port: 0, host: '127.0.0.1' });
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
    expect(sim.authorizations.has(reference)).toBe(true);
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
    const quick = new SimAcquirer({ peers: inProcess(), timeoutMs: 100 });
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
});
