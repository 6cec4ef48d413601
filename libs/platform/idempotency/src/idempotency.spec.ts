import { createPgliteKnex, sharedDb, type Db } from '@pgw/platform-db';
import { ApiError, buildApp, type App } from '@pgw/platform-http';
import {
  canonicalJson,
  completeKeysOf,
  idempotent,
  KEY_TTL_MS,
  purgeExpiredKeys,
  requestHash,
  STALE_IN_PROGRESS_MS,
  type IdempotentOptions,
} from './idempotency';
import { createIdempotencyKeysTable, scopeIdempotencyKeysBySeller } from './migration';

// The module on its own, under a route of a made-up service that creates "things": the same calls the
// charges and anticipation routes make, on the embedded PostgreSQL. What each service does with a key
// (charges, captures, refunds, anticipations) is proven again by the services' own specs.
const knex = createPgliteKnex(null);
let db: Db;
let app: App;
let now = new Date('2026-11-20T12:00:00.000Z');
const clock = { now: () => now };

/**
 * What the next request's work does: create a thing (and answer 201); fail before writing anything with a
 * 4xx or a 5xx; crash once the thing is saved; or write to the key without claiming it (a bug).
 */
let behaviour:
  | 'create'
  | 'refuse'
  | 'unavailable'
  | 'answer_503'
  | 'crash_after_attach'
  | 'forget_claim'
  | 'slow'
  | 'late_answer' = 'create';
/** While set, work waits for it once its thing is saved: a test holds a request in flight. */
let gate: Promise<void> | null = null;
let saved = 0;
/** Requests that took the key and started working (for 'slow': before anything is saved). */
let working = 0;
/** How often a held key's lease is renewed here: short, so that a test sees renewals in milliseconds. */
const LEASE_RENEW_TEST_MS = 10;

beforeAll(async () => {
  db = sharedDb(knex, 'idem');
  await db.migrate([
    { name: '0001_keys', up: createIdempotencyKeysTable },
    {
      name: '0002_things',
      up: async (trx) =>
        void (await trx.raw(
          'create table things (id text primary key, tenant_id text not null, name text not null)',
        )),
    },
    { name: '0003_keys_by_seller', up: scopeIdempotencyKeysBySeller },
    {
      name: '0004_things_of_sellers',
      up: async (trx) => void (await trx.raw('alter table things add column seller_id text')),
    },
  ]);
  app = buildApp({ name: `idempotency-spec-${mode}`, log: { level: 'silent' } });
  app.post<{
    Body: { name: string };
    Headers: { 'x-tenant'?: string; 'x-seller'?: string; 'x-claim'?: string };
  }>('/things', async (request, reply) => {
    const tenantId = request.headers['x-tenant'] ?? 'ten_a';
    // A seller-scoped key sends x-seller; a tenant-wide key does not.
    const sellerId = request.headers['x-seller'] ?? null;
    const claim = request.headers['x-claim'] === 'before' ? 'before' : 'with-work';
    const keyOptions: IdempotentOptions = {
      claim,
      // A seller-scoped key reads its own seller's things only; a tenant-wide key reads them all.
      mayRead: async (q, { id }) => {
        const thing = await q('things').where({ id, tenant_id: tenantId }).first();
        return thing !== undefined && (sellerId === null || thing.seller_id === sellerId);
      },
    };
    return idempotent(
      request,
      reply,
      { db, clock, leaseRenewMs: LEASE_RENEW_TEST_MS },
      { tenantId, livemode: false, sellerId },
      keyOptions,
      async (session) => {
        // What a service may do before its first writing transaction (look things up) and fail at.
        if (behaviour === 'refuse')
          throw new ApiError('parameter_invalid', 'name: refused', 'name');
        if (behaviour === 'unavailable') throw new ApiError('service_unavailable', 'try again');
        if (behaviour === 'answer_503')
          return { status: 503, body: { error: { code: 'service_unavailable' } } };
        const id = `thing_${Math.random().toString(36).slice(2)}`;
        const body = { object: 'thing', id, name: request.body.name };
        if (behaviour === 'slow') {
          // Takes the key, then works a long time before saving anything (a slow provider call).
          await db.tx((trx) => session.claim(trx));
          working++;
          if (gate !== null) await gate;
          await db.tx(async (trx) => {
            await trx('things').insert({
              id,
              tenant_id: tenantId,
              seller_id: sellerId,
              name: request.body.name,
            });
            await session.attach(trx, id);
            await session.complete(trx, { status: 201, body });
          });
          saved++;
          return { status: 201, body };
        }
        const thing = { id, tenant_id: tenantId, seller_id: sellerId, name: request.body.name };
        if (request.headers['x-claim'] === 'one-statement' && behaviour !== 'forget_claim')
          // The claim and the thing in one statement (as charges creates a charge).
          await session.claimWith(db, id, [db.knex('things').insert(thing).toSQL()]);
        else
          await db.tx(async (trx) => {
            // The thing's id is known before it is saved: the claim links the key to it;
            // a key claimed before the work is linked by the same call.
            if (behaviour !== 'forget_claim') await session.claim(trx, id);
            await trx('things').insert(thing);
            if (behaviour === 'forget_claim') await session.attach(trx, id);
          });
        saved++;
        if (gate !== null) await gate;
        if (behaviour === 'crash_after_attach')
          throw new Error('simulated crash after the resource was saved');
        if (behaviour === 'late_answer') {
          // Works on for several lease beats after the claim attached the thing, and leaves the answer to
          // `idempotent` to store.
          await new Promise((resolve) => setTimeout(resolve, 5 * LEASE_RENEW_TEST_MS));
          return { status: 201, body };
        }
        await db.tx((trx) => session.complete(trx, { status: 201, body }));
        return { status: 201, body };
      },
    );
  });
  await app.ready();
}, 60_000);

