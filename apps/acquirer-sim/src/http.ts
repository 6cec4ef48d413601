import { randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { AcquirerRejectionCode } from '@pgw/acquirer';

// The simulator's own refusals, in the shape of our error body (contract §2) so that one parser reads
// both; their codes are the acquirer port's rejection codes, not the public API's.

export function reject(reply: FastifyReply, code: AcquirerRejectionCode, message: string, param: string | null = null): FastifyReply {
  const status = code === 'reference_reused' ? 409 : 422;
  const type = code === 'reference_reused' ? 'idempotency_error' : 'invalid_request_error';
  return reply.code(status).send({ error: { type, code, message, param }, request_id: reply.request.id });
}

export function notFoundReply(reply: FastifyReply, what: string): FastifyReply {
  return reply
    .code(404)
    .send({ error: { type: 'not_found_error', code: 'resource_not_found', message: `No such ${what}.`, param: null }, request_id: reply.request.id });
}

export function iso(value: Date | string | null): string | null {
  if (value === null) return null;
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

export function isoRequired(value: Date | string): string {
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

/** A replay answers 200 with `Idempotent-Replayed: true`; the first answer is 201. */
export function created(reply: FastifyReply, isNew: boolean): FastifyReply {
  if (!isNew) reply.header('Idempotent-Replayed', 'true');
  return reply.code(isNew ? 201 : 200);
}

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** The simulator's own ids (`card_`, `txn_`, `rfd_`), prefix + `length` base62 characters, unbiased. */
export function simId(prefix: 'card_' | 'txn_' | 'rfd_' | '', length = 24): string {
  let out = prefix;
  // 248 = 4 × 62: larger bytes are dropped so every character is equally likely; bounded rounds.
  for (let round = 0; round < 16 && out.length < prefix.length + length; round++) {
    for (const byte of randomBytes(length + 8)) {
      if (byte < 248 && out.length < prefix.length + length) out += ALPHABET[byte % 62];
    }
  }
  if (out.length < prefix.length + length) throw new Error('simId: random source rejected too many bytes');
  return out;
}
