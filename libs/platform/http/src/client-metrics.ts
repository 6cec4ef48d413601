import { histogram, HTTP_CLIENT_REQUEST_DURATION, secondsSince } from '@pgw/platform-metrics';

// http.client.request.duration for the calls that go through undici (HttpPeers, and @fastify/reply-from behind the
// gateway's proxy), which the HTTP instrumentation does not see: it patches node:http only. The undici
// instrumentation would, but it also adds a traceparent header of its own beside the one these calls carry.

const durationMetric = histogram(HTTP_CLIENT_REQUEST_DURATION);

export interface ClientRequestTimer {
  /** The answer's headers are in. */
  answered(statusCode: number): void;
  /** No answer: unreachable, reset, or past the deadline. */
  failed(error: unknown): void;
}

function errorType(error: unknown): string {
  const { code, name } = (typeof error === 'object' && error !== null ? error : {}) as {
    code?: unknown;
    name?: unknown;
  };
  return typeof code === 'string' ? code : typeof name === 'string' ? name : 'unknown';
}

/** Starts timing one outgoing request; the first of `answered` or `failed` records it, later calls do nothing. */
export function timeClientRequest(method: string, url: string | URL): ClientRequestTimer {
  const target = new URL(url);
  const startMs = performance.now();
  const attributes = {
    'http.request.method': method.toUpperCase(),
    'server.address': target.hostname,
    'server.port': Number(target.port || (target.protocol === 'https:' ? 443 : 80)),
    'url.scheme': target.protocol.replace(/:$/, ''),
  };
  let recorded = false;
  const record = (outcome: { 'http.response.status_code': number } | { 'error.type': string }) => {
    if (recorded) return;
    recorded = true;
    durationMetric.record(secondsSince(startMs), { ...attributes, ...outcome });
  };
  return {
    answered: (statusCode) => record({ 'http.response.status_code': statusCode }),
    failed: (error) => record({ 'error.type': errorType(error) }),
  };
}
