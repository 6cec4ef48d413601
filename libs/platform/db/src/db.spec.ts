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

  it("gives each unit the connection with its own schema: set when it held another's, reads without BEGIN", async () => {
    const a = sharedDb(knex, 'path_a');
    const b = sharedDb(knex, 'path_b');
    await a.migrate(migrations);
    await b.migrate(migrations);
    await a.tx((trx) => trx('things').insert({ id: 'a1', n: 1 }));
    const rows = (db: Db) =>
      db.read(async (q) => (await q('things').count<{ count: number }[]>('* as count'))[0]?.count);

    // a's schema is on the connection: a's reads send their statement alone, b's first unit sets its own.
    expect(
      await statementsDuring(knex, async () => {
        expect(await rows(a)).toBe(1);
        expect(await rows(a)).toBe(1);
        expect(await rows(b)).toBe(0);
      }),
    ).toEqual([
      expect.stringMatching(/^select count/),
      expect.stringMatching(/^select count/),
      'set search_path to "path_b", public',
      expect.stringMatching(/^select count/),
    ]);

    // Units of both, started together and each waiting inside: each finds its own schema on the connection
    // for all of its statements, however they interleave.
    const counts = await Promise.all(
      [a, b, a, b, b, a].map((db) =>
        db.read(async (q) => {
          const first = await q('things').count<{ count: number }[]>('* as count');
          await new Promise((resolve) => setTimeout(resolve, 5));
          const second = await q('things').count<{ count: number }[]>('* as count');
          return [first[0]?.count, second[0]?.count];
        }),
      ),
    );
    expect(counts).toEqual([
      [1, 1],
      [0, 0],
      [1, 1],
      [0, 0],
      [0, 0],
      [1, 1],
    ]);
  });
});
