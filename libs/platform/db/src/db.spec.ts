import { createPgliteKnex, sharedDb, afterCommit, type Migration } from './db';

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
});
