import { statementsDuring } from '@pgw/testing';
import type { Knex } from 'knex';
import {
  createPgliteKnex,
  sharedDb,
  afterCommit,
  insertAtCommit,
  type Db,
  type Migration,
  type Tx,
} from './db';

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

  it('reads, then writes together, in one turn of the shared connection: no other unit, nor its schema, comes between', async () => {
    const a = sharedDb(knex, 'turn_a');
    const b = sharedDb(knex, 'turn_b');
    await a.migrate(migrations);
    await b.migrate(migrations);
    await a.tx((trx) => trx('things').insert({ id: 'x', n: 1 }));
    const count = async (q: Knex | Tx) =>
      Number((await q('things').count<{ count: number }[]>('* as count'))[0]?.count);

    const sent = await statementsDuring(knex, () =>
      Promise.all([
        a.readThenWriteTogether(count, async (unit, n) =>
          insertAtCommit(unit, 'things', [{ id: 'y', n }]),
        ),
        b.read(count),
      ]),
    );
    const notA = sent.map((sql) => sql.trim()).filter((sql) => !sql.includes('"turn_a"'));
    expect(notA).toEqual([
      expect.stringMatching(/^select count/),
      expect.stringMatching(/^insert into "things"/),
      'set search_path to "turn_b", public',
      expect.stringMatching(/^select count/),
    ]);
    expect(await a.read((q) => q('things').where({ id: 'y' }).pluck('n'))).toEqual([1]);
  });

  it('leaves out, with ignoreConflictsOn, the deferred rows whose key is there, and keeps one rule per table', async () => {
    const db = sharedDb(knex, 'svc_ignore');
    await db.migrate(migrations);
    await db.tx((trx) => trx('things').insert({ id: 'x', n: 1 }));
    await db.writeTogether(async (unit) => {
      insertAtCommit(unit, 'things', [{ id: 'x', n: 2 }], { ignoreConflictsOn: ['id'] });
      insertAtCommit(unit, 'things', [{ id: 'z', n: 3 }], { ignoreConflictsOn: ['id'] });
    });
    expect(await db.read((q) => q('things').orderBy('id').select('id', 'n'))).toEqual([
      { id: 'x', n: 1 },
      { id: 'z', n: 3 },
    ]);
    await expect(
      db.writeTogether(async (unit) => {
        insertAtCommit(unit, 'things', [{ id: 'v', n: 4 }], { ignoreConflictsOn: ['id'] });
        insertAtCommit(unit, 'things', [{ id: 'w', n: 5 }]);
      }),
    ).rejects.toThrow(/insert-at-commit-one-conflict-rule-per-table/);
  });
});
