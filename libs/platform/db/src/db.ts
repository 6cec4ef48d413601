import { readFileSync } from 'node:fs';
import knexFactory, { type Knex } from 'knex';
import { types as pgTypes } from 'pg';
import { TYPE_PARSERS } from './types';
import { inOneStatement, withName, type WriteSql } from './one-statement';
import { retry, type RetryPolicy } from './retry';
import { PreparedStatements, sendNamedStatements, type PgConnection } from './prepared-statements';
import { assert } from '@pgw/domain';

export type Tx = Knex.Transaction;

export interface Migration {
  /** Unique and ordered: `0001_charges`. Never rename or edit one that has shipped; add the next. */
  name: string;
  up(trx: Tx): Promise<void>;
}

const SCHEMA_PATTERN = /^[a-z][a-z0-9_]{0,62}$/;
const RETRYABLE = new Set(['40001', '40P01']); // serialization_failure, deadlock_detected
/**
 * A transaction that lost a serialization check or a deadlock runs again, after a short jittered wait: at
 * once, it would meet the transaction it collided with still holding its locks, and collide again.
 */
export const TX_RETRY: RetryPolicy = { attemptsMax: 3, baseMs: 10, capMs: 100, totalMs: 250 };

const afterCommitHooks = new WeakMap<Tx, Array<() => void>>();

/** Runs `hook` once the transaction commits; never if it rolls back. */
export function afterCommit(trx: Tx, hook: () => void): void {
  const hooks = afterCommitHooks.get(trx);
  assert(hooks !== undefined, 'db.after-commit-in-db-tx');
  hooks.push(hook);
}

/** What a transaction of Db.tx writes just before it commits, in one statement (insertAtCommit, writeAtCommit). */
interface AtCommit {
  inserts: Map<string, { rows: object[]; ignoreConflictsOn: readonly string[] | undefined }>;
  writes: Array<{ write: (q: Knex | Tx) => WriteSql | null; orElse: (() => Error) | undefined }>;
}

const atCommit = new WeakMap<Tx, AtCommit>();

function atCommitOf(trx: Tx, use: string): AtCommit {
  const deferred = atCommit.get(trx);
  assert(deferred !== undefined, `db.${use}-in-db-tx`);
  return deferred;
}

/**
 * Inserts `rows` into `table` just before the transaction commits, in one statement with every other insert so
 * deferred (one per table, rows in the order given, so a serial column follows it; tables together through
 * inOneStatement): for rows that nothing in this transaction reads back (outbox rows, history rows), one round
 * trip fewer. It fails, and the transaction with it, as if sent at once; with `ignoreConflictsOn` (a unique
 * key's columns, the same for every insert of the table in the unit), a row whose key is there is left out.
 */
export function insertAtCommit(
  trx: Tx,
  table: string,
  rows: readonly object[],
  options: { ignoreConflictsOn?: readonly string[] } = {},
): void {
  const { inserts } = atCommitOf(trx, 'insert-at-commit');
  if (rows.length === 0) return;
  const { ignoreConflictsOn } = options;
  const pending = inserts.get(table);
  if (pending === undefined) inserts.set(table, { rows: [...rows], ignoreConflictsOn });
  else {
    assert(
      String(pending.ignoreConflictsOn) === String(ignoreConflictsOn),
      'db.insert-at-commit-one-conflict-rule-per-table',
      { table },
    );
    pending.rows.push(...rows);
  }
}

/**
 * Runs `write` (built when the transaction commits, with `q` to build it on) in the statement of
 * insertAtCommit's rows, after them: for a write that nothing in the transaction reads back, one round trip
 * fewer. With `orElse`, the write is a guard (an update or a delete with a `returning` clause): when it
 * changes no row, the transaction rolls back with `orElse()` (a lease's fence). No two writes of one
 * statement may change the same row (one statement sees one snapshot): merge them into one. A `write` that
 * finds nothing left to write by then (its caller sent it earlier) answers null.
 */