afterAll(async () => {
  await app.close();
  await knex.destroy();
});

beforeEach(() => {
  behaviour = 'create';
  gate = null;
});

let seq = 0;
const freshKey = () => `k-${++seq}-${Math.random().toString(36).slice(2)}`;
/** When the key is taken: before the work, in its first transaction, or in one statement with its insert. */
let mode: 'before' | 'with-work' | 'one-statement' = 'before';
const post = (
  key: string | null,
  body: object = { name: `a-${mode}` },
  tenant = 'ten_a',
  options: { seller?: string; url?: string } = {},
) =>
  app.inject({
    method: 'POST',
    url: options.url ?? '/things',
    payload: body,
    headers: {
      'x-tenant': tenant,
      'x-claim': mode,
      ...(options.seller === undefined ? {} : { 'x-seller': options.seller }),
      ...(key === null ? {} : { 'idempotency-key': key }),
    },
  });
const things = async (name: string) => (await db.read((q) => q('things').where({ name }))).length;
/** Each answer, first or replayed, carries its own request's id (the platform adds it). */
const withoutRequestId = (body: Record<string, unknown>) => {
  const { request_id: _r, ...rest } = body;
  return rest;
};
const keyRow = async (key: string) => db.read((q) => q('idempotency_keys').where({ key }).first());

