// Idempotency-Key (contract §3), kept beside the business rows it protects, in each service's own schema
// (table `idempotency_keys`, made by `createIdempotencyKeysTable` in the service's migration): the key is
// taken (in_progress) in its own short transaction before any work, so that a concurrent twin sees it; the
// business code then attaches the resource it creates and stores the answer in the same transaction as
// the outcome it answers (Stripe's design; ARCHITECTURE "Idempotency keys live beside the business row
// they protect").
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { afterCommit, type Db, type Tx } from '@pgw/platform-db';
import { ApiError } from '@pgw/platform-http';

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'idempotent-replayed';
export const IDEMPOTENCY_KEY_CHARS_MAX = 255;
export const KEY_TTL_MS = 24 * 60 * 60 * 1000;
/** An in_progress key with nothing attached and older than this was left by a crash: it may be taken over. */
export const STALE_IN_PROGRESS_MS = 60_000;

export interface Outcome {
  status: number;
  /** The body without request_id: each answer, first or replayed, carries its own request's id. */
  body: object;
}

interface KeyId {
  tenant_id: string;
  livemode: boolean;
  method: string;
  path: string;
  key: string;
}

interface KeyRow extends KeyId {
  request_hash: string;
  state: 'in_progress' | 'completed';
  response_status: number | null;
  response_json: string | null;
  resource_id: string | null;
  locked_at: Date | string;
  created_at: Date | string;
}

/** JSON with object keys sorted at every level, so the same request always hashes the same. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export const requestHash = (body: unknown): string => createHash('sha256').update(canonicalJson(body ?? {})).digest('hex');

/**
 * What the business code does with the key inside its own transactions. Without a key every method is a
 * no-op, so the same code serves requests with and without one.
 */
export class IdempotencySession {
  private attachedResource = false;
  private done = false;

  constructor(private readonly id: KeyId | null) {}

  get completed(): boolean {
    return this.done;
  }

  get attached(): boolean {
    return this.attachedResource;
  }

  /**
   * Links the key to the resource this request created: the key is then never given back, and a recovery
   * completes it (`completeKeysOf`) if the process dies before the answer is stored.
   */
  async attach(trx: Tx, resourceId: string): Promise<void> {
    if (this.id === null) return;
    await trx('idempotency_keys').where(this.id).update({ resource_id: resourceId });
    afterCommit(trx, () => (this.attachedResource = true));
  }

  /** Stores the answer, in the transaction of the outcome it reports. 5xx answers are never kept. */
  async complete(trx: Tx, outcome: Outcome): Promise<void> {
    if (this.id === null) return;
    if (outcome.status >= 500) throw new Error('5xx answers are not kept under an idempotency key');
    await trx('idempotency_keys').where(this.id).update({ state: 'completed', response_status: outcome.status, response_json: JSON.stringify(outcome.body) });
    afterCommit(trx, () => (this.done = true));
  }

  /** Gives the key back (the request failed with nothing done): the client retries with the same key. */
  async release(trx: Tx): Promise<void> {
    if (this.id === null) return;
    await trx('idempotency_keys').where(this.id).delete();
    afterCommit(trx, () => (this.done = true));
  }
}

type Begin = { kind: 'new' } | { kind: 'replay'; status: number; body: object } | { kind: 'reused' } | { kind: 'in_use' };

async function begin(trx: Tx, id: KeyId, hash: string, now: Date): Promise<Begin> {
  const fresh = { ...id, request_hash: hash, state: 'in_progress', response_status: null, response_json: null, resource_id: null, locked_at: now, created_at: now };
  const inserted = await trx('idempotency_keys').insert(fresh).onConflict(['tenant_id', 'livemode', 'method', 'path', 'key']).ignore().returning('key');
  if (inserted.length > 0) return { kind: 'new' };
  const row = await trx('idempotency_keys').where(id).forUpdate().first<KeyRow | undefined>();
  if (row === undefined) throw new Error('idempotency key row vanished between insert and select');
  if (new Date(row.created_at).getTime() <= now.getTime() - KEY_TTL_MS) {
    // Kept 24 hours: an older key is a new key.
    await trx('idempotency_keys').where(id).update(fresh);
    return { kind: 'new' };
  }
  if (row.request_hash !== hash) return { kind: 'reused' };
  if (row.state === 'completed') {
    if (row.response_status === null || row.response_json === null) throw new Error('completed idempotency key without its answer');
    return { kind: 'replay', status: row.response_status, body: JSON.parse(row.response_json) as object };
  }
  if (row.resource_id === null && new Date(row.locked_at).getTime() <= now.getTime() - STALE_IN_PROGRESS_MS) {
    await trx('idempotency_keys').where(id).update({ locked_at: now });
    return { kind: 'new' };
  }
  return { kind: 'in_use' };
}