export function writeAtCommit(
  trx: Tx,
  write: (q: Knex | Tx) => WriteSql | null,
  orElse?: () => Error,
): void {
  atCommitOf(trx, 'write-at-commit').writes.push({ write, orElse });
}

/** A guard found no row: the statement of `writeTogether` fails on it (division by zero), writing nothing. */
const GUARD_FAILED = '22012';

/**
 * The deferred inserts, then the other writes, in one statement on `q`. Each guard's rows are counted: in a
 * transaction, a guard that counts none throws its `orElse()`; `failInStatement` (no transaction around)
 * instead divides by each count, so that a guard that found no row fails the statement itself.
 */
async function writeAtCommitNow(
  q: Knex | Tx,
  { inserts, writes }: AtCommit,
  failInStatement = false,
): Promise<void> {
  const sql: WriteSql[] = [...inserts].map(([table, { rows, ignoreConflictsOn }]) => {
    const insert = q(table).insert(rows);
    return (
      ignoreConflictsOn === undefined ? insert : insert.onConflict([...ignoreConflictsOn]).ignore()
    ).toSQL();
  });
  const guards: Array<{ name: string; orElse: () => Error }> = [];
  for (const { write, orElse } of writes) {
    const built = write(q);
    if (built === null) continue;
    if (orElse !== undefined) guards.push({ name: withName(built, sql.length), orElse });
    sql.push(built);
  }
  if (guards.length === 0) return void (await inOneStatement(q, sql));
  const counts = guards.map(({ name }, i) =>
    failInStatement
      ? `1 / (select count(*) from ${name})::int as c${i}`
      : `(select count(*) from ${name})::int as c${i}`,
  );
  // A select without FROM answers one row.
  const [row] = (await inOneStatement(q, [
    ...sql,
    { sql: `select ${counts.join(', ')}`, bindings: [] },
  ])) as [Record<string, number>];
  guards.forEach(({ orElse }, i) => {
    if (row[`c${i}`] === 0) throw orElse();
  });
}

/** Makes `unit` (a transaction, or writeTogether's unit) hold after-commit hooks and deferred writes. */
function openUnit(unit: Tx): { hooks: Array<() => void>; deferred: AtCommit } {
  const hooks: Array<() => void> = [];
  const deferred: AtCommit = { inserts: new Map(), writes: [] };
  afterCommitHooks.set(unit, hooks);
  atCommit.set(unit, deferred);
  return { hooks, deferred };
}

/** What a unit of `writeTogether` is: a key for its deferred writes and hooks, never a connection. */
function writesOnlyUnit(): Tx {
  const refuse = (): never => assert(false, 'db.write-together-sends-nothing-itself') as never;
  return new Proxy(function unit() {}, { apply: refuse, get: refuse }) as unknown as Tx;
}

function pgCode(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error) {
    const code = (error as { code: unknown }).code;
    return typeof code === 'string' ? code : undefined;
  }
  return undefined;
}

/** A serialization failure or a deadlock: the transaction rolled back whole and may simply run again. */
export function isRetryableConflict(error: unknown): boolean {
  const code = pgCode(error);
  return code !== undefined && RETRYABLE.has(code);
}

/**
 * The one connection of a shared embedded database (the all-in-one), by its knex: the units of work of
 * every service on it run one at a time, in order, and it remembers the search_path it holds, so that a
 * unit sets its service's schema only when the connection holds another's. The SET runs outside any
 * transaction, so no rollback undoes it. A unit must not wait for another unit of the same database: that
 * one waits for its turn, after it (knex's pool of one connection made the same rule).
 */
class SharedConnection {
  private path: string | undefined;
  private last: Promise<unknown> = Promise.resolve();

  constructor(private readonly knex: Knex) {}

  run<T>(schema: string, work: () => Promise<T>): Promise<T> {
    const turn = this.last.then(async () => {
      if (this.path !== schema) {
        this.path = undefined; // unknown if the SET fails
        await this.knex.raw(`set search_path to "${schema}", public`);
        this.path = schema;
      }
      return work();
    });
    this.last = turn.catch(() => undefined);
    return turn;
  }
}

