import { createPgliteKnex, sharedDb, type Db } from '@pgw/platform-db';
import { ApiError, buildApp, type App } from '@pgw/platform-http';
import { canonicalJson, completeKeysOf, idempotent, KEY_TTL_MS, purgeExpiredKeys, requestHash, STALE_IN_PROGRESS_MS } from './idempotency';
import { createIdempotencyKeysTable } from './migration';

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
let behaviour: 'create' | 'refuse' | 'unavailable' | 'answer_503' | 'crash_after_attach' | 'forget_claim' = 'create';
/** While set, work waits for it once its thing is saved: a test holds a request in flight. */
let gate: Promise<void> | null = null;
let saved = 0;

beforeAll(async () => {
  db = sharedDb(knex, 'idem');
  await db.migrate([
    { name: '0001_keys', up: createIdempotencyKeysTable },
    { name: '0002_things', up: async (trx) => void (await trx.raw('create table things (id text primary key, tenant_id text not null, name text not null)')) },
  ]);
  app = buildApp({ name: `idempotency-spec-${mode}`, log: { level: 'silent' } });
  app.post<{ Body: { name: string }; Headers: { 'x-tenant'?: string; 'x-claim'?: string } }>('/things', async (request, reply) => {
    const tenantId = request.headers['x-tenant'] ?? 'ten_a';
    const claim = request.headers['x-claim'] === 'with-work' ? 'with-work' : 'before';
    return idempotent(
      request,
      reply,
      { db, clock },
      { tenantId, livemode: false },
      async (session) => {
        // What a service may do before its first writing transaction (look things up) and fail at.
        if (behaviour === 'refuse') throw new ApiError('parameter_invalid', 'name: refused', 'name');
        if (behaviour === 'unavailable') throw new ApiError('service_unavailable', 'try again');
        if (behaviour === 'answer_503') return { status: 503, body: { error: { code: 'service_unavailable' } } };
        const id = `thing_${Math.random().toString(36).slice(2)}`;
        await db.tx(async (trx) => {
          if (behaviour !== 'forget_claim') await session.claim(trx);
          await trx('things').insert({ id, tenant_id: tenantId, name: request.body.name });
          await session.attach(trx, id);
        });
        saved++;
        if (gate !== null) await gate;
        if (behaviour === 'crash_after_attach') throw new Error('simulated crash after the resource was saved');
        const body = { object: 'thing', id, name: request.body.name };
        await db.tx((trx) => session.complete(trx, { status: 201, body }));
        return { status: 201, body };
      },
      { claim },
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
let mode: 'before' | 'with-work' = 'before';
const post = (key: string | null, body: object = { name: `a-${mode}` }, tenant = 'ten_a') =>
  app.inject({ method: 'POST', url: '/things', payload: body, headers: { 'x-tenant': tenant, 'x-claim': mode, ...(key === null ? {} : { 'idempotency-key': key }) } });
const things = async (name: string) => (await db.read((q) => q('things').where({ name }))).length;
/** Each answer, first or replayed, carries its own request's id (the platform adds it). */
const withoutRequestId = (body: Record<string, unknown>) => {
  const { request_id: _r, ...rest } = body;
  return rest;
};
const keyRow = async (key: string) => db.read((q) => q('idempotency_keys').where({ key }).first());

describe.each(['before', 'with-work'] as const)('idempotent (contract §3), the key claimed %s', (claimMode) => {
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
    expect(other.json().error).toMatchObject({ type: 'idempotency_error', code: 'idempotency_key_reused' });
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: 3 }] })).toBe(canonicalJson({ a: [{ c: 3, d: 2 }], b: 1 }));
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
    expect(twin.json().error).toMatchObject({ type: 'idempotency_error', code: 'idempotency_key_in_use' });
    expect((await first).statusCode).toBe(201);
    expect((await post(key, { name: `in-use-${mode}` })).headers['idempotent-replayed']).toBe('true');
    expect(await things(`in-use-${mode}`)).toBe(1);
  });

  it('20 concurrent identical requests do the work once: each answer is the first one or 409 in use', async () => {
    // Proves the claim is atomic.
    const key = freshKey();
    const answers = await Promise.all(Array.from({ length: 20 }, () => post(key, { name: `twenty-${mode}` })));
    expect(new Set(answers.filter((a) => a.statusCode === 201).map((a) => a.json().id)).size).toBe(1);
    for (const a of answers) expect(a.statusCode === 201 || a.json().error.code === 'idempotency_key_in_use').toBe(true);
    expect(await things(`twenty-${mode}`)).toBe(1);
  });

  it.each([
    ['empty', ''],
    ['256 characters', 'k'.repeat(256)],
  ])('refuses a key that is %s: 422 parameter_invalid on Idempotency-Key, and does nothing', async (_name, key) => {
    // Proves the key's length limits (1 to 255).
    const res = await post(key, { name: `bad-key-${key.length}-${mode}` });
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toMatchObject({ code: 'parameter_invalid', param: 'Idempotency-Key' });
    expect(await things(`bad-key-${key.length}-${mode}`)).toBe(0);
  });

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
  ] as const)('does not keep a 5xx (%s): the key is given back and a retry with it goes through', async (_how, failure) => {
    // Proves "responses with status 5xx are not kept".
    const key = freshKey();
    behaviour = failure;
    expect((await post(key, { name: `5xx-${failure}-${mode}` })).statusCode).toBe(503);
    expect(await keyRow(key)).toBeUndefined();
    behaviour = 'create';
    const retried = await post(key, { name: `5xx-${failure}-${mode}` });
    expect(retried.statusCode).toBe(201);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
  });

  it('keeps the key of a request that crashed after saving its resource, until a recovery completes it', async () => {
    // Proves an attached key is never given back (the retry would do the work twice), and completeKeysOf.
    const key = freshKey();
    behaviour = 'crash_after_attach';
    expect((await post(key, { name: `crashed-${mode}` })).statusCode).toBe(500);
    behaviour = 'create';
    expect((await post(key, { name: `crashed-${mode}` })).json().error.code).toBe('idempotency_key_in_use');
    const row = await keyRow(key);
    expect(row).toMatchObject({ state: 'in_progress' });
    await db.tx((trx) => completeKeysOf(trx, row.resource_id, { status: 201, body: { object: 'thing', id: row.resource_id, name: `crashed-${mode}` } }));
    const replay = await post(key, { name: `crashed-${mode}` });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(withoutRequestId(replay.json())).toEqual({ object: 'thing', id: row.resource_id, name: `crashed-${mode}` });
    expect(await things(`crashed-${mode}`)).toBe(1);
  });

  it('takes over a key left in progress with nothing attached, once it is stale', async () => {
    // Proves a crash before anything was saved does not block the key forever, nor too soon.
    const key = freshKey();
    const body = { name: `stale-${mode}` };
    await db.tx((trx) =>
      trx('idempotency_keys').insert({ tenant_id: 'ten_a', livemode: false, method: 'POST', path: '/things', key, request_hash: requestHash(body), state: 'in_progress', locked_at: now, created_at: now }),
    );
    expect((await post(key, body)).json().error.code).toBe('idempotency_key_in_use');
    now = new Date(now.getTime() + STALE_IN_PROGRESS_MS);
    expect((await post(key, body)).statusCode).toBe(201);
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
});