/**
 * Completes, from a recovery, the keys still in progress on a resource whose outcome is now known (a
 * service whose resource and answer commit apart, like a charge intent and its outcome).
 */
export async function completeKeysOf(trx: Tx, resourceId: string, outcome: Outcome): Promise<void> {
  await trx('idempotency_keys')
    .where({ resource_id: resourceId, state: 'in_progress' })
    .update({ state: 'completed', response_status: outcome.status, response_json: JSON.stringify(outcome.body) });
}

/** Deletes up to `limit` keys older than 24 hours; returns how many. */
export async function purgeExpiredKeys(db: Db, now: Date, limit: number): Promise<number> {
  return db.tx(async (trx) => {
    const old = await trx('idempotency_keys').where('created_at', '<=', new Date(now.getTime() - KEY_TTL_MS)).limit(limit).select<KeyId[]>('tenant_id', 'livemode', 'method', 'path', 'key');
    for (const id of old) await trx('idempotency_keys').where(id).delete();
    return old.length;
  });
}

export interface IdempotencyDeps {
  db: Db;
  clock: { now(): Date };
}

/**
 * Runs `work` under the request's Idempotency-Key, if it has one, and sends its answer. A replay answers
 * the stored status and body with `Idempotent-Replayed: true`; a key in use or reused answers 409. A 4xx
 * is kept (the same request would fail the same way); a 5xx or a bug gives the key back, unless a
 * resource was attached, whose outcome recovery will store.
 */
export async function idempotent(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: IdempotencyDeps,
  scope: { tenantId: string; livemode: boolean },
  work: (session: IdempotencySession) => Promise<Outcome>,
  /** What identifies the request, when not the whole body (POST /charges leaves the security code out). */
  hashed: unknown = request.body,
): Promise<FastifyReply> {
  const header = request.headers[IDEMPOTENCY_KEY_HEADER];
  if (header === undefined) {
    const outcome = await work(new IdempotencySession(null));
    return reply.code(outcome.status).send(outcome.body);
  }
  const key = Array.isArray(header) ? header.join(', ') : header;
  if (key.length === 0 || key.length > IDEMPOTENCY_KEY_CHARS_MAX) {
    throw new ApiError('parameter_invalid', `Idempotency-Key: must be 1 to ${IDEMPOTENCY_KEY_CHARS_MAX} characters`, 'Idempotency-Key');
  }
  const id: KeyId = { tenant_id: scope.tenantId, livemode: scope.livemode, method: request.method, path: request.url.split('?')[0] ?? request.url, key };
  const started = await deps.db.tx((trx) => begin(trx, id, requestHash(hashed), deps.clock.now()));
  switch (started.kind) {
    case 'replay':
      return reply.code(started.status).header(REPLAYED_HEADER, 'true').send(started.body);
    case 'reused':
      throw new ApiError('idempotency_key_reused', 'This Idempotency-Key was used with a different request.');
    case 'in_use':
      throw new ApiError('idempotency_key_in_use', 'A request with this Idempotency-Key is still being processed; retry later.');
    case 'new':
      break;
  }

  const session = new IdempotencySession(id);
  let outcome: Outcome;
  try {
    outcome = await work(session);
  } catch (error) {
    if (!session.completed) {
      if (error instanceof ApiError && error.status < 500) {
        const body = { error: { type: error.type, code: error.code, message: error.message, param: error.param } };
        await deps.db.tx((trx) => session.complete(trx, { status: error.status, body }));
      } else if (!session.attached) {
        await deps.db.tx((trx) => session.release(trx));
      }
    }
    throw error;
  }
  if (!session.completed) {
    await deps.db.tx((trx) => (outcome.status < 500 ? session.complete(trx, outcome) : session.release(trx)));
  }
  return reply.code(outcome.status).send(outcome.body);
}