const sharedConnections = new WeakMap<Knex, SharedConnection>();

function sharedConnectionOf(knex: Knex): SharedConnection {
  let connection = sharedConnections.get(knex);
  if (connection === undefined)
    sharedConnections.set(knex, (connection = new SharedConnection(knex)));
  return connection;
}

/**
 * One service's view of its database: its own schema, reached through `tx`, `read` and `writeTogether`. On
 * PostgreSQL each pooled connection has the schema on its search_path; on the shared embedded database of
 * the all-in-one mode, where every service shares one connection, each unit of work has the connection to
 * itself, with its service's schema on the path (`SharedConnection`).
 */
export class Db {
  private readonly shared: SharedConnection | null;

  constructor(
    readonly knex: Knex,
    readonly schema: string,
    embedded: boolean,
    private readonly owned: boolean,
  ) {
    if (!SCHEMA_PATTERN.test(schema)) throw new Error(`invalid schema name ${schema}`);
    this.shared = embedded ? sharedConnectionOf(knex) : null;
  }

  get dialect(): 'pg' | 'pglite' {
    return this.shared === null ? 'pg' : 'pglite';
  }

  /** `work` on this service's schema: on the shared connection in its turn, on PostgreSQL at once. */
  private inSchema<T>(work: () => Promise<T>): Promise<T> {
    return this.shared === null ? work() : this.shared.run(this.schema, work);
  }

  /** Runs `fn` in a transaction; retries it on serialization failures and deadlocks, by TX_RETRY. */
  async tx<T>(
    fn: (trx: Tx) => Promise<T>,
    options: { isolationLevel?: Knex.IsolationLevels } = {},
  ): Promise<T> {
    return retry(
      TX_RETRY,
      async () => {
        let hooks: Array<() => void> = [];
        const result = await this.inSchema(() =>
          this.knex.transaction(
            async (trx) => {
              const unit = openUnit(trx);
              hooks = unit.hooks;
              const value = await fn(trx);
              await writeAtCommitNow(trx, unit.deferred);
              return value;
            },
            options.isolationLevel ? { isolationLevel: options.isolationLevel } : undefined,
          ),
        );
        for (const hook of hooks) hook();
        return result;
      },
      { retryable: isRetryableConflict },
    );
  }

  /**
   * For work that only defers its writes (insertAtCommit, writeAtCommit, afterCommit) and reads nothing: they
   * go as one statement with no transaction around it (no BEGIN, no COMMIT: the statement commits alone, all
   * or nothing). `fn` gets a unit that refuses any query (an assertion). A guard that finds no row fails that
   * statement; `fn` then runs again in a transaction (`tx`), where the guard throws its error.
   */
  writeTogether<T>(fn: (unit: Tx) => Promise<T>): Promise<T> {
    return this.readThenWriteTogether(() => Promise.resolve(undefined), fn);
  }

  /**
   * `writeTogether` after one read that decides the writes (`read`, a statement of its own, outside any
   * transaction, as `read` sends it): `fn` gets its answer. On the shared connection both run in one turn,
   * so that no other service's unit, and its schema, comes between them. On a failed guard both run again
   * in a transaction.
   */
  async readThenWriteTogether<R, T>(
    read: (q: Knex | Tx) => Promise<R>,
    fn: (unit: Tx, read: R) => Promise<T>,
  ): Promise<T> {
    const unit = writesOnlyUnit();
    const { hooks, deferred } = openUnit(unit);
    let value: T;
    try {
      value = await this.inSchema(async () => {
        const written = await fn(unit, await read(this.knex));
        await writeAtCommitNow(this.knex, deferred, true);
        return written;
      });
    } catch (error) {
      if (pgCode(error) !== GUARD_FAILED) throw error;
      return this.tx(async (trx) => fn(trx, await read(trx)));
    }
    for (const hook of hooks) hook();
    return value;
  }

  /**
   * For one statement that needs no transaction (a read, or writes that commit together, e.g.
   * `inOneStatement`'s): one round trip.
   */
  async read<T>(fn: (q: Knex | Tx) => Promise<T>): Promise<T> {
    return this.inSchema(() => fn(this.knex));
  }

