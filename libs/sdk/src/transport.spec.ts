import fc from 'fast-check';
import { ConnectionError } from './errors';
import {
  backoffMs,
  retryAfterMs,
  retryingFetch,
  type FetchFn,
  type RetryPolicy,
} from './transport';

// The network is a function here: each test scripts the answers a server would give, and records what
// arrived. The same behaviour against the real gateway is in apps/all-in-one/src/e2e-sdk.spec.ts.

const POLICY: RetryPolicy = {
  retriesMax: 3,
  timeoutMs: 1_000,
  delayBaseMs: 1,
  delayMaxMs: 4,
  retryAfterMaxMs: 5_000,
};

interface Arrival {
  key: string | null;
  body: string;
}

function scripted(answers: Array<() => Response>): { fetch: FetchFn; arrivals: Arrival[] } {
  const arrivals: Arrival[] = [];
  const fetch: FetchFn = async (request) => {
    arrivals.push({ key: request.headers.get('idempotency-key'), body: await request.text() });
    const next = answers[arrivals.length - 1];
    if (next === undefined) throw new Error('more requests than the script has answers');
    return next();
  };
  return { fetch, arrivals };
}

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}) =>
  () =>
    new Response(JSON.stringify(body), {
      status,
      headers: { 'content-type': 'application/json', ...headers },
    });
const error = (status: number, code: string, headers: Record<string, string> = {}) =>
  json(
    status,
    { error: { type: 'idempotency_error', code, message: code, param: null }, request_id: 'req_1' },
    headers,
  );
const dropped = () => {
  throw new TypeError('fetch failed');
};
const post = () =>
  new Request('http://gateway.test/api/v1/charges', {
    method: 'POST',
    headers: { 'idempotency-key': 'key-1', 'content-type': 'application/json' },
    body: '{"amount":1000}',
  });

describe('retryingFetch', () => {
  it('waits the Retry-After of a 503, then sends the same key and body again', async () => {
    // Proves the retry after load shedding: the second request is the first one again, after 1 s.
    const { fetch, arrivals } = scripted([
      error(503, 'service_unavailable', { 'retry-after': '1' }),
      json(201, { id: 'ch_1' }),
    ]);
    const started = Date.now();
    const response = await retryingFetch(fetch, POLICY)(post());
    expect(response.status).toBe(201);
    expect(Date.now() - started).toBeGreaterThanOrEqual(990);
    expect(arrivals).toEqual([
      { key: 'key-1', body: '{"amount":1000}' },
      { key: 'key-1', body: '{"amount":1000}' },
    ]);
  });

  it('retries 409 idempotency_key_in_use, and not idempotency_key_reused', async () => {
    // Proves that only the conflict that resolves itself (the first request still running) is waited out.
    const inUse = scripted([
      error(409, 'idempotency_key_in_use'),
      error(409, 'idempotency_key_in_use'),
      json(201, { id: 'ch_1' }),
    ]);
    expect((await retryingFetch(inUse.fetch, POLICY)(post())).status).toBe(201);
    expect(inUse.arrivals).toHaveLength(3);
    const reused = scripted([error(409, 'idempotency_key_reused')]);
    expect((await retryingFetch(reused.fetch, POLICY)(post())).status).toBe(409);
    expect(reused.arrivals).toHaveLength(1);
  });

  it('retries a dropped connection with the same key, and gives up with a ConnectionError after retriesMax', async () => {
    // Proves the bound: retriesMax 3 is 4 requests, then an error that names the key to retry with later.
    const recovered = scripted([dropped, dropped, json(200, { id: 'ch_1' })]);
    expect((await retryingFetch(recovered.fetch, POLICY)(post())).status).toBe(200);
    expect(recovered.arrivals.map((a) => a.key)).toEqual(['key-1', 'key-1', 'key-1']);
    const down = scripted([dropped, dropped, dropped, dropped]);
    const failure = await retryingFetch(down.fetch, POLICY)(post()).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ConnectionError);
    expect(failure).toMatchObject({
      type: 'connection_error',
      status: null,
      idempotencyKey: 'key-1',
    });
    expect(down.arrivals).toHaveLength(4);
  });

  it('sends once with retriesMax 0, and returns an answer whose Retry-After is too long', async () => {
    // Proves that retries can be turned off, and that a wait is bounded.
    const once = scripted([error(503, 'service_unavailable', { 'retry-after': '0' })]);
    expect((await retryingFetch(once.fetch, { ...POLICY, retriesMax: 0 })(post())).status).toBe(
      503,
    );
    expect(once.arrivals).toHaveLength(1);
    const later = scripted([error(503, 'service_unavailable', { 'retry-after': '3600' })]);
    expect((await retryingFetch(later.fetch, POLICY)(post())).status).toBe(503);
    expect(later.arrivals).toHaveLength(1);
  });

  it('abandons an attempt at timeoutMs and retries it', async () => {
    // Proves the per-attempt deadline: a server that never answers costs retriesMax + 1 timeouts, not forever.
    let attempts = 0;
    const silent: FetchFn = (request) =>
      new Promise((_, reject) => {
        attempts += 1;
        request.signal.addEventListener('abort', () => reject(request.signal.reason), {
          once: true,
        });
      });
    const failure = await retryingFetch(silent, { ...POLICY, timeoutMs: 50 })(post()).catch(
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(ConnectionError);
    expect(attempts).toBe(4);
  });

  it('stops at once when the caller aborts', async () => {
    // Proves that the caller's signal wins over the retries.
    const controller = new AbortController();
    const { fetch, arrivals } = scripted([
      error(503, 'service_unavailable', { 'retry-after': '2' }),
      json(201, {}),
    ]);
    const request = new Request(post(), { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('caller gave up')), 50);
    await expect(retryingFetch(fetch, POLICY)(request)).rejects.toThrow('caller gave up');
    expect(arrivals).toHaveLength(1);
  });
});

describe('back-off and Retry-After', () => {
  it('jitters between half and all of the doubled delay, never above the maximum', () => {
    // Proves the back-off's bounds for every retry number and random draw.
    const policy: RetryPolicy = {
      retriesMax: 10,
      timeoutMs: 1,
      delayBaseMs: 500,
      delayMaxMs: 8_000,
      retryAfterMaxMs: 1,
    };
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (retry, draw) => {
          const ceiling = Math.min(8_000, 500 * 2 ** retry);
          const delay = backoffMs(policy, retry, () => draw);
          return delay >= ceiling / 2 && delay <= ceiling;
        },
      ),
    );
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    // Proves both forms of RFC 9110 §10.2.3, and that a bad value means "not given".
    expect(retryAfterMs('2')).toBe(2_000);
    expect(retryAfterMs('Wed, 25 Nov 2026 10:00:05 GMT', Date.parse('2026-11-25T10:00:00Z'))).toBe(
      5_000,
    );
    expect(retryAfterMs('soon')).toBeNull();
    expect(retryAfterMs(null)).toBeNull();
  });
});
