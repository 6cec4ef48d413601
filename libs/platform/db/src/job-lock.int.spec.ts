import { integrationEnv, uniqueName, waitFor } from '@pgw/testing';
import { createPgDb, type Db } from './db';
import { jobLockName, lockJobInTransaction, withJobLease } from './job-lock';

const env = integrationEnv();

describe('job locks on PostgreSQL', () => {
  let db: Db;
  let other: Db;

  beforeAll(async () => {
    const schema = uniqueName('jobs');
    db = createPgDb({ url: env.databaseUrl, schema });
    // Another replica of the same service: another pool on the same schema.
    other = createPgDb({ url: env.databaseUrl, schema });
    await db.migrate([
      {
        name: '0001_job_leases',
        up: async (trx) =>
          void (await trx.raw(
            'create table job_leases (name text primary key, holder text not null, expires_at timestamptz not null)',
          )),
      },
    ]);
  });
  afterAll(async () => {
    await db.close();
    await other.close();
  });

  const waitingForTheLock = (name: string) =>
    db.read((q) =>
      q.raw(
        `select count(*)::int as n from pg_locks l where l.locktype = 'advisory' and not l.granted and l.objid::int = (select hashtext(?))`,
        [name],
      ),
    );

  it('keeps a second run of a job waiting until the first one’s unit commits', async () => {
    const order: string[] = [];
    let commitFirst: () => void = () => undefined;
    const firstHolds = new Promise<void>((resolve) => {
      void db.tx(async (trx) => {
        await lockJobInTransaction(db, trx, 'settlement-run');
        order.push('first locked');
        resolve();
        await new Promise<void>((release) => (commitFirst = release));
        order.push('first commits');
      });
    });
    await firstHolds;
    const second = other.tx(async (trx) => {
      await lockJobInTransaction(other, trx, 'settlement-run');
      order.push('second locked');
    });
    await waitFor(
      async () =>
        (await waitingForTheLock(jobLockName(db, 'settlement-run'))).rows[0].n === 1
          ? true
          : undefined,
      10_000,
      'the second run waiting for the lock',
    );
    expect(order).toEqual(['first locked']);
    commitFirst();
    await second;
    expect(order).toEqual(['first locked', 'first commits', 'second locked']);
  });

  it('lets one replica hold a job’s lease at a time', async () => {
    let inner: string | null = 'not run';
    await withJobLease(
      db,
      'authorization-expiry',
      async () => {
        inner = await withJobLease(other, 'authorization-expiry', async () => 'ran twice', {
          leaseMs: 60_000,
        });
      },
      { leaseMs: 60_000 },
    );
    expect(inner).toBeNull();
    expect(
      await withJobLease(other, 'authorization-expiry', async () => 'ran', { leaseMs: 60_000 }),
    ).toBe('ran');
  });
});
