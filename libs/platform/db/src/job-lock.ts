// The one job-lock primitive (issue 19 item 2): two runs of a job (two replicas, a CronJob and an operator)
// never work at the same time; its lock is named by the service's schema and the job's name. The outbox
// relay's lease is claimed and given back by the same functions. Two shapes of job, one lock each, both here
// and nowhere else:
//   - a job made of units that are each one transaction takes the job's transaction-scoped advisory lock
//     in every unit (lockJobInTransaction): a second run waits for the unit in flight, and the lock goes with
//     the transaction, a crashed process's included;
//   - a job that calls out (an acquirer) between its transactions must hold no connection meanwhile, so it
//     holds a lease row instead (withJobLease): a second run that finds it held does nothing, and a crashed
//     holder's lease expires.
// Both work on the embedded database (PGlite) of the all-in-one, where every transaction shares one session:
// a session-level advisory lock would not keep two runs apart there, and is not used.
import { randomUUID } from 'node:crypto';
import type { Db, Tx } from './db';
import { retry } from './retry';

/** The lock's name: one per service (its schema) and job. */
export function jobLockName(db: Db, job: string): string {
  return `${db.schema}:job:${job}`;
}

/** Waits for the job's lock, held until this transaction ends. */
export async function lockJobInTransaction(db: Db, trx: Tx, job: string): Promise<void> {
  await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [jobLockName(db, job)]);
}

/**
 * A lease row in a table of the service's own, `(key column, holder, expires_at)`: `job_leases` keyed by a
 * job's name, `outbox_lease` keyed by the single id 1 (the outbox relay's, which holds it across rounds).
 */
export interface Lease {
  table: string;
  key: { column: string; value: string | number };
  holder: string;
  leaseMs: number;
}

/**
 * Takes the lease when it is free or expired, renews it when this holder has it; true when it is this
 * holder's now, until `leaseMs` after the database's clock at this statement.
 */
export async function claimLease(trx: Tx, lease: Lease): Promise<boolean> {
  const { table, key, holder, leaseMs } = lease;
  const result = await trx.raw(
    `insert into ?? (??, holder, expires_at) values (?, ?, now() + (? * interval '1 millisecond'))
     on conflict (??) do update set holder = excluded.holder, expires_at = excluded.expires_at
     where ??.expires_at < now() or ??.holder = excluded.holder
     returning holder`,
    [table, key.column, key.value, holder, leaseMs, key.column, table, table],
  );
  return (result.rows as unknown[]).length > 0;
}

/** Gives the lease back, if this holder still has it: the next claim need not wait for it to expire. */
export async function releaseLease(trx: Tx, lease: Lease): Promise<void> {
  await trx(lease.table)
    .where({ [lease.key.column]: lease.key.value, holder: lease.holder })
    .delete();
}

export interface JobLeaseOptions {
  /** How long a holder that died keeps others out; a live one renews its lease every third of that. */
  leaseMs: number;
}

/**
 * Gives the lease back, trying again while the database cannot be reached (a restart): a lease left behind
 * would keep every run of the job out until it expired. Past the lease's own expiry there is nothing left
 * to give back, and the last error stands.
 */
function giveBack(db: Db, lease: Lease): Promise<void> {
  return retry(
    { attemptsMax: Infinity, baseMs: 100, capMs: 2_000, totalMs: lease.leaseMs },
    () => db.tx((trx) => releaseLease(trx, lease)),
    { retryable: () => true },
  );
}

/** Renews the lease every third of its length while the work runs; a renewal that fails waits for the next. */
function keepRenewed(db: Db, lease: Lease): () => Promise<void> {
  let renewal: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    renewal = renewal.then(() => db.tx((trx) => claimLease(trx, lease))).catch(() => undefined);
  }, lease.leaseMs / 3);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await renewal;
  };
}

/**
 * Runs `work` under the job's lease, taken and given back each in a transaction of its own, and renewed while
 * the work runs; a run that finds the lease held (here or on another replica) does not run and gets `null`.
 * Leases are rows of `job_leases`, keyed by the job's name (the table is the service's own).
 */
export async function withJobLease<T>(
  db: Db,
  job: string,
  work: () => Promise<T>,
  options: JobLeaseOptions,
): Promise<T | null> {
  const lease: Lease = {
    table: 'job_leases',
    key: { column: 'name', value: job },
    holder: randomUUID(),
    leaseMs: options.leaseMs,
  };
  let claimed: boolean;
  try {
    claimed = await db.tx((trx) => claimLease(trx, lease));
  } catch (error) {
    // The claim may have committed before its answer was lost.
    await giveBack(db, lease).catch(() => undefined);
    throw error;
  }
  if (!claimed) return null;
  const stopRenewing = keepRenewed(db, lease);
  try {
    return await work();
  } finally {
    await stopRenewing();
    await giveBack(db, lease);
  }
}
