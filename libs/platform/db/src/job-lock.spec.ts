import { setTimeout as sleep } from 'node:timers/promises';
import { createPgliteKnex, sharedDb, type Db, type Tx } from './db';
import { jobLockName, lockJobInTransaction, withJobLease } from './job-lock';

describe('job locks on the embedded database', () => {
  const knex = createPgliteKnex(null);
  afterAll(() => knex.destroy());
  let n = 0;

  async function service() {
    const db = sharedDb(knex, `jobs_${++n}`);
    await db.migrate([
      {
        name: '0001_job_leases',
        up: async (trx) =>
          void (await trx.raw(
            'create table job_leases (name text primary key, holder text not null, expires_at timestamptz not null)',
          )),
      },
    ]);
    return db;
  }

  it('runs a job under its lease, and a run that meets the lease held does not run', async () => {
    const db = await service();
    let inner: string | null | undefined;
    const outer = await withJobLease(
      db,
      'pix-expiry',
      async () => {
        inner = await withJobLease(db, 'pix-expiry', async () => 'ran twice', { leaseMs: 60_000 });
        // Another job's lease is its own.
        expect(
          await withJobLease(db, 'boleto-exchange', async () => 'other job', { leaseMs: 60_000 }),
        ).toBe('other job');
        return 'ran';
      },
      { leaseMs: 60_000 },
    );
    expect(outer).toBe('ran');
    expect(inner).toBeNull();
    // Given back when the run ends, even one that throws.
    await expect(
      withJobLease(db, 'pix-expiry', async () => Promise.reject(new Error('job failed')), {
        leaseMs: 60_000,
      }),
    ).rejects.toThrow('job failed');
    expect(await withJobLease(db, 'pix-expiry', async () => 'again', { leaseMs: 60_000 })).toBe(
      'again',
    );
    expect(
      await db.read((q) => q('job_leases').count<{ count: string | number }[]>('* as count')),
    ).toEqual([{ count: 0 }]);
  });

  it('takes over the lease of a holder that died once it expired', async () => {
    const db = await service();
    await db.tx((trx) =>
      trx('job_leases').insert({
        name: 'pix-expiry',
        holder: 'dead-replica',
        expires_at: trx.raw(`now() - interval '1 second'`),
      }),
    );
    expect(
      await withJobLease(db, 'pix-expiry', async () => 'taken over', { leaseMs: 60_000 }),
    ).toBe('taken over');
    await db.tx((trx) =>
      trx('job_leases').insert({
        name: 'pix-expiry',
        holder: 'live-replica',
        expires_at: trx.raw(`now() + interval '1 minute'`),
      }),
    );
    expect(await withJobLease(db, 'pix-expiry', async () => 'ran', { leaseMs: 60_000 })).toBeNull();
  });

  /** `db` whose transactions fail (as while PostgreSQL restarts) when `down()` says so; `after` fails after committing. */
  function flaky(db: Db, down: () => 'before' | 'after' | false): Db {
    return new Proxy(db, {
      get(target, prop, receiver) {
        if (prop !== 'tx') return Reflect.get(target, prop, receiver) as unknown;
        return async (fn: (trx: Tx) => Promise<unknown>) => {
          const when = down();
          if (when === 'before') throw new Error('Connection terminated unexpectedly');
          const value = await target.tx(fn);
          if (when === 'after') throw new Error('Connection terminated unexpectedly');
          return value;
        };
      },
    });
  }

  it('gives the lease back once the database is back, so the next run need not wait for it to expire', async () => {
    const db = await service();
    let failures = 0;
    const downAtRelease = flaky(db, () => (failures-- > 0 ? 'before' : false));
    const ran = await withJobLease(
      downAtRelease,
      'refund-reconciliation',
      async () => {
        failures = 3; // the next three transactions (the release's first attempts) fail
        return 'ran';
      },
      { leaseMs: 60_000 },
    );
    expect(ran).toBe('ran');
    expect(failures).toBe(-1); // three failed, the fourth gave it back
    expect(
      await withJobLease(db, 'refund-reconciliation', async () => 'next', { leaseMs: 60_000 }),
    ).toBe('next');
  });

  it('gives back a lease whose claim committed but whose answer was lost', async () => {
    const db = await service();
    let claimAnswerLost = true;
    const lost = flaky(db, () => {
      const when = claimAnswerLost ? 'after' : false;
      claimAnswerLost = false;
      return when;
    });
    await expect(
      withJobLease(lost, 'refund-reconciliation', async () => 'not run', { leaseMs: 60_000 }),
    ).rejects.toThrow('Connection terminated unexpectedly');
    expect(
      await withJobLease(db, 'refund-reconciliation', async () => 'next', { leaseMs: 60_000 }),
    ).toBe('next');
  });

  it('renews the lease while the work runs, and no other run takes it meanwhile', async () => {
    const db = await service();
    const others: Array<string | null> = [];
    await withJobLease(
      db,
      'boleto-exchange',
      async () => {
        // Three lease lengths pass while this run works; another holder tries after each.
        for (let i = 0; i < 3; i++) {
          await sleep(700);
          others.push(
            await withJobLease(db, 'boleto-exchange', async () => 'other', { leaseMs: 600 }),
          );
        }
      },
      { leaseMs: 600 },
    );
    expect(others).toEqual([null, null, null]);
  });

  it('names the transaction lock by service and job, and holds it until the transaction ends', async () => {
    const db = await service();
    expect(jobLockName(db, 'settlement-run')).toBe(`${db.schema}:job:settlement-run`);
    const held = await db.tx(async (trx) => {
      await lockJobInTransaction(db, trx, 'settlement-run');
      const locks = await trx.raw(
        `select count(*)::int as n from pg_locks where locktype = 'advisory' and pid = pg_backend_pid()`,
      );
      return locks.rows[0].n as number;
    });
    expect(held).toBe(1);
    const after = await db.read((q) =>
      q.raw(`select count(*)::int as n from pg_locks where locktype = 'advisory'`),
    );
    expect(after.rows[0].n).toBe(0);
  });
});
