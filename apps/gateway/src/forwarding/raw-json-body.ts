import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '@pgw/platform-http';

// Forwarded requests keep their body as the bytes the client sent: the service parses them itself, and
// idempotency compares what the client sent, not a re-serialization of it. The gateway still checks
// that those bytes are JSON, so that the answer to bad JSON is the gateway's own 422 invalid_json, and
// the body limit (413 request_too_large) holds because Fastify reads the bytes with its bodyLimit.

/** In a forwarding scope: accept only application/json, and keep it as a Buffer. */
export function useRawJsonBodies(scope: FastifyInstance): void {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer' },
    (_request: FastifyRequest, body: Buffer, done: (err: Error | null, body?: unknown) => void) => {
      done(null, body);
    },
  );
}

/** The body to forward, or null when the request has none (an empty body is no body). */
export function forwardedBody(request: { body: unknown }): Buffer | null {
  const body = request.body;
  return Buffer.isBuffer(body) && body.length > 0 ? body : null;
}

/** The parsed body (undefined when there is none), or 422 invalid_json. */
export function parseJsonBody(request: FastifyRequest): unknown {
  const body = forwardedBody(request);
  if (body === null) return undefined;
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    throw new ApiError('invalid_json', 'The request body is not valid JSON.');
  }
}
