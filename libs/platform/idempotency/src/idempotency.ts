// Idempotency-Key (contract §3), kept beside the business rows it protects, in each service's own schema
// (table `idempotency_keys`, made by `createIdempotencyKeysTable` in the service's migration). The key is
// taken (in_progress) before the request changes anything, so that a concurrent twin sees it: either in
// its own short transaction before the work (the default), or in the work's first transaction, together
// with the resource it creates (`claim: 'with-work'`, one commit fewer). The business code then attaches
// the resource and stores the answer in the same transaction as the outcome it answers (Stripe's design;
// ARCHITECTURE "Idempotency keys live beside the business row they protect").
//
// A key is scoped by tenant, environment and seller scope (a seller-scoped API key has a namespace of its
// own, tenant-wide keys share the tenant's), method, canonical path (percent-decoded, as the principal
// binds it) and the key itself; and a stored answer naming a resource is replayed only to a caller that
// may read that resource (`IdempotentOptions.mayRead`).
//
// The request that holds an in-progress key holds it on a lease: it renews `locked_at` while it works
// (every LEASE_RENEW_MS), and each of its writes to the key checks that the lease is still its own
// (`lease_owner`). A twin takes over only a key whose lease ran out with nothing attached (its owner died
// before saving anything); should the owner still be alive after all, its next write to the key fails
// and rolls its work back, so the work never commits twice.
import { assert } from '@pgw/domain';
import { createHash, randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Knex } from 'knex';
import { afterCommit, inOneStatement, writeAtCommit, type Db, type Tx } from '@pgw/platform-db';
import { ApiError, canonicalPath } from '@pgw/platform-http';

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'idempotent-replayed';
export const IDEMPOTENCY_KEY_CHARS_MAX = 255;
export const KEY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * The lease on an in_progress key: one with nothing attached whose lease was not renewed for this long was
 * left by a request that died, and may be taken over.
 */
export const STALE_IN_PROGRESS_MS = 60_000;
/** How often a request renews the lease of the key it holds while it works: four times per lease. */
export const LEASE_RENEW_MS = STALE_IN_PROGRESS_MS / 4;

export interface Outcome {
  status: number;
  /** The body without request_id: each answer, first or replayed, carries its own request's id. */
  body: object;
}

interface KeyId {
  tenant_id: string;
  livemode: boolean;
  /** The key's seller for a seller-scoped API key; '' for a tenant-wide key (the tenant's namespace). */
  seller_scope: string;
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
  lease_owner: string | null;
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

export const requestHash = (body: unknown): string =>
  createHash('sha256')
    .update(canonicalJson(body ?? {}))
    .digest('hex');

/**
 * Whether the caller may read the resource a stored 2xx answer names (its body), asked with the query
 * that found the answer (in its transaction, if it has one).
 */
export type MayRead = (q: Knex | Tx, body: Record<string, unknown>) => Promise<boolean>;

/** What a key already held answers for this request. */
type Found =
  { kind: 'replay'; status: number; body: object } | { kind: 'reused' } | { kind: 'in_use' };

/** Thrown by `IdempotencySession.claim` when the key is not free: it rolls the work's transaction back. */
class KeyTaken extends Error {
  constructor(readonly found: Found) {
    super(`idempotency key taken: ${found.kind}`);
    this.name = 'KeyTaken';
  }
}

/**
 * Thrown by a write to a key whose lease another request took over (this one stopped renewing it for a
 * whole lease): it rolls the write's transaction back, so the work is not done a second time.
 */
class LeaseLost extends Error {
  constructor() {
    super('the lease on this Idempotency-Key was taken over by another request');
    this.name = 'LeaseLost';
  }
}

/**
 * What the business code does with the key inside its own transactions. Without a key every method is a
 * no-op, so the same code serves requests with and without one.
 */
export class IdempotencySession {
  private claimedKey: boolean;
  /** The transaction that is claiming the key, until it commits. */
  private claiming: Tx | null = null;
  private attachedResource = false;
  private done = false;
  /** This request's mark on the key's lease. */
  private readonly owner = randomUUID();
  private heartbeat: NodeJS.Timeout | null = null;
  /** What this request writes to its key in a transaction, at its commit (`write`). */
  private readonly changes = new WeakMap<Tx, KeyChange>();

  constructor(
    private readonly id: KeyId | null,
    private readonly hash: string,
    private readonly now: () => Date,
    claimed: boolean,
    private readonly lease: {
      db: Db;
      renewMs: number;
      onError(error: unknown): void;
    } | null = null,
    private readonly mayRead?: MayRead,
  ) {
    this.claimedKey = claimed;
  }

