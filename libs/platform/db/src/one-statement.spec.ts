import { createPgliteKnex, sharedDb, type Migration } from './db';
import { inOneStatement } from './one-statement';

const migrations: Migration[] = [
  {
    name: '0001_tables',
    up: async (trx) => {
      await trx.raw('create table items (id text primary key, n int not null)');
      await trx.raw('create table totals (id text primary key, n int not null)');
    },
  },
];

describe('inOneStatement', () => {
  const knex = createPgliteKnex(null);
  const db = sharedDb(knex, 'one_statement');
  beforeAll(() => db.migrate(migrations));
  afterAll(() => knex.destroy());

  const statementsOf = async (fn: () => Promise<void>): Promise<string[]> => {
    const seen: string[] = [];
    const listen = (q: { sql: string }) => seen.push(q.sql);
    knex.on('query', listen);
    try {
      await fn();
    } finally {
      knex.off('query', listen);
    }
    return seen.filter((sql) => !/^(begin|commit|rollback|set local)/i.test(sql.trim()));
  };

  it('runs every write, with its own values, in one round trip', async () => {
    await db.tx((trx) => trx('totals').insert({ id: 't', n: 1 }));
    const sent = await statementsOf(() =>
      db.tx((trx) =>
        inOneStatement(trx, [
          trx('items')
            .insert([
              { id: 'a', n: 2 },
              { id: 'b', n: 3 },
            ])
            .toSQL(),
          trx('totals').where({ id: 't' }).update({ n: 5 }).toSQL(),
          trx('items').insert({ id: 'c', n: 4 }).toSQL(),
        ]),
      ),
    );
    expect(sent).toHaveLength(1);
    expect(await db.read((q) => q('items').orderBy('id').select('id', 'n'))).toEqual([
      { id: 'a', n: 2 },
      { id: 'b', n: 3 },
      { id: 'c', n: 4 },
    ]);
    expect(await db.read((q) => q('totals').select('id', 'n'))).toEqual([{ id: 't', n: 5 }]);
  });

  it('writes nothing when one of the writes fails', async () => {
    await expect(
      db.tx((trx) =>
        inOneStatement(trx, [
          trx('items').insert({ id: 'd', n: 6 }).toSQL(),
          trx('totals').insert({ id: 't', n: 7 }).toSQL(), // t exists: a unique violation
        ]),
      ),
    ).rejects.toThrow(/duplicate key/);
    expect(await db.read((q) => q('items').where({ id: 'd' }))).toEqual([]);
    expect(await db.read((q) => q('totals').select('n'))).toEqual([{ n: 5 }]);
  });

  it('sends nothing for no writes', async () => {
    expect(await statementsOf(() => db.tx((trx) => inOneStatement(trx, [])))).toEqual([]);
  });
});
