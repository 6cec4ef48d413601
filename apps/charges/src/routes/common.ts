import type { FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { isId, type IdPrefix } from '@pgw/domain';
import { ApiError, notFound, PRINCIPAL_HEADER, type ApiKeyPrincipal } from '@pgw/platform-http';
import type { MayRead } from '@pgw/platform-idempotency';
import { findCharge, type Scope } from '../data/charge.repository';

/** Path ids are checked by the handler, not the schema: an id that does not match its pattern is a 404. */
export const IdParams = Type.Object({ id: Type.String() });

export function requireId(prefix: IdPrefix, value: string, what: string): string {
  if (!isId(prefix, value)) throw notFound(what);
  return value;
}

export const scopeOf = (principal: ApiKeyPrincipal): Scope => ({ tenantId: principal.tenantId, livemode: principal.livemode, sellerId: principal.sellerId });

/**
 * Whether the caller may read the charge a stored answer names, in its field `field` (contract §3: a
 * replay goes only to a caller that could fetch what it names; `IdempotentOptions.mayRead`).
 */
export const mayReadCharge =
  (scope: Scope, field: 'id' | 'charge_id'): MayRead =>
  async (q, body) => {
    const id = body[field];
    return typeof id === 'string' && (await findCharge(q, scope, id)) !== undefined;
  };

/** The principal header as received, forwarded to the vault so that it scopes the token as for the caller. */
export function principalHeader(request: FastifyRequest): string {
  const header = request.headers[PRINCIPAL_HEADER];
  if (typeof header !== 'string') throw new ApiError('principal_invalid', 'The request did not come through the gateway.');
  return header;
}

/**
 * A POST whose body is optional arrives without one (the gateway forwards no body): read it as {}. A JSON
 * `null` is a body, and not an object: it stays null, so validation refuses it (422) rather than reading
 * it as "no amount", which for a refund means the whole remainder.
 */
export async function emptyBodyAsObject(request: FastifyRequest): Promise<void> {
  if (request.body === undefined) request.body = {};
}