  /** The key is this request's (committed). */
  get claimed(): boolean {
    return this.claimedKey;
  }

  get completed(): boolean {
    return this.done;
  }

  get attached(): boolean {
    return this.attachedResource;
  }

  /**
   * Takes the key in `trx`, the work's first transaction (`claim: 'with-work'`), before anything else is
   * written in it. When the key is not free (a replay, another body, a twin in flight), it throws, which
   * rolls `trx` back, and `idempotent` answers from the key. A no-op when the key is already this
   * request's (the default mode claims it before the work) or when there is no key. With `resourceId`,
   * the id of what the work is about to create, the key is attached to it in the same statement (as
   * `attach` would, one round trip less).
   */
  async claim(trx: Tx, resourceId: string | null = null): Promise<void> {
    if (this.id === null) return;
    if (this.claimedKey || this.claiming === trx) {
      if (resourceId !== null) await this.attach(trx, resourceId);
      return;
    }
    const started = await begin(
      trx,
      this.id,
      this.hash,
      this.now(),
      this.owner,
      this.mayRead,
      resourceId,
    );
    if (started.kind !== 'new') throw new KeyTaken(started);
    this.claiming = trx;
    afterCommit(trx, () => {
      this.claimedKey = true;
      this.claiming = null;
      if (resourceId !== null) this.attachedResource = true;
      this.renewWhileWorking();
    });
  }

  /**
   * Takes the key attached to `resourceId` and makes `writes` (inserts that read nothing, e.g. the resource's
   * own) in one statement, outside any transaction: the key and the writes commit together in one round trip,
   * where `claim` in a transaction takes four (BEGIN, the key, the writes, COMMIT). A key that is not free
   * (a replay, another body, a twin in flight or done, an expired or stale lease) fails that statement on its
   * primary key, which writes nothing; the claim then runs as `claim` does, with the writes, in a transaction.
   */
  async claimWith(db: Db, resourceId: string, writes: Knex.Sql[]): Promise<void> {
    const inTransaction = () =>
      db.tx(async (trx) => {
        await this.claim(trx, resourceId);
        await inOneStatement(trx, writes);
      });
    // Without a key, the writes alone: one statement commits them together.
    if (this.id === null) return void (await db.read((q) => inOneStatement(q, writes)));
    if (this.claimedKey) return inTransaction();
    const key = db
      .knex('idempotency_keys')
      .insert(freshKey(this.id, this.hash, this.now(), this.owner, resourceId));
    try {
      await db.read((q) => inOneStatement(q, [key.toSQL(), ...writes]));
    } catch (error) {
      if (!isKeyConflict(error)) throw error;
      return inTransaction();
    }
    this.claimedKey = true;
    this.attachedResource = true;
  }

  /**
   * Links the key to the resource this request created: the key is then never given back, and a recovery
   * completes it (`completeKeysOf`) if the process dies before the answer is stored.
   */
  async attach(trx: Tx, resourceId: string): Promise<void> {
    if (this.id === null) return;
    this.write(trx, { resource_id: resourceId });
    afterCommit(trx, () => (this.attachedResource = true));
  }

  /** Stores the answer, in the transaction of the outcome it reports. 5xx answers are never kept. */
  async complete(trx: Tx, outcome: Outcome): Promise<void> {
    if (this.id === null) return;
    assert(outcome.status < 500, 'idempotency.keeps-no-5xx', { status: outcome.status });
    this.write(trx, {
      state: 'completed',
      response_status: outcome.status,
      response_json: JSON.stringify(outcome.body),
    });
    afterCommit(trx, () => this.finish());
  }

  /** Gives the key back (the request failed with nothing done): the client retries with the same key. */
  async release(trx: Tx): Promise<void> {
    if (this.id === null) return;
    this.write(trx, 'delete');
    afterCommit(trx, () => this.finish());
  }

  /** Stops renewing the lease: the request is over, whatever became of the key (`idempotent` calls it). */
  finish(): void {
    this.done = true;
    this.stopRenewing();
  }

  private stopRenewing(): void {
    if (this.heartbeat !== null) clearInterval(this.heartbeat);
    this.heartbeat = null;
  }

