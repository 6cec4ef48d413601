import type { Knex } from 'knex';
import { createPgliteKnex, insertAtCommit, sharedDb, writeAtCommit, type Migration } from './db';
import { inOneStatement } from './one-statement';
import { statementsDuring } from '@pgw/testing';

const migrations: Migration[] = [
  {
    name: '0001_tables',
    up: async (trx) => {
      await trx.raw('create table items (id text primary key, n int not null)');
      await trx.raw('create table totals (id text primary key, n int not null)');
      await trx.raw('create table log (seq bigserial primary key, what text not null)');
    },
  },
];

/** The statements `fn` sends through `knex`, without the transactions' own (BEGIN, COMMIT, search_path). */
const ownStatementsDuring = async (knex: Knex, fn: () => Promise<unknown>): Promise<string[]> =>
  (await statementsDuring(knex, fn)).filter(
    (sql) => !/^(begin|commit|rollback|set search_path)/i.test(sql.trim()),
  );

describe('inOneStatement', () => {
  const knex = createPgliteKnex(null);
  const db = sharedDb(knex, 'one_statement');
  beforeAll(() => db.migrate(migrations));
  afterAll(() => knex.destroy());

  const statementsOf = (fn: () => Promise<unknown>) => ownStatementsDuring(knex, fn);

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

  it("lets a write read a named write's returning rows: only what it inserted", async () => {
    await db.tx((trx) => trx('items').insert({ id: 'e', n: 1 }));
    const sent = await statementsOf(() =>
      db.tx((trx) =>
        inOneStatement(trx, [
          {
            name: 'added',
            ...trx('items')
              .insert([
                { id: 'e', n: 10 }, // there already: not inserted, not counted
                { id: 'f', n: 20 },
                { id: 'g', n: 30 },
              ])
              .onConflict('id')
              .ignore()
              .returning(['id', 'n'])
              .toSQL(),
          },
          { sql: "insert into totals (id, n) select 'added', sum(n) from added", bindings: [] },
        ]),
      ),
    );
    expect(sent).toHaveLength(1);
    expect(await db.read((q) => q('totals').where({ id: 'added' }).select('n'))).toEqual([
      { n: 50 },
    ]);
  });

  it('sends nothing for no writes', async () => {
    expect(await statementsOf(() => db.tx((trx) => inOneStatement(trx, [])))).toEqual([]);
  });
});

describe('insertAtCommit', () => {
  const knex = createPgliteKnex(null);
  const db = sharedDb(knex, 'insert_at_commit');
  beforeAll(() => db.migrate(migrations));
  afterAll(() => knex.destroy());

  it('inserts at commit, in the order given across calls, every table in one statement', async () => {
    const sent: string[] = [];
    const listen = (q: { sql: string }) => sent.push(q.sql);
    knex.on('query', listen);
    try {
      await db.tx(async (trx) => {
        insertAtCommit(trx, 'log', [{ what: 'first' }, { what: 'second' }]);
        insertAtCommit(trx, 'items', [{ id: 'x', n: 1 }]);
        insertAtCommit(trx, 'log', [{ what: 'third' }]);
        // Not written yet: nothing in the transaction reads these rows back.
        expect(await trx('log').count<{ count: number }[]>('* as count')).toEqual([{ count: 0 }]);
      });
    } finally {
      knex.off('query', listen);
    }
    expect(await db.read((q) => q('log').orderBy('seq').pluck('what'))).toEqual([
      'first',
      'second',
      'third',
    ]);
    expect(await db.read((q) => q('items').pluck('id'))).toEqual(['x']);
    expect(sent.filter((sql) => /^\s*(with|insert)/i.test(sql))).toHaveLength(1);
  });

  it('inserts nothing when the transaction rolls back, and only in a transaction of Db.tx', async () => {
    await expect(
      db.tx(async (trx) => {
        insertAtCommit(trx, 'log', [{ what: 'rolled back' }]);
        throw new Error('no');
      }),
    ).rejects.toThrow('no');
    expect(await db.read((q) => q('log').where({ what: 'rolled back' }))).toEqual([]);
    await expect(
      knex.transaction(async (trx) => insertAtCommit(trx, 'log', [{ what: 'stray' }])),
    ).rejects.toThrow(/insert-at-commit-in-db-tx/);
  });
});

describe('writeAtCommit', () => {
  const knex = createPgliteKnex(null);
  const db = sharedDb(knex, 'write_at_commit');
  beforeAll(async () => {
    await db.migrate(migrations);
    await db.tx((trx) => trx('totals').insert({ id: 'lease', n: 1 }));
  });
  afterAll(() => knex.destroy());

  const writesSent = async (fn: () => Promise<unknown>) =>
    (await ownStatementsDuring(knex, fn)).filter((sql) => !/^\s*select/i.test(sql));
  const guarded = (n: number) => (trx: Parameters<typeof insertAtCommit>[0]) =>
    writeAtCommit(
      trx,
      () =>
        trx('totals')
          .where({ id: 'lease', n })
          .update({ n: n + 1 }, 'id')
          .toSQL(),
      () => new Error(`lease ${n} lost`),
    );

  it('writes a guarded update that finds its row, and an unguarded write, in the one statement of the deferred inserts', async () => {
    const sent = await writesSent(() =>
      db.tx(async (trx) => {
        insertAtCommit(trx, 'log', [{ what: 'kept' }]);
        guarded(1)(trx);
        // Unguarded: written with the others, whatever it changes.
        writeAtCommit(trx, (q) => q('items').insert({ id: 'unguarded', n: 9 }).toSQL());
        // Not written yet: it goes at commit.
        expect(await trx('totals').where({ id: 'lease' }).first('n')).toEqual({ n: 1 });
      }),
    );
    expect(sent).toHaveLength(1);
    expect(await db.read((q) => q('totals').where({ id: 'lease' }).first('n'))).toEqual({ n: 2 });
    expect(await db.read((q) => q('log').where({ what: 'kept' }).count('* as c'))).toEqual([
      { c: 1 },
    ]);
    expect(await db.read((q) => q('items').where({ id: 'unguarded' }).first('n'))).toEqual({
      n: 9,
    });
  });

  it('rolls the whole transaction back with its error when the guarded write finds no row', async () => {
    // n is 2 now: a guard on 1 is a lease another took.
    await expect(
      db.tx(async (trx) => {
        await trx('items').insert({ id: 'before-the-guard', n: 1 });
        insertAtCommit(trx, 'log', [{ what: 'lost' }]);
        guarded(1)(trx);
      }),
    ).rejects.toThrow('lease 1 lost');
    expect(await db.read((q) => q('items').where({ id: 'before-the-guard' }))).toEqual([]);
    expect(await db.read((q) => q('log').where({ what: 'lost' }))).toEqual([]);
    expect(await db.read((q) => q('totals').where({ id: 'lease' }).first('n'))).toEqual({ n: 2 });
  });

  it('checks every guarded write of the transaction, and only in a transaction of Db.tx', async () => {
    await expect(
      db.tx(async (trx) => {
        guarded(2)(trx);
        writeAtCommit(
          trx,
          (q) => q('items').where({ id: 'absent' }).delete('id').toSQL(),
          () => new Error('absent row'),
        );
      }),
    ).rejects.toThrow('absent row');
    expect(await db.read((q) => q('totals').where({ id: 'lease' }).first('n'))).toEqual({ n: 2 });
    await expect(knex.transaction(async (trx) => guarded(2)(trx))).rejects.toThrow(
      /write-at-commit-in-db-tx/,
    );
  });
});
