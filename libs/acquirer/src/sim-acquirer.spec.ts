import { createServer } from 'node:net';
import { HttpPeers, type PeerRequest, type PeerResponse, type Peers } from '@pgw/platform-service';
import { createAcquirer, SimAcquirer } from './sim-acquirer';

class StubPeers implements Peers {
  readonly requests: Array<{ service: string; request: PeerRequest }> = [];
  constructor(private readonly answer: (request: PeerRequest) => Promise<PeerResponse>) {}
  request(service: string, request: PeerRequest): Promise<PeerResponse> {
    this.requests.push({ service, request });
    return this.answer(request);
  }
}

const authorization = {
  reference: 'ch_1',
  transaction_id: 'txn_1',
  status: 'captured',
  amount_cents: 100,
  installments: 1,
  captured_amount_cents: 100,
  refunded_amount_cents: 0,
  authorization_code: 'A1B2C3',
  return_code: '00',
  return_message: 'Approved',
  refused_reason: null,
  created_at: '2026-03-01T12:00:00.000Z',
  captured_at: '2026-03-01T12:00:00.000Z',
  canceled_at: null,
};

const authorize = (acquirer: SimAcquirer) =>
  acquirer.authorize({
    reference: 'ch_1',
    cardRef: 'card_1',
    amountCents: 100,
    installments: 1,
    capture: true,
    securityCode: '123',
  });

/** A port on 127.0.0.1 that nothing listens on (taken, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('SimAcquirer: the acquirer port over the simulator', () => {
  it('sends every call to acquirer-sim with an explicit deadline, the key when configured, and maps the answer to camelCase', async () => {
    const peers = new StubPeers(async () => ({ statusCode: 201, body: authorization }));
    const acquirer = new SimAcquirer({ peers, timeoutMs: 1234, key: 'k'.repeat(16) });
    const result = await authorize(acquirer);
    expect(result).toEqual({
      ok: true,
      value: expect.objectContaining({
        reference: 'ch_1',
        transactionId: 'txn_1',
        status: 'captured',
        capturedAmountCents: 100,
        authorizationCode: 'A1B2C3',
        refusedReason: null,
      }),
    });
    const sent = peers.requests[0];
    expect(sent?.service).toBe('acquirer-sim');
    expect(sent?.request).toMatchObject({
      method: 'POST',
      url: '/acquirer/v1/authorizations',
      timeoutMs: 1234,
      headers: { 'x-acquirer-key': 'k'.repeat(16) },
    });
    expect(sent?.request.body).toMatchObject({
      reference: 'ch_1',
      card_ref: 'card_1',
      amount_cents: 100,
      security_code: '123',
    });
  });

  it('escapes references in paths', async () => {
    const peers = new StubPeers(async () => ({ statusCode: 404, body: null }));
    const acquirer = new SimAcquirer({ peers });
    expect(await acquirer.getRefund('a/b')).toMatchObject({ ok: false, kind: 'not_found' });
    expect(peers.requests[0]?.request.url).toBe('/acquirer/v1/refunds/a%2Fb');
  });

  it('maps 503 to unavailable (nothing happened) and other 5xx to timeout (outcome unknown)', async () => {
    expect(
      await authorize(
        new SimAcquirer({ peers: new StubPeers(async () => ({ statusCode: 503, body: null })) }),
      ),
    ).toMatchObject({ ok: false, kind: 'unavailable' });
    expect(
      await authorize(
        new SimAcquirer({ peers: new StubPeers(async () => ({ statusCode: 500, body: null })) }),
      ),
    ).toMatchObject({ ok: false, kind: 'timeout' });
    expect(
      await authorize(
        new SimAcquirer({ peers: new StubPeers(async () => ({ statusCode: 504, body: null })) }),
      ),
    ).toMatchObject({ ok: false, kind: 'timeout' });
  });

  it('treats an answer that does not match the wire schema as an unknown outcome', async () => {
    const peers = new StubPeers(async () => ({
      statusCode: 200,
      body: { ...authorization, status: 'approved-ish' },
    }));
    expect(await authorize(new SimAcquirer({ peers }))).toMatchObject({
      ok: false,
      kind: 'timeout',
    });
  });

  it('maps rejections to their codes: 409 reference_reused, 422 with a known code, 422 with another code as invalid_request', async () => {
    const answer = (statusCode: number, code: string) =>
      new SimAcquirer({
        peers: new StubPeers(async () => ({
          statusCode,
          body: { error: { code, message: 'no' } },
        })),
      });
    expect(await authorize(answer(409, 'reference_reused'))).toEqual({
      ok: false,
      kind: 'rejected',
      code: 'reference_reused',
      message: 'no',
    });
    expect(await authorize(answer(422, 'not_capturable'))).toMatchObject({
      kind: 'rejected',
      code: 'not_capturable',
    });
    expect(await authorize(answer(422, 'parameter_invalid'))).toMatchObject({
      kind: 'rejected',
      code: 'invalid_request',
    });
  });

  it('maps a deadline to timeout and a refused connection to unavailable', async () => {
    const slow = new StubPeers(() => Promise.reject(new DOMException('too slow', 'TimeoutError')));
    expect(await authorize(new SimAcquirer({ peers: slow }))).toMatchObject({
      ok: false,
      kind: 'timeout',
    });
    const reset = new StubPeers(() =>
      Promise.reject(
        Object.assign(new TypeError('fetch failed'), {
          cause: Object.assign(new Error('reset'), { code: 'ECONNRESET' }),
        }),
      ),
    );
    expect(await authorize(new SimAcquirer({ peers: reset }))).toMatchObject({
      ok: false,
      kind: 'timeout',
    });

    const port = await closedPort();
    const refused = new SimAcquirer({
      peers: new HttpPeers({ 'acquirer-sim': `http://127.0.0.1:${port}` }),
      timeoutMs: 2_000,
    });
    expect(await authorize(refused)).toMatchObject({ ok: false, kind: 'unavailable' });
  });

  it('is chosen by configuration, and an unknown adapter is refused at boot', () => {
    const peers = new StubPeers(async () => ({ statusCode: 503, body: null }));
    expect(createAcquirer({ peers, env: {} }).code).toBe('simulator');
    expect(() => createAcquirer({ peers, env: { ACQUIRER_ADAPTER: 'cielo' } })).toThrow(
      /not a known acquirer adapter/,
    );
    expect(() => createAcquirer({ peers, env: { ACQUIRER_TIMEOUT_MS: '0' } })).toThrow(
      'ACQUIRER_TIMEOUT_MS must be at least 1, got 0',
    );
    expect(() => createAcquirer({ peers, env: { ACQUIRER_SIM_KEY: 'short' } })).toThrow(
      'ACQUIRER_SIM_KEY must have at least 16 characters',
    );
  });
});
