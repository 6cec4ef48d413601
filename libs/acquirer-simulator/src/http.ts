import type { FastifyReply } from 'fastify';
import type { AcquirerRejectionCode } from '@pgw/acquirer';
import { randomString } from '@pgw/domain';
import type { Created } from './operations/created';

// The simulator's own refusals, in the shape of our error body (contract §2) so that one parser reads
// both; their codes are the acquirer port's rejection codes, not the public API's.

export function reject(
  reply: FastifyReply,
  code: AcquirerRejectionCode,
  message: string,
  param: string | null = null,
): FastifyReply {
  const status = code === 'reference_reused' ? 409 : 422;
  const type = code === 'reference_reused' ? 'idempotency_error' : 'invalid_request_error';
  return reply
    .code(status)
    .send({ error: { type, code, message, param }, request_id: reply.request.id });
}

export function notFoundReply(reply: FastifyReply, what: string): FastifyReply {
  return reply.code(404).send({
    error: {
      type: 'not_found_error',
      code: 'resource_not_found',
      message: `No such ${what}.`,
      param: null,
    },
    request_id: reply.request.id,
  });
}

export function iso(value: Date | string | null): string | null {
  if (value === null) return null;
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

export function isoRequired(value: Date | string): string {
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

/** What a create route says for each refusal of its operation. */
export type Refusals<C extends AcquirerRejectionCode> = Record<
  C,
  { message: string; param: string | null }
>;

/**
 * The answer of a create route: the operation's refusal in our error body, or its row on the wire (201
 * the first time, 200 with `Idempotent-Replayed: true` for a replay).
 */
export function sendCreated<R, C extends AcquirerRejectionCode>(
  reply: FastifyReply,
  result: Created<R, C>,
  toWire: (row: R) => unknown,
  refusals: Refusals<C>,
): FastifyReply {
  if ('rejected' in result)
    return reject(
      reply,
      result.rejected,
      refusals[result.rejected].message,
      refusals[result.rejected].param,
    );
  return created(reply, result.isNew).send(toWire(result.row));
}

/** A replay answers 200 with `Idempotent-Replayed: true`; the first answer is 201. */
export function created(reply: FastifyReply, isNew: boolean): FastifyReply {
  if (!isNew) reply.header('Idempotent-Replayed', 'true');
  return reply.code(isNew ? 201 : 200);
}

/** The simulator's own ids (`card_`, `txn_`, `rfd_`), prefix + `length` unbiased base62 characters (@pgw/domain's randomString). */
export function simId(prefix: 'card_' | 'txn_' | 'rfd_' | '', length = 24): string {
  return prefix + randomString(length);
}