  /**
   * Writes to the key this request holds, if its lease is still this request's; otherwise the transaction
   * rolls back with LeaseLost. The write goes at commit, with the transaction's other deferred writes (its
   * events), one round trip fewer; nothing reads the key back before. Several writes in one transaction
   * (attach, then complete) are one update.
   */
  private write(trx: Tx, change: KeyChange): void {
    // Writing to a key this request does not hold would change another request's answer.
    assert(this.claimedKey || this.claiming === trx, 'idempotency.key-claimed-before-write');
    const before = this.changes.get(trx);
    this.changes.set(
      trx,
      before === undefined || before === 'delete' || change === 'delete'
        ? change
        : { ...before, ...change },
    );
    if (before !== undefined) return;
    writeAtCommit(
      trx,
      (q) => {
        const key = q('idempotency_keys').where({ ...this.id, lease_owner: this.owner });
        const merged = this.changes.get(trx) as KeyChange;
        return (merged === 'delete' ? key.delete('key') : key.update(merged, 'key')).toSQL();
      },
      () => new LeaseLost(),
    );
  }

  /**
   * Renews the lease (`locked_at`) while the key is in progress with nothing attached, the only state a
   * twin may take over: a slow request that is alive keeps its key. A renewal that fails is reported and
   * retried at the next beat; a renewal that finds the key no longer this request's stops the beats.
   */
  private renewWhileWorking(): void {
    const lease = this.lease;
    if (lease === null || this.id === null || this.heartbeat !== null) return;
    const id = this.id;
    let renewing = false;
    this.heartbeat = setInterval(() => {
      // Attached, the key is never taken over: nothing to renew, and the answer is still to be stored.
      if (this.done || this.attachedResource) return this.stopRenewing();
      if (renewing) return;
      renewing = true;
      lease.db
        .tx((trx) =>
          trx('idempotency_keys')
            .where({ ...id, lease_owner: this.owner, state: 'in_progress' })
            .update({ locked_at: this.now() }),
        )
        .then((renewed: number) => {
          if (renewed === 0) this.finish();
        })
        .catch(lease.onError)
        .finally(() => (renewing = false));
    }, lease.renewMs);
    this.heartbeat.unref();
  }
}

type Begin = { kind: 'new' } | Found;

/** A change to the key's row, or its deletion. */
type KeyChange = Record<string, unknown> | 'delete';

/** What an existing key means for this request: taken (Found), or free again (expired, or left stale by a crash). */
function judge(row: KeyRow, hash: string, now: Date): Found | 'expired' | 'stale' {
  // Kept 24 hours: an older key is a new key.
  if (new Date(row.created_at).getTime() <= now.getTime() - KEY_TTL_MS) return 'expired';
  if (row.request_hash !== hash) return { kind: 'reused' };
  if (row.state === 'completed') {
    assert(
      row.response_status !== null && row.response_json !== null,
      'idempotency.completed-key-has-answer',
    );
    return {
      kind: 'replay',
      status: row.response_status,
      body: JSON.parse(row.response_json) as object,
    };
  }
  if (
    row.resource_id === null &&
    new Date(row.locked_at).getTime() <= now.getTime() - STALE_IN_PROGRESS_MS
  )
    return 'stale';
  return { kind: 'in_use' };
}

/**
 * Takes the key, or says why not. A twin's uncommitted claim makes the insert wait for it (PostgreSQL's
 * unique index), then the row is read as that twin left it.
 */
/** A key as a request takes it: in progress, on this request's lease. */
function freshKey(id: KeyId, hash: string, now: Date, owner: string, resourceId: string | null) {
  return {
    ...id,
    request_hash: hash,
    state: 'in_progress',
    response_status: null,
    response_json: null,
    resource_id: resourceId,
    lease_owner: owner,
    locked_at: now,
    created_at: now,
  };
}

/** The key's row exists already (unique violation on its primary key). */
function isKeyConflict(error: unknown): boolean {
  const { code, constraint } = (error ?? {}) as { code?: unknown; constraint?: unknown };
  return code === '23505' && constraint === 'idempotency_keys_pkey';
}

async function begin(
  trx: Tx,
  id: KeyId,
  hash: string,
  now: Date,
  owner: string,
  mayRead: MayRead | undefined,
  resourceId: string | null,
): Promise<Begin> {
  const fresh = freshKey(id, hash, now, owner, resourceId);
  const inserted = await trx('idempotency_keys')
    .insert(fresh)
    .onConflict(['tenant_id', 'livemode', 'seller_scope', 'method', 'path', 'key'])
    .ignore()
    .returning('key');
  if (inserted.length > 0) return { kind: 'new' };
  const row = await trx('idempotency_keys').where(id).forUpdate().first<KeyRow | undefined>();
  assert(row !== undefined, 'idempotency.key-row-present-under-lock');
  const found = judge(row, hash, now);
  if (found === 'expired') {
    await trx('idempotency_keys').where(id).update(fresh);
    return { kind: 'new' };
  }
  if (found === 'stale') {
    // The lease ran out: its owner died (a live owner renews it). The key is this request's now, and a
    // late write of the old owner finds it so and fails.
    await trx('idempotency_keys')
      .where(id)
      .update({ lease_owner: owner, locked_at: now, resource_id: resourceId });
    return { kind: 'new' };
  }
  return readableBy(trx, found, mayRead);
}

/**
 * A stored 2xx answer names a resource: it is replayed only to a caller that may read it, and is
 * otherwise answered as a key used for another request, telling nothing about it (contract §3).
 */
async function readableBy(
  q: Knex | Tx,
  found: Found,
  mayRead: MayRead | undefined,
): Promise<Found> {
  if (found.kind !== 'replay' || found.status >= 300 || mayRead === undefined) return found;
  return (await mayRead(q, found.body as Record<string, unknown>)) ? found : { kind: 'reused' };
}

/** What the key answers without taking it (one read): null when it is free. */
async function peek(
  db: Db,
  id: KeyId,
  hash: string,
  now: Date,
  mayRead: MayRead | undefined,
): Promise<Found | null> {
  return db.read(async (q) => {
    const row = await q('idempotency_keys').where(id).first<KeyRow | undefined>();
    if (row === undefined) return null;
    const found = judge(row, hash, now);
    return found === 'expired' || found === 'stale' ? null : readableBy(q, found, mayRead);
  });
}

/**
 * Completes, from a recovery, the keys still in progress on a resource whose outcome is now known (a
 * service whose resource and answer commit apart, like a charge intent and its outcome).
 */
export async function completeKeysOf(trx: Tx, resourceId: string, outcome: Outcome): Promise<void> {
  await trx('idempotency_keys')
    .where({ resource_id: resourceId, state: 'in_progress' })
    .update({
      state: 'completed',
      response_status: outcome.status,
      response_json: JSON.stringify(outcome.body),
    });
}

/** Deletes up to `limit` keys older than 24 hours; returns how many. */
export async function purgeExpiredKeys(db: Db, now: Date, limit: number): Promise<number> {
  return db.tx(async (trx) => {
    const old = await trx('idempotency_keys')
      .where('created_at', '<=', new Date(now.getTime() - KEY_TTL_MS))
      .limit(limit)
      .select<KeyId[]>('tenant_id', 'livemode', 'seller_scope', 'method', 'path', 'key');
    for (const id of old) await trx('idempotency_keys').where(id).delete();
    return old.length;
  });
}

export interface IdempotencyDeps {
  db: Db;
  clock: { now(): Date };
  /** How often the lease of a held key is renewed (LEASE_RENEW_MS unless a test shortens it). */
  leaseRenewMs?: number;
}

/** Who sends the request: the API key's tenant, environment and seller (null for a tenant-wide key). */
export interface IdempotencyScope {
  tenantId: string;
  livemode: boolean;
  sellerId: string | null;
}

export interface IdempotentOptions {
  /** What identifies the request, when not the whole body (POST /charges leaves the security code out). */
  hashed?: unknown;
  /**
   * When the key is taken. `'before'` (the default): in its own transaction before `work` runs. `'with-work'`:
   * `work` takes it with `session.claim(trx)` as the first step of its first writing transaction, so the
   * claim commits with what that transaction writes (one commit fewer). What `work` does before that claim
   * must change nothing (reads, calls that only look things up): a twin may be doing it at the same time,
   * and only one of them will get the key.
   */
  claim?: 'before' | 'with-work';
  /**
   * Whether the caller may read the resource a stored 2xx answer names, checked before it is replayed: a
   * stored answer goes only to a caller who could have fetched it. One that may not is answered as a key
   * used for another request (409 idempotency_key_reused), telling nothing about it.
   */
  mayRead?: MayRead;
}

/**
 * Runs `work` under the request's Idempotency-Key, if it has one, and sends its answer (`work` last, so
 * that a call reads as a block; `options` may be {}). A replay answers
 * the stored status and body with `Idempotent-Replayed: true`; a key in use or reused answers 409. A 4xx
 * is kept (the same request would fail the same way); a 5xx or a bug gives the key back, unless a
 * resource was attached, whose outcome recovery will store. With `claim: 'with-work'`, a request that
 * ends before `work` claimed the key answers from the key if another request holds it (so a replay does
 * not depend on what `work` looked up first), and otherwise keeps its 4xx in one transaction.
 */
export async function idempotent(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: IdempotencyDeps,
  scope: IdempotencyScope,
  options: IdempotentOptions,
  work: (session: IdempotencySession) => Promise<Outcome>,
): Promise<FastifyReply> {
  const header = request.headers[IDEMPOTENCY_KEY_HEADER];
  const now = () => deps.clock.now();
  if (header === undefined) {
    const outcome = await work(new IdempotencySession(null, '', now, true));
    return reply.code(outcome.status).send(outcome.body);
  }
  const key = Array.isArray(header) ? header.join(', ') : header;
  if (key.length === 0 || key.length > IDEMPOTENCY_KEY_CHARS_MAX) {
    throw new ApiError(
      'parameter_invalid',
      `Idempotency-Key: must be 1 to ${IDEMPOTENCY_KEY_CHARS_MAX} characters`,
      'Idempotency-Key',
    );
  }
  const id: KeyId = {
    tenant_id: scope.tenantId,
    livemode: scope.livemode,
    seller_scope: scope.sellerId ?? '',
    method: request.method,
    // As the principal binds it: `/charges/%63h_1/refund` is `/charges/ch_1/refund`, one key.
    path: canonicalPath(request.url.split('?')[0] ?? request.url),
    key,
  };
  const hash = requestHash('hashed' in options ? options.hashed : request.body);
  const answerFromKey = (found: Found): FastifyReply => {
    switch (found.kind) {
      case 'replay':
        return reply.code(found.status).header(REPLAYED_HEADER, 'true').send(found.body);
      case 'reused':
        throw new ApiError(
          'idempotency_key_reused',
          'This Idempotency-Key was used with a different request.',
        );
      case 'in_use':
        throw new ApiError(
          'idempotency_key_in_use',
          'A request with this Idempotency-Key is still being processed; retry later.',
        );
    }
  };

  const session = new IdempotencySession(
    id,
    hash,
    now,
    false,
    {
      db: deps.db,
      renewMs: deps.leaseRenewMs ?? LEASE_RENEW_MS,
      onError: (error) =>
        request.log.warn({ err: error }, 'idempotency: the lease of the key could not be renewed'),
    },
    options.mayRead,
  );
  try {
    if (options.claim !== 'with-work') {
      try {
        await deps.db.tx((trx) => session.claim(trx));
      } catch (error) {
        if (error instanceof KeyTaken) return answerFromKey(error.found);
        throw error;
      }
    }

    /** Stores the answer of a request that ended before claiming the key, in one transaction; or says who holds the key. */
    const keepUnclaimed = async (outcome: Outcome): Promise<Found | null> => {
      try {
        await deps.db.tx(async (trx) => {
          await session.claim(trx);
          await session.complete(trx, outcome);
        });
        return null;
      } catch (error) {
        if (error instanceof KeyTaken) return error.found;
        throw error;
      }
    };

    let outcome: Outcome;
    try {
      outcome = await work(session);
    } catch (error) {
      if (error instanceof KeyTaken) return answerFromKey(error.found);
      if (!session.completed && !(error instanceof LeaseLost)) {
        if (error instanceof ApiError && error.status < 500) {
          const body = {
            error: {
              type: error.type,
              code: error.code,
              message: error.message,
              param: error.param,
            },
          };
          if (session.claimed) {
            await deps.db.tx((trx) => session.complete(trx, { status: error.status, body }));
          } else {
            const found = await keepUnclaimed({ status: error.status, body });
            if (found !== null) return answerFromKey(found);
          }
        } else if (!session.claimed) {
          const found = await peek(deps.db, id, hash, now(), options.mayRead);
          if (found !== null) return answerFromKey(found);
        } else if (!session.attached) {
          await deps.db.tx((trx) => session.release(trx));
        }
      }
      throw error;
    }
    if (!session.completed) {
      if (!session.claimed) {
        const found =
          outcome.status < 500
            ? await keepUnclaimed(outcome)
            : await peek(deps.db, id, hash, now(), options.mayRead);
        if (found !== null) return answerFromKey(found);
      } else {
        await deps.db.tx((trx) =>
          outcome.status < 500 ? session.complete(trx, outcome) : session.release(trx),
        );
      }
    }
    return reply.code(outcome.status).send(outcome.body);
  } catch (error) {
    // Another request took the key over while this one was not renewing it: this one's write was rolled
    // back, and the key is the other's to answer.
    if (error instanceof LeaseLost) return answerFromKey({ kind: 'in_use' });
    throw error;
  } finally {
    // Whatever became of the key, this request no longer renews its lease.
    session.finish();
  }
}
