import { createPgliteKnex, sharedDb } from './db';
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