describe.each(['before', 'with-work', 'one-statement'] as const)(
  'idempotent (contract §3), the key claimed %s',
  (claimMode) => {
    beforeAll(() => {
      mode = claimMode;
    });

    it('replays the first answer, same status and body, with Idempotent-Replayed: true, and does the work once', async () => {
      // Proves a retried request does nothing twice and answers the same.
      const key = freshKey();
      const first = await post(key, { name: `replayed-${mode}` });
      const again = await post(key, { name: `replayed-${mode}` });
      expect([first.statusCode, again.statusCode]).toEqual([201, 201]);
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(withoutRequestId(again.json())).toEqual(withoutRequestId(first.json()));
      expect(await things(`replayed-${mode}`)).toBe(1);
    });

    it('answers 409 idempotency_key_reused for another body; the same body in another key order is a replay', async () => {
      // Proves the key binds the canonical request body.
      const key = freshKey();
      expect((await post(key, { name: `bound-${mode}` })).statusCode).toBe(201);
      const other = await post(key, { name: `other-${mode}` });
      expect(other.statusCode).toBe(409);
      expect(other.json().error).toMatchObject({
        type: 'idempotency_error',
        code: 'idempotency_key_reused',
      });
      expect(canonicalJson({ b: 1, a: [{ d: 2, c: 3 }] })).toBe(
        canonicalJson({ a: [{ c: 3, d: 2 }], b: 1 }),
      );
      expect(requestHash({ b: 1, a: 2 })).toBe(requestHash({ a: 2, b: 1 }));
      expect(requestHash({ a: 1 })).not.toBe(requestHash({ a: 2 }));
    });

    it('answers 409 idempotency_key_in_use while the first request is still running, then replays it', async () => {
      // Proves a twin arriving mid-flight is told to wait, and the first still completes once.
      const key = freshKey();
      let release!: () => void;
      gate = new Promise((resolve) => (release = resolve));
      const before = saved;
      const first = post(key, { name: `in-use-${mode}` });
      while (saved === before) await new Promise((r) => setTimeout(r, 5));
      const twin = await post(key, { name: `in-use-${mode}` });
      release();
      expect(twin.statusCode).toBe(409);
      expect(twin.json().error).toMatchObject({
        type: 'idempotency_error',
        code: 'idempotency_key_in_use',
      });
      expect((await first).statusCode).toBe(201);
      expect((await post(key, { name: `in-use-${mode}` })).headers['idempotent-replayed']).toBe(
        'true',
      );
      expect(await things(`in-use-${mode}`)).toBe(1);
    });

    it('20 concurrent identical requests do the work once: each answer is the first one or 409 in use', async () => {
      // Proves the claim is atomic.
      const key = freshKey();
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => post(key, { name: `twenty-${mode}` })),
      );
      expect(
        new Set(answers.filter((a) => a.statusCode === 201).map((a) => a.json().id)).size,
      ).toBe(1);
      for (const a of answers)
        expect(a.statusCode === 201 || a.json().error.code === 'idempotency_key_in_use').toBe(true);
      expect(await things(`twenty-${mode}`)).toBe(1);
    });

    it.each([
      ['empty', ''],
      ['256 characters', 'k'.repeat(256)],
    ])(
      'refuses a key that is %s: 422 parameter_invalid on Idempotency-Key, and does nothing',
      async (_name, key) => {
        // Proves the key's length limits (1 to 255).
        const res = await post(key, { name: `bad-key-${key.length}-${mode}` });
        expect(res.statusCode).toBe(422);
        expect(res.json().error).toMatchObject({
          code: 'parameter_invalid',
          param: 'Idempotency-Key',
        });
        expect(await things(`bad-key-${key.length}-${mode}`)).toBe(0);
      },
    );

    it('scopes a key by tenant: the same key and body of another tenant is a new request', async () => {
      // Proves a replay never crosses tenants.
      const key = freshKey();
      const a = await post(key, { name: `scoped-${mode}` }, 'ten_a');
      const b = await post(key, { name: `scoped-${mode}` }, 'ten_b');
      expect(b.headers['idempotent-replayed']).toBeUndefined();
      expect(b.json().id).not.toBe(a.json().id);
    });

    it('without a key, every request does the work', async () => {
      // Proves the no-key path runs the same code and keeps nothing.
      await post(null, { name: `keyless-${mode}` });
      await post(null, { name: `keyless-${mode}` });
      expect(await things(`keyless-${mode}`)).toBe(2);
    });

    it('keeps a 4xx answer and replays it', async () => {
      // Proves a refusal is the request's answer: the same request is refused the same way, without running again.
      const key = freshKey();
      behaviour = 'refuse';
      const refused = await post(key, { name: `refused-${mode}` });
      behaviour = 'create';
      const again = await post(key, { name: `refused-${mode}` });
      expect([refused.statusCode, again.statusCode]).toEqual([422, 422]);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.json().error).toEqual(refused.json().error);
      expect(await things(`refused-${mode}`)).toBe(0);
    });

    it.each([
      ['thrown', 'unavailable'],
      ['returned', 'answer_503'],
    ] as const)(
      'does not keep a 5xx (%s): the key is given back and a retry with it goes through',
      async (_how, failure) => {
        // Proves "responses with status 5xx are not kept".
        const key = freshKey();
        behaviour = failure;
        expect((await post(key, { name: `5xx-${failure}-${mode}` })).statusCode).toBe(503);
        expect(await keyRow(key)).toBeUndefined();
        behaviour = 'create';
        const retried = await post(key, { name: `5xx-${failure}-${mode}` });
        expect(retried.statusCode).toBe(201);
        expect(retried.headers['idempotent-replayed']).toBeUndefined();
      },
    );

    it('keeps the key of a request that crashed after saving its resource, until a recovery completes it', async () => {
      // Proves an attached key is never given back (the retry would do the work twice), and completeKeysOf.
      const key = freshKey();
      behaviour = 'crash_after_attach';
      expect((await post(key, { name: `crashed-${mode}` })).statusCode).toBe(500);
      behaviour = 'create';
      expect((await post(key, { name: `crashed-${mode}` })).json().error.code).toBe(
        'idempotency_key_in_use',
      );
      const row = await keyRow(key);
      expect(row).toMatchObject({ state: 'in_progress' });
      await db.tx((trx) =>
        completeKeysOf(trx, row.resource_id, {
          status: 201,
          body: { object: 'thing', id: row.resource_id, name: `crashed-${mode}` },
        }),
      );
      const replay = await post(key, { name: `crashed-${mode}` });
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(withoutRequestId(replay.json())).toEqual({
        object: 'thing',
        id: row.resource_id,
        name: `crashed-${mode}`,
      });
      expect(await things(`crashed-${mode}`)).toBe(1);
    });

    it('takes over a key left in progress with nothing attached, once it is stale', async () => {
      // Proves a crash before anything was saved does not block the key forever, nor too soon.
      const key = freshKey();
      const body = { name: `stale-${mode}` };
      await db.tx((trx) =>
        trx('idempotency_keys').insert({
          tenant_id: 'ten_a',
          livemode: false,
          seller_scope: '',
          method: 'POST',
          path: '/things',
          key,
          request_hash: requestHash(body),
          state: 'in_progress',
          lease_owner: 'a-request-that-died',
          locked_at: now,
          created_at: now,
        }),
      );
      expect((await post(key, body)).json().error.code).toBe('idempotency_key_in_use');
      now = new Date(now.getTime() + STALE_IN_PROGRESS_MS);
      expect((await post(key, body)).statusCode).toBe(201);
    });

    it('never takes over the key of a slow request that is still alive: it renews its lease, the twin gets 409 in use', async () => {
      // Proves the heartbeat: a request working longer than a lease keeps its key, and the work runs once.
      const key = freshKey();
      const body = { name: `slow-${mode}` };
      behaviour = 'slow';
      let release!: () => void;
      gate = new Promise((resolve) => (release = resolve));
      const before = working;
      const first = post(key, body);
      while (working === before) await new Promise((r) => setTimeout(r, 5));
      for (let lease = 0; lease < 3; lease++) {
        // A whole lease passes while the first works; it renews the lease meanwhile.
        now = new Date(now.getTime() + STALE_IN_PROGRESS_MS + 1);
        // Up to 2 s (hundreds of renewals) for the first to renew it; then the twin is sent either way.
        for (
          let waited = 0;
          waited < 2000 && new Date((await keyRow(key)).locked_at).getTime() < now.getTime();
          waited += 5
        )
          await new Promise((r) => setTimeout(r, 5));
        const twin = await post(key, body);
        expect(twin.statusCode).toBe(409);
        expect(twin.json().error.code).toBe('idempotency_key_in_use');
      }
      release();
      expect((await first).statusCode).toBe(201);
      expect(working - before).toBe(1);
      expect(await things(`slow-${mode}`)).toBe(1);
      expect((await post(key, body)).headers['idempotent-replayed']).toBe('true');
    });

    it('a request that lost its lease (another took the key over) commits nothing: the work is done once', async () => {
      // Proves the fencing: should the owner be alive after a takeover, its late write fails and rolls back.
      const key = freshKey();
      const body = { name: `fenced-${mode}` };
      behaviour = 'slow';
      let release!: () => void;
      gate = new Promise((resolve) => (release = resolve));
      const before = working;
      const first = post(key, body);
      while (working === before) await new Promise((r) => setTimeout(r, 5));
      // What a twin's takeover leaves: the key's lease is another request's.
      await db.tx((trx) =>
        trx('idempotency_keys').where({ key }).update({ lease_owner: 'the-twin-that-took-over' }),
      );
      release();
      const late = await first;
      expect(late.statusCode).toBe(409);
      expect(late.json().error.code).toBe('idempotency_key_in_use');
      expect(await things(`fenced-${mode}`)).toBe(0);
      expect(await keyRow(key)).toMatchObject({
        state: 'in_progress',
        lease_owner: 'the-twin-that-took-over',
        resource_id: null,
      });
    });

    it('a transaction that attaches the key and stores its answer writes the key once, at commit, with nothing lost', async () => {
      // Proves the deferred key write (writeAtCommit): attach then complete in one transaction are one
      // update, sent in the commit's statement, and the key ends attached and completed.
      const key = freshKey();
      const body = { name: `attach-and-complete-${mode}` };
      behaviour = 'slow';
      const sent: string[] = [];
      const listen = (q: { sql: string }) => sent.push(q.sql);
      knex.on('query', listen);
      let answer;
      try {
        answer = await post(key, body);
      } finally {
        knex.off('query', listen);
      }
      expect(answer.statusCode).toBe(201);
      const keyWrites = sent.filter((sql) =>
        /update "idempotency_keys" set "resource_id"/.test(sql),
      );
      expect(keyWrites).toHaveLength(1);
      expect(keyWrites[0]).toMatch(
        /^with write_0 as \(update "idempotency_keys" set "resource_id" = \$1, "state" = \$2, .* returning "key"\) select \(select count\(\*\) from write_0\)/,
      );
      expect(await keyRow(key)).toMatchObject({
        state: 'completed',
        resource_id: answer.json().id,
        response_status: 201,
      });
      const replay = await post(key, body);
      expect([replay.headers['idempotent-replayed'], replay.json().id]).toEqual([
        'true',
        answer.json().id,
      ]);
    });

    it("scopes a key by seller: two sellers' keys with the same key and body are two requests, and neither sees the other's answer", async () => {
      // Proves contract §3: a seller-scoped key has a namespace of its own, apart from the tenant's.
      const key = freshKey();
      const body = { name: `sellers-${mode}` };
      const a = await post(key, body, 'ten_a', { seller: 'seller_a' });
      const b = await post(key, body, 'ten_a', { seller: 'seller_b' });
      const tenantWide = await post(key, body, 'ten_a');
      expect([a.statusCode, b.statusCode, tenantWide.statusCode]).toEqual([201, 201, 201]);
      expect([b.headers['idempotent-replayed'], tenantWide.headers['idempotent-replayed']]).toEqual(
        [undefined, undefined],
      );
      expect(new Set([a.json().id, b.json().id, tenantWide.json().id]).size).toBe(3);
      const againB = await post(key, body, 'ten_a', { seller: 'seller_b' });
      expect([againB.headers['idempotent-replayed'], againB.json().id]).toEqual([
        'true',
        b.json().id,
      ]);
      expect(await things(`sellers-${mode}`)).toBe(3);
    });

    it('replays a stored answer only to a caller that may read what it names: 409 reused otherwise', async () => {
      // Proves mayRead: even an answer found in the caller's namespace is not replayed if it names another seller's thing.
      const key = freshKey();
      const body = { name: `unreadable-${mode}` };
      const a = await post(key, body, 'ten_a', { seller: 'seller_a' });
      await db.tx((trx) =>
        trx('idempotency_keys')
          .where({ key, seller_scope: 'seller_a' })
          .update({ seller_scope: 'seller_b' }),
      );
      const b = await post(key, body, 'ten_a', { seller: 'seller_b' });
      expect(b.statusCode).toBe(409);
      expect(b.json().error.code).toBe('idempotency_key_reused');
      expect(JSON.stringify(b.json())).not.toContain(a.json().id);
      expect(await things(`unreadable-${mode}`)).toBe(1);
    });

    it('keys the canonical path: a percent-encoded path is the same path, and replays', async () => {
      // Proves the path in the scope is percent-decoded, as the principal binds it (`/%74hings` is `/things`).
      const key = freshKey();
      const body = { name: `encoded-${mode}` };
      const first = await post(key, body);
      const encoded = await post(key, body, 'ten_a', { url: '/%74hings' });
      expect([encoded.statusCode, encoded.headers['idempotent-replayed']]).toEqual([201, 'true']);
      expect(encoded.json().id).toBe(first.json().id);
      expect(await things(`encoded-${mode}`)).toBe(1);
    });

    it('forgets a key after 24 hours, and purgeExpiredKeys removes it', async () => {
      // Proves the retention, both ways: a day-old key is a new key, and the purge takes only expired ones.
      const key = freshKey();
      await post(key, { name: `day-old-${mode}` });
      now = new Date(now.getTime() + KEY_TTL_MS);
      const later = await post(key, { name: `day-old-${mode}` });
      expect(later.headers['idempotent-replayed']).toBeUndefined();
      expect(await things(`day-old-${mode}`)).toBe(2);

      const old = freshKey();
      await post(old, { name: `purged-${mode}` });
      now = new Date(now.getTime() + KEY_TTL_MS);
      const young = freshKey();
      await post(young, { name: `kept-${mode}` });
      let purged = 0;
      for (let round = 0; round < 100; round++) {
        const n = await purgeExpiredKeys(db, now, 2);
        expect(n).toBeLessThanOrEqual(2);
        purged += n;
        if (n === 0) break;
      }
      expect(purged).toBeGreaterThanOrEqual(1);
      expect(await keyRow(old)).toBeUndefined();
      expect(await keyRow(young)).toBeDefined();
    });
    it('answers from a key that already has an answer before anything the work would do, even when that fails', async () => {
      // Proves a replay does not depend on what the work looks up first (with-work: the lookups come before the claim).
      const key = freshKey();
      const first = await post(key, { name: `held-${mode}` });
      for (const failing of ['refuse', 'unavailable', 'answer_503'] as const) {
        behaviour = failing;
        const again = await post(key, { name: `held-${mode}` });
        expect([again.statusCode, again.headers['idempotent-replayed']]).toEqual([201, 'true']);
        expect(withoutRequestId(again.json())).toEqual(withoutRequestId(first.json()));
        const other = await post(key, { name: `other-${mode}` });
        expect(other.json().error.code).toBe('idempotency_key_reused');
      }
      expect(await things(`held-${mode}`)).toBe(1);
    });
  },
);