describe('idempotent, the key claimed with the work', () => {
  beforeAll(() => {
    mode = 'with-work';
  });

  it('commits the claim with the work\'s first transaction: one commit fewer than claiming before', async () => {
    // Proves what the mode is for, counted from the statements sent to the database.
    const commitsOf = async (claim: 'before' | 'with-work') => {
      mode = claim;
      let commits = 0;
      const listener = (q: { sql: string }) => void (q.sql.trim().toUpperCase().startsWith('COMMIT') && commits++);
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
  it('makes the table both services shipped: same columns, primary key and indexes', async () => {
    // Proves the shared migration is a no-op change for databases made by the services' earlier copies.
    const columns = await db.read((q) =>
      q.raw(`select column_name, data_type, is_nullable from information_schema.columns where table_schema = 'idem' and table_name = 'idempotency_keys' order by ordinal_position`),
    );
    expect(columns.rows.map((c: any) => `${c.column_name} ${c.data_type} ${c.is_nullable}`)).toEqual([
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
    ]);
    const indexes = await db.read((q) => q.raw(`select indexname, indexdef from pg_indexes where schemaname = 'idem' and tablename = 'idempotency_keys' order by indexname`));
    expect(indexes.rows.map((i: any) => i.indexdef.replace(/"?idem"?\./g, ''))).toEqual([
      'CREATE INDEX idempotency_keys_age ON idempotency_keys USING btree (created_at)',
      'CREATE UNIQUE INDEX idempotency_keys_pkey ON idempotency_keys USING btree (tenant_id, livemode, method, path, key)',
      'CREATE INDEX idempotency_keys_resource ON idempotency_keys USING btree (resource_id) WHERE (resource_id IS NOT NULL)',
    ]);
  });
});
