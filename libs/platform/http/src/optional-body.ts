import type { FastifyRequest } from 'fastify';

/**
 * A POST whose body is optional arrives without one (the gateway forwards no body): read it as {}. A JSON
 * `null` is a body, and not an object: it stays null, so validation refuses it (422) rather than reading
 * it as "no body" (for a refund, the whole remainder).
 */
export async function emptyBodyAsObject(request: FastifyRequest): Promise<void> {
  if (request.body === undefined) request.body = {};
}

/**
 * The preValidation of a POST whose body is optional: `check` first (the principal and its permission, so
 * that 401/403 come before any 422), then no body read as {}.
 */
export function checkedOptionalBody(check: (request: FastifyRequest) => unknown) {
  return [async (request: FastifyRequest) => void check(request), emptyBodyAsObject];
}