describe('idempotent, the key claimed with the work', () => {
  beforeAll(() => {
    mode = 'with-work';
  });

  it("commits the claim with the work's first transaction: one commit fewer than claiming before", async () => {
    // Proves what the mode is for, counted from the statements sent to the database.
    const commitsOf = async (claim: 'before' | 'with-work') => {
      mode = claim;
      let commits = 0;
      const listener = (q: { sql: string }) =>
        void (q.sql.trim().toUpperCase().startsWith('COMMIT') && commits++);
      knex.on('query', listener);
      const res = await post(freshKey(), { name: `counted-${claim}` });
      knex.off('query', listener);
      expect(res.statusCode).toBe(201);
      return commits;
    };
    expect(await commitsOf('before')).toBe(3);
    expect(await commitsOf('with-work')).toBe(2);
    mode = 'with-work';
  });

  it('takes the key and makes the first writes in one statement with claimWith, and falls back when the key is not free', async () => {
    // Proves claimWith's round trip: the key's insert and the thing's are one statement (on PostgreSQL, outside
    // any transaction; here the embedded database wraps every unit of work in one).
    const writes = async (key: string, name: string) => {
      mode = 'one-statement';
      const sent: string[] = [];
      const listener = (q: { sql: string }) => {
        if (/idempotency_keys|things/.test(q.sql)) sent.push(q.sql.replace(/\s+/g, ' ').trim());
      };
      knex.on('query', listener);
      const res = await post(key, { name });
      knex.off('query', listener);
      return { status: res.statusCode, sent };
    };
    const key = freshKey();
    const first = await writes(key, 'one-statement');
    expect(first.status).toBe(201);
    // The claim with its thing, then the answer stored on the key.
    expect(first.sent[0]).toMatch(
      /^with write_0 as \(insert into "idempotency_keys" .*\) insert into "things" /,
    );
    expect(first.sent).toHaveLength(2);
    // The replay's statement fails on the key and writes nothing; the claim's usual path answers from the key.
    const again = await writes(key, 'one-statement');
    expect(again.status).toBe(201);
    expect(again.sent[0]).toBe(first.sent[0]);
    expect(again.sent.slice(1).some((sql) => sql.includes('for update'))).toBe(true);
    expect(await things('one-statement')).toBe(1);
    mode = 'with-work';
  });

  it('stores the answer of work that went on for several lease beats after its claim attached the resource', async () => {
    // The beats stop once the resource is attached (nothing to renew), without ending the request: its answer
    // is still stored, and replayed.
    const key = freshKey();
    behaviour = 'late_answer';
    const first = await post(key, { name: 'late' });
    expect(first.statusCode).toBe(201);
    expect(await keyRow(key)).toMatchObject({ state: 'completed', response_status: 201 });
    behaviour = 'create';
    const again = await post(key, { name: 'late' });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(withoutRequestId(again.json())).toEqual(withoutRequestId(first.json()));
    expect(await things('late')).toBe(1);
  });

  it('refuses to write to a key the work did not claim, and keeps nothing', async () => {
    // Proves the guard against a route that forgets session.claim: it would otherwise write another request's key.
    const key = freshKey();
    behaviour = 'forget_claim';
    expect((await post(key, { name: 'unclaimed' })).statusCode).toBe(500);
    expect(await keyRow(key)).toBeUndefined();
    expect(await things('unclaimed')).toBe(0);
  });
});

