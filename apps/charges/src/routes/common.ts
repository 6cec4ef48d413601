import type { FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { isId, type IdPrefix } from '@pgw/domain';
import {
  ApiError,
  apiPrincipal,
  checkedOptionalBody,
  notFound,
  PRINCIPAL_HEADER,
} from '@pgw/platform-http';
import type { MayRead } from '@pgw/platform-idempotency';
import { findCharge, type Scope } from '../data/charge.repository';

// The principal's scope, and an optional body read as {}, as the charges routes read them (platform-http's).
export { emptyBodyAsObject, scopeOf } from '@pgw/platform-http';

/** Path ids are checked by the handler, not the schema: an id that does not match its pattern is a 404. */
export const IdParams = Type.Object({ id: Type.String() });

export function requireId(prefix: IdPrefix, value: string, what: string): string {
  if (!isId(prefix, value)) throw notFound(what);
  return value;
}

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
  if (typeof header !== 'string')
    throw new ApiError('principal_invalid', 'The request did not come through the gateway.');
  return header;
}

/**
 * The preValidation of a POST whose body is optional: the API key must have `permission` (403) before
 * the body is validated (422), and no body reads as {} (platform-http's emptyBodyAsObject).
 */
export const permittedOptionalBody = (permission: string) =>
  checkedOptionalBody((request) => apiPrincipal(request, permission));
