import { performance } from 'node:perf_hooks';
import { SIGNATURE_HEADER } from '@pgw/webhook-signature';

// One attempt: POST the stored body with its signature, wait at most `timeoutMs` for the answer, keep
// the status and at most 1 KB of the response for the attempt log. Redirects are not followed: a 3xx is
// not a 2xx, so it is a failed attempt (and a receiver cannot bounce our signed request elsewhere).

export const RESPONSE_EXCERPT_BYTES_MAX = 1024;
export const USER_AGENT = 'pgw-webhooks/1';

export interface PostRequest {
  url: string;
  body: string;
  signature: string;
  timeoutMs: number;
  /** Aborted when the service stops: the attempt ends at once rather than hold the shutdown. */
  stopSignal: AbortSignal;
}

export interface PostOutcome {
  statusCode: number | null;
  latencyMs: number;
  responseExcerpt: string | null;
  error: string | null;
}

async function readExcerpt(body: ReadableStream<Uint8Array> | null): Promise<string | null> {
  if (body === null) return null;
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < RESPONSE_EXCERPT_BYTES_MAX) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.length;
    }
  } catch {
    // The status is what counts; a body cut short (timeout, reset) keeps what was read.
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  const bytes = Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES_MAX);
  // stream: true keeps a multi-byte character cut at the limit out of the text instead of mangling it.
  return new TextDecoder('utf-8', { fatal: false }).decode(bytes, { stream: true });
}

function describeError(error: unknown, timeoutMs: number, stopSignal: AbortSignal): string {
  if (stopSignal.aborted) return 'aborted: the webhooks service stopped during the attempt';
  // Duck-typed: the abort's DOMException may come from another realm, where instanceof Error fails.
  const { name, message, cause } = (typeof error === 'object' && error !== null ? error : {}) as { name?: unknown; message?: unknown; cause?: unknown };
  if (name === 'TimeoutError' || name === 'AbortError') return `timeout: no answer within ${timeoutMs} ms`;
  if (typeof message !== 'string') return String(error);
  const code = typeof cause === 'object' && cause !== null && 'code' in cause ? String((cause as { code: unknown }).code) : null;
  return code === null ? message : `${message}: ${code}`;
}

export async function postWebhook(request: PostRequest): Promise<PostOutcome> {
  const started = performance.now();
  const latencyMs = () => Math.round(performance.now() - started);
  const signal = AbortSignal.any([AbortSignal.timeout(request.timeoutMs), request.stopSignal]);
  try {
    const response = await fetch(request.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT, [SIGNATURE_HEADER]: request.signature },
      body: request.body,
      redirect: 'manual',
      signal,
    });
    const responseExcerpt = await readExcerpt(response.body);
    return { statusCode: response.status, latencyMs: latencyMs(), responseExcerpt, error: null };
  } catch (error) {
    return { statusCode: null, latencyMs: latencyMs(), responseExcerpt: null, error: describeError(error, request.timeoutMs, request.stopSignal) };
  }
}

export const isSuccess = (statusCode: number | null): boolean => statusCode !== null && statusCode >= 200 && statusCode < 300;