describe('createIdempotencyKeysTable', () => {
  it('makes the table both services shipped, and scopeIdempotencyKeysBySeller adds the seller scope and the lease', async () => {
    // Proves the shared migration is a no-op change for databases made by the services' earlier copies.
    const columns = await db.read((q) =>
      q.raw(
        `select column_name, data_type, is_nullable from information_schema.columns where table_schema = 'idem' and table_name = 'idempotency_keys' order by ordinal_position`,
      ),
    );
    expect(
      columns.rows.map((c: any) => `${c.column_name} ${c.data_type} ${c.is_nullable}`),
    ).toEqual([
      'tenant_id text NO',
      'livemode boolean NO',
      'method text NO',
      'path text NO',
      'key text NO',
      'request_hash text NO',
      'state text NO',
      'response_status integer YES',
      'response_json text YES',
      'resource_id text YES',
      'locked_at timestamp with time zone NO',
      'created_at timestamp with time zone NO',
      'seller_scope text NO',
      'lease_owner text YES',
    ]);
    const indexes = await db.read((q) =>
      q.raw(
        `select indexname, indexdef from pg_indexes where schemaname = 'idem' and tablename = 'idempotency_keys' order by indexname`,
      ),
    );
    expect(indexes.rows.map((i: any) => i.indexdef.replace(/"?idem"?\./g, ''))).toEqual([
      'CREATE INDEX idempotency_keys_age ON idempotency_keys USING btree (created_at)',
      'CREATE UNIQUE INDEX idempotency_keys_pkey ON idempotency_keys USING btree (tenant_id, livemode, seller_scope, method, path, key)',
      'CREATE INDEX idempotency_keys_resource ON idempotency_keys USING btree (resource_id) WHERE (resource_id IS NOT NULL)',
    ]);
  });

  it("scopeIdempotencyKeysBySeller upgrades a table with keys in it: they stay, in the tenant's namespace", async () => {
    // Proves the second migration step runs on a database the first one made, and keeps its keys.
    const upgraded = sharedDb(knex, 'idem_upgrade');
    await upgraded.migrate([{ name: '0001_keys', up: createIdempotencyKeysTable }]);
    const old = {
      tenant_id: 'ten_a',
      livemode: false,
      method: 'POST',
      path: '/things',
      key: 'k-old',
      request_hash: requestHash({}),
      state: 'completed',
      response_status: 201,
      response_json: '{}',
      locked_at: now,
      created_at: now,
    };
    await upgraded.tx((trx) => trx('idempotency_keys').insert(old));
    await upgraded.migrate([
      { name: '0001_keys', up: createIdempotencyKeysTable },
      { name: '0002_keys_by_seller', up: scopeIdempotencyKeysBySeller },
    ]);
    expect(
      await upgraded.read((q) => q('idempotency_keys').where({ key: 'k-old' }).first()),
    ).toMatchObject({ seller_scope: '', lease_owner: null, state: 'completed' });
    // The same key value in a seller's namespace is another key.
    await upgraded.tx((trx) =>
      trx('idempotency_keys').insert({ ...old, seller_scope: 'seller_a' }),
    );
    expect(await upgraded.read((q) => q('idempotency_keys').where({ key: 'k-old' }))).toHaveLength(
      2,
    );
  });
});
