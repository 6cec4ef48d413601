import { statementsDuring } from '@pgw/testing';
import { createPgliteKnex, sharedDb, afterCommit, type Db, type Migration } from './db';

const migrations: Migration[] = [
  {
    name: '0001_things',
    up: async (trx) =>
      void (await trx.raw('create table things (id text primary key, n int not null)')),
  },
];

describe('Db on the embedded database', () => {
  const knex = createPgliteKnex(null);
  afterAll(() => knex.destroy());

  it('keeps each service in its own schema over one shared connection', async () => {
    const a = sharedDb(knex, 'svc_a');
    const b = sharedDb(knex, 'svc_b');
    await a.migrate(migrations);
    await b.migrate(migrations);
    await a.migrate(migrations); // a second run applies nothing and fails on nothing
    await a.tx((trx) => trx('things').insert({ id: 'x', n: 1 }));
    expect(await a.read((q) => q('things').count<{ count: number }[]>('* as count'))).toEqual([
      { count: 1 },
    ]);
    expect(await b.read((q) => q('things').count<{ count: number }[]>('* as count'))).toEqual([
      { count: 0 },
    ]);
  });

  it('runs after-commit hooks only when the transaction commits', async () => {
    const db = sharedDb(knex, 'svc_hooks');
    await db.migrate(migrations);
    const fired: string[] = [];
    await db.tx(async (trx) => {
      afterCommit(trx, () => fired.push('committed'));
      await trx('things').insert({ id: 'a', n: 1 });
    });
    await expect(
      db.tx(async (trx) => {
        afterCommit(trx, () => fired.push('rolled back'));
        await trx('things').insert({ id: 'a', n: 2 }); // duplicate key
      }),
    ).rejects.toThrow();
    expect(fired).toEqual(['committed']);
  });

  it("sets a service's schema on the connection only when it holds another's, and again after a rollback", async () => {
    const a = sharedDb(knex, 'path_a');
    const b = sharedDb(knex, 'path_b');
    await a.migrate(migrations);
    await b.migrate(migrations);
    const rows = (db: Db) =>
      db.read(async (q) => (await q('things').count<{ count: number }[]>('* as count'))[0]?.count);
    const pathsSetDuring = async (fn: () => Promise<unknown>) =>
      (await statementsDuring(knex, fn)).filter((sql) => /^set search_path/i.test(sql));

    // b migrated last: a's first unit sets a's schema, the next ones find it set.
    expect(
      await pathsSetDuring(async () => {
        await a.tx((trx) => trx('things').insert({ id: 'a1', n: 1 }));
        expect(await rows(a)).toBe(1);
        expect(await rows(a)).toBe(1);
      }),
    ).toEqual(['set search_path to "path_a", public']);

    // b's unit sets b's schema and rolls back, which puts a's back: b's next unit sets its own again, and
    // so reads its own table (none of a's row).
    const failed = b.tx(async (trx) => {
      await trx('things').insert({ id: 'b1', n: 1 });
      throw new Error('rolled back');
    });
    await expect(failed).rejects.toThrow('rolled back');
    expect(
      await pathsSetDuring(async () => {
        expect(await rows(b)).toBe(0);
        expect(await rows(a)).toBe(1);
      }),
    ).toEqual(['set search_path to "path_b", public', 'set search_path to "path_a", public']);
  });
});
