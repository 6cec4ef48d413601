import { integrationEnv, uniqueName } from '@pgw/testing';
import { afterCommit, createPgDb, insertAtCommit, writeAtCommit, type Db, type Tx } from './db';

const env = integrationEnv();

describe('Db.writeTogether on PostgreSQL', () => {
  let db: Db;

  beforeAll(async () => {
    db = createPgDb({ url: env.databaseUrl, schema: uniqueName('together') });
    await db.migrate([
      {
        name: '0001_tables',
        up: async (trx) => {
          await trx.raw('create table log (seq bigserial primary key, what text not null)');
          await trx.raw('create table leases (id text primary key, holder text not null)');
          await trx.raw("insert into leases values ('l', 'me')");
        },
      },
    ]);
  });
  afterAll(() => db.close());

  const sentDuring = async (fn: () => Promise<unknown>): Promise<string[]> => {
    const sent: string[] = [];
    const listen = (q: { sql: string }) => sent.push(q.sql.trim());
    db.knex.on('query', listen);
    try {
      await fn();
    } catch {
      // what was sent is the answer
    } finally {
      db.knex.off('query', listen);
    }
    return sent;
  };
  const logged = (what: string) =>
    db.read((q) => q('log').where({ what }).count<{ n: number }[]>('* as n'));
  const holdLease = (unit: Tx, holder: string) =>
    writeAtCommit(
      unit,
      (q) => q('leases').where({ id: 'l', holder }).update({ holder }, 'id').toSQL(),
      () => new Error(`lease not held by ${holder}`),
    );

  it('sends the deferred writes as one statement with no BEGIN or COMMIT, and runs the hooks once it committed', async () => {
    const fired: string[] = [];
    const sent = await sentDuring(() =>
      db.writeTogether(async (unit) => {
        insertAtCommit(unit, 'log', [{ what: 'together' }, { what: 'together' }]);
        holdLease(unit, 'me');
        afterCommit(unit, () => fired.push('committed'));
      }),
    );
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatch(/^with write_0 as \(insert into "log".*\) select 1 \/ \(select count/s);
    expect(await logged('together')).toEqual([{ n: 2 }]);
    expect(fired).toEqual(['committed']);
  });

  it('writes nothing when a guard finds no row: the work runs again in a transaction, which throws its error', async () => {
    const fired: string[] = [];
    let runs = 0;
    const attempt = db.writeTogether(async (unit) => {
      runs++;
      insertAtCommit(unit, 'log', [{ what: 'fenced' }]);
      holdLease(unit, 'someone-else');
      afterCommit(unit, () => fired.push('committed'));
    });
    await expect(attempt).rejects.toThrow('lease not held by someone-else');
    expect(runs).toBe(2);
    expect(await logged('fenced')).toEqual([{ n: 0 }]);
    expect(fired).toEqual([]);
  });

  it('refuses a query in the work: it has no connection of its own', async () => {
    const attempt = db.writeTogether(async (unit) => {
      insertAtCommit(unit, 'log', [{ what: 'queried' }]);
      await unit('log').select('seq');
    });
    await expect(attempt).rejects.toThrow(/write-together-sends-nothing-itself/);
    expect(await logged('queried')).toEqual([{ n: 0 }]);
  });

  it('reads, then writes together, with no BEGIN; on a failed guard, both again in a transaction', async () => {
    const seqOf = (q: Pick<Tx, 'raw'>) =>
      q
        .raw('select count(*)::int as n from log')
        .then((r: { rows: Array<{ n: number }> }) => r.rows[0]?.n);
    const sent = await sentDuring(() =>
      db.readThenWriteTogether(seqOf, async (unit, n) => {
        insertAtCommit(unit, 'log', [{ what: `after ${String(n)}` }]);
      }),
    );
    expect(sent).toEqual([
      expect.stringMatching(/^select count/),
      expect.stringMatching(/^insert into "log"/),
    ]);

    const reads: string[] = [];
    const attempt = db.readThenWriteTogether(
      async (q) => {
        reads.push(q === db.knex ? 'alone' : 'in a transaction');
        return seqOf(q);
      },
      async (unit) => {
        insertAtCommit(unit, 'log', [{ what: 'read-fenced' }]);
        holdLease(unit, 'someone-else');
      },
    );
    await expect(attempt).rejects.toThrow('lease not held by someone-else');
    expect(reads).toEqual(['alone', 'in a transaction']);
    expect(await logged('read-fenced')).toEqual([{ n: 0 }]);
  });
});
