import { ConnectionError } from './errors';

// Retries, bounded, of requests that sending twice cannot make happen twice (the Gateway sends only
// those): a GET, a POST that carries an Idempotency-Key (the gateway replays the first answer, contract
// §3), a POST without effect on money (the anticipation simulation, tokenization). It is retried, with the
// very same bytes and key, when no answer came (a connection refused or dropped, a timeout), on 503 and
// 429 (the gateway sheds load and says when to come back, in Retry-After), and on 409
// idempotency_key_in_use (the first attempt is still running on the server: its answer will be replayed).

export interface RetryPolicy {
  /** Retries after the first attempt: 2 means at most 3 requests. */
  retriesMax: number;
  /** Each attempt's own deadline. */
  timeoutMs: number;
  /** Back-off of the first retry when the answer gave no Retry-After; doubled each time, jittered. */
  delayBaseMs: number;
  delayMaxMs: number;
  /** A Retry-After longer than this is not waited for: the answer is returned (as an error) instead. */
  retryAfterMaxMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  retriesMax: 2,
  // The gateway's own deadlines toward a slow acquirer are shorter than this.
  timeoutMs: 30_000,
  delayBaseMs: 500,
  delayMaxMs: 8_000,
  retryAfterMaxMs: 60_000,
};

// A policy of a caller cannot ask for more than this many requests for one call.
const RETRIES_LIMIT = 10;

export type FetchFn = (request: Request) => Promise<Response>;

/** Waits `ms`, or rejects at once when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Exponential back-off with jitter: between half and all of min(max, base × 2^retry), so that clients spread out. */
export function backoffMs(
  policy: RetryPolicy,
  retry: number,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(policy.delayMaxMs, policy.delayBaseMs * 2 ** retry);
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** Retry-After in ms, from seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterMs(header: string | null, nowMs: number = Date.now()): number | null {
  if (header === null) return null;
  const value = header.trim();
  if (/^[0-9]+$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}

async function answerSaysRetry(response: Response): Promise<boolean> {
  if (response.status === 503 || response.status === 429) return true;
  if (response.status !== 409) return false;
  const body: unknown = await response
    .clone()
    .json()
    .catch(() => null);
  return (
    typeof body === 'object' &&
    body !== null &&
    'error' in body &&
    (body.error as { code?: unknown } | null)?.code === 'idempotency_key_in_use'
  );
}

/**
 * A fetch that sends `request` until an answer that is final, at most `policy.retriesMax + 1` times, each
 * attempt a clone of the same request (same body, same Idempotency-Key). A caller's abort signal stops it
 * at once.
 */
export function retryingFetch(fetchImpl: FetchFn, policy: RetryPolicy): FetchFn {
  const retriesMax = Math.min(Math.max(0, Math.floor(policy.retriesMax)), RETRIES_LIMIT);
  return async (request) => {
    const idempotencyKey = request.headers.get('idempotency-key');
    for (let retry = 0; ; retry += 1) {
      const last = retry >= retriesMax;
      let response: Response;
      try {
        response = await fetchImpl(
          new Request(request.clone(), {
            signal: AbortSignal.any([request.signal, AbortSignal.timeout(policy.timeoutMs)]),
          }),
        );
      } catch (error) {
        if (request.signal.aborted) throw error;
        if (last) {
          const message = `${request.method} ${new URL(request.url).pathname}: no answer after ${retry + 1} attempt(s)`;
          throw new ConnectionError(
            {
              type: 'connection_error',
              code: 'connection_failed',
              message,
              param: null,
              status: null,
              requestId: null,
              idempotencyKey,
            },
            { cause: error },
          );
        }
        await sleep(backoffMs(policy, retry), request.signal);
        continue;
      }
      if (last || !(await answerSaysRetry(response))) return response;
      const waitMs = retryAfterMs(response.headers.get('retry-after')) ?? backoffMs(policy, retry);
      if (waitMs > policy.retryAfterMaxMs) return response;
      await response.body?.cancel();
      await sleep(waitMs, request.signal);
    }
  };
}
