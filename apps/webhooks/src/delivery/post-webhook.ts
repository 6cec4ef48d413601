import { lookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { isBlockedAddress } from '@pgw/platform-http';
import { SIGNATURE_HEADER } from '@pgw/webhook-signature';

// One attempt: POST the stored body with its signature, wait at most `timeoutMs` for the answer, keep
// the status and at most 1 KiB of the response for the attempt log. Redirects are not followed: a 3xx is
// not a 2xx, so it is a failed attempt (and a receiver cannot bounce our signed request elsewhere). The host
// is resolved once, every address checked against contract §7's blocked ranges and the connection pinned to it.

export const RESPONSE_EXCERPT_BYTES_MAX = 1024;
export const USER_AGENT = 'pgw-webhooks/1';
/** The failed attempt's reason when the target is, or resolves to, an address contract §7 refuses. */
export const BLOCKED_ADDRESS = 'blocked_address';

export interface PostRequest {
  url: string;
  body: string;
  signature: string;
  timeoutMs: number;
  /** Aborted when the service stops: the attempt ends at once rather than hold the shutdown. */
  stopSignal: AbortSignal;
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS=1: loopback and private targets are allowed (the all-in-one's default). */
  allowPrivateTargets: boolean;
}

/** Why an attempt ended as it did, in few values (the metrics' `reason`): the status class, or what failed. */
export type AttemptReason =
  `http_${1 | 2 | 3 | 4 | 5}xx` | 'timeout' | 'connection_error' | 'blocked_address' | 'aborted';

export interface PostOutcome {
  statusCode: number | null;
  latencyMs: number;
  responseExcerpt: string | null;
  error: string | null;
  reason: AttemptReason;
}

function statusReason(statusCode: number): AttemptReason {
  const statusClass = Math.floor(statusCode / 100);
  return statusClass >= 1 && statusClass <= 5
    ? (`http_${statusClass}xx` as AttemptReason)
    : 'connection_error';
}

/** describeError's verdict, as a reason: the same tests in the same order. */
function errorReason(error: unknown, stopSignal: AbortSignal): AttemptReason {
  if (stopSignal.aborted) return 'aborted';
  const name =
    typeof error === 'object' && error !== null ? (error as { name?: unknown }).name : undefined;
  return name === 'TimeoutError' || name === 'AbortError' ? 'timeout' : 'connection_error';
}

function describeError(error: unknown, timeoutMs: number, stopSignal: AbortSignal): string {
  if (stopSignal.aborted) return 'aborted: the webhooks service stopped during the attempt';
  // Duck-typed: the abort's DOMException may come from another realm, where instanceof Error fails.
  const { name, message, cause } = (typeof error === 'object' && error !== null ? error : {}) as {
    name?: unknown;
    message?: unknown;
    cause?: unknown;
  };
  if (name === 'TimeoutError' || name === 'AbortError')
    return `timeout: no answer within ${timeoutMs} ms`;
  if (typeof message !== 'string') return String(error);
  const code =
    typeof cause === 'object' && cause !== null && 'code' in cause
      ? String((cause as { code: unknown }).code)
      : null;
  return code === null ? message : `${message}: ${code}`;
}

/** Reads at most RESPONSE_EXCERPT_BYTES_MAX bytes of the answer, then drops the rest. */
function readExcerpt(response: IncomingMessage): Promise<string | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      if (size === 0) return resolve(null);
      const bytes = Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES_MAX);
      // stream: true keeps a multi-byte character cut at the limit out of the text instead of mangling it.
      resolve(new TextDecoder('utf-8', { fatal: false }).decode(bytes, { stream: true }));
    };
    response.on('data', (chunk: Buffer) => {
      if (size < RESPONSE_EXCERPT_BYTES_MAX) chunks.push(chunk);
      size += chunk.length;
      if (size >= RESPONSE_EXCERPT_BYTES_MAX) {
        response.destroy();
        done();
      }
    });
    response.on('end', done);
    // The status is what counts; a body cut short (timeout, reset) keeps what was read.
    response.on('error', done);
    response.on('close', done);
  });
}

/**
 * The addresses the connection may use: the URL's host resolved once and every answer checked (contract §7);
 * the connection is pinned to them. A reason instead when the target is refused.
 */
async function resolveTarget(
  host: string,
  allowPrivate: boolean,
): Promise<Array<{ address: string; family: number }> | { blocked: string }> {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  const answers =
    isIP(bare) !== 0
      ? [{ address: bare, family: isIP(bare) }]
      : await lookup(bare, { all: true, verbatim: true });
  if (answers.length === 0) throw new Error(`no address for ${host}`);
  if (!allowPrivate) {
    const blocked = answers.find((a) => isBlockedAddress(a.address));
    if (blocked !== undefined)
      return {
        blocked: `${BLOCKED_ADDRESS}: ${host} resolves to ${blocked.address}, a loopback, private, link-local or metadata address`,
      };
  }
  return answers;
}

export async function postWebhook(request: PostRequest): Promise<PostOutcome> {
  const started = performance.now();
  const latencyMs = () => Math.round(performance.now() - started);
  const fail = (error: string, reason: AttemptReason): PostOutcome => ({
    statusCode: null,
    latencyMs: latencyMs(),
    responseExcerpt: null,
    error,
    reason,
  });
  const failWith = (error: unknown) =>
    fail(
      describeError(error, request.timeoutMs, request.stopSignal),
      errorReason(error, request.stopSignal),
    );
  const signal = AbortSignal.any([AbortSignal.timeout(request.timeoutMs), request.stopSignal]);
  const url = new URL(request.url);
  let target: Array<{ address: string; family: number }> | { blocked: string };
  try {
    target = await resolveTarget(url.hostname, request.allowPrivateTargets);
  } catch (error) {
    return failWith(error);
  }
  if (!Array.isArray(target)) return fail(target.blocked, 'blocked_address');
  const pinned = target;
  // The connection goes to the addresses checked above: no second lookup a rebinding name could answer differently.
  const pin: LookupFunction = (_hostname, options, callback) => {
    if (options.all === true)
      (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(
        null,
        pinned,
      );
    else callback(null, pinned[0]!.address, pinned[0]!.family);
  };
  return new Promise<PostOutcome>((resolve) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(request.body),
          'user-agent': USER_AGENT,
          [SIGNATURE_HEADER]: request.signature,
        },
        lookup: pin,
        agent: false,
        signal,
      },
      (response) => {
        void readExcerpt(response).then((responseExcerpt) =>
          resolve({
            statusCode: response.statusCode ?? null,
            latencyMs: latencyMs(),
            responseExcerpt,
            error: null,
            reason: statusReason(response.statusCode ?? 0),
          }),
        );
      },
    );
    req.on('error', (error) => resolve(failWith(error)));
    req.end(request.body);
  });
}

export const isSuccess = (statusCode: number | null): boolean =>
  statusCode !== null && statusCode >= 200 && statusCode < 300;