  /** Applies the migrations not yet applied, in order, each in its own transaction, one migrator at a time. */
  async migrate(migrations: readonly Migration[]): Promise<void> {
    await this.inSchema(() => this.knex.raw(`create schema if not exists "${this.schema}"`));
    await this.tx(async (trx) => {
      await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`migrate:${this.schema}`]);
      await trx.raw(
        `create table if not exists "${this.schema}".schema_migrations (name text primary key, applied_at timestamptz not null default now())`,
      );
      const done = new Set(
        (await trx(`${this.schema}.schema_migrations`).select<{ name: string }[]>('name')).map(
          (row) => row.name,
        ),
      );
      for (const migration of migrations) {
        if (done.has(migration.name)) continue;
        await migration.up(trx);
        await trx(`${this.schema}.schema_migrations`).insert({ name: migration.name });
      }
    });
  }

  async close(): Promise<void> {
    if (this.owned) await this.knex.destroy();
  }
}

export interface PgDbOptions {
  url: string;
  schema: string;
  poolMax?: number;
  statementTimeoutMs?: number;
  /**
   * Send the texts the pool sends again and again as named statements (PreparedStatements; true by
   * default). False behind a pooler that cannot keep them (PgBouncer in transaction mode before 1.21).
   */
  namedStatements?: boolean;
}

/** A service's own pool on PostgreSQL, with its schema on every connection's search_path. */
export function createPgDb(options: PgDbOptions): Db {
  if (!SCHEMA_PATTERN.test(options.schema))
    throw new Error(`invalid schema name ${options.schema}`);
  // One per pool: its connections share the names, each preparing a statement the first time it sends it.
  const prepared = (options.namedStatements ?? true) ? new PreparedStatements() : null;
  const knex = knexFactory({
    client: 'pg',
    connection: {
      connectionString: options.url,
      // The same column types as the embedded database (types.ts).
      types: {
        getTypeParser: (oid: number, format?: string) =>
          TYPE_PARSERS[oid] ?? pgTypes.getTypeParser(oid, format as 'text'),
      },
    } as Knex.PgConnectionConfig,
    pool: {
      min: 0,
      max: options.poolMax ?? 10,
      afterCreate: (conn: PgConnection, done: (err: Error | null, conn: unknown) => void) => {
        if (prepared !== null) sendNamedStatements(conn, prepared);
        const timeout = options.statementTimeoutMs ?? 30_000;
        conn.query(
          `set search_path to "${options.schema}", public; set statement_timeout = ${timeout}`,
          (err: Error | null) => done(err, conn),
        );
      },
    },
    acquireConnectionTimeout: 10_000,
  });
  return new Db(knex, options.schema, false, true);
}

/**
 * The embedded PostgreSQL of the all-in-one mode (PGlite, WebAssembly), in `dataDir` or in memory.
 * One connection serves every service; each service gets a Db over it with `sharedDb`.
 */
export function createPgliteKnex(dataDir: string | null): Knex {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const ClientPgLite = require('knex-pglite');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { PGlite } = require('@electric-sql/pglite') as typeof import('@electric-sql/pglite');
  // The same column types as PostgreSQL through node-postgres (types.ts). In memory, the tests start from a
  // copy of an initialised data directory when PGLITE_TEMPLATE names one (libs/testing unit-global-setup.ts).
  const template = dataDir === null ? process.env.PGLITE_TEMPLATE : undefined;
  const pglite = new PGlite(
    dataDir !== null
      ? { dataDir, parsers: TYPE_PARSERS }
      : template !== undefined && template !== ''
        ? { loadDataDir: new Blob([readFileSync(template)]), parsers: TYPE_PARSERS }
        : { parsers: TYPE_PARSERS },
  );
  return knexFactory({
    client: ClientPgLite,
    dialect: 'postgres',
    connection: { pglite },
  } as Knex.Config);
}

export function sharedDb(knex: Knex, schema: string): Db {
  return new Db(knex, schema, true, false);
}
