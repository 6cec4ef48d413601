import { integrationEnv, uniqueName } from '@pgw/testing';
import { createPgDb, type Db } from './db';
import { USES_BEFORE_NAMING } from './prepared-statements';

const env = integrationEnv();

// One connection (poolMax 1), so that pg_prepared_statements, which is per session, shows what this pool
// prepared; a second pool plays a newer replica's migration.
describe('named statements on PostgreSQL', () => {
  const schema = uniqueName('prepared');
  let db: Db;
  let migrator: Db;

  beforeAll(async () => {
    db = createPgDb({ url: env.databaseUrl, schema, poolMax: 1 });
    migrator = createPgDb({ url: env.databaseUrl, schema, poolMax: 1, namedStatements: false });
    await migrator.migrate([
      {
        name: '0001_items',
        up: async (trx) => {
          await trx.raw('create table items (id text primary key, amount integer not null)');
          await trx.raw("insert into items values ('a', 1), ('b', 2)");
        },
      },
    ]);
  });
  afterAll(async () => {
    await migrator.knex.raw(`drop schema if exists "${schema}" cascade`);
    await Promise.all([db.close(), migrator.close()]);
  });

  const prepared = async (): Promise<string[]> => {
    const result = await db.read((q) =>
      q.raw<{ rows: Array<{ statement: string }> }>(
        "select statement from pg_prepared_statements where name like 'pgw\\_%' and statement not like '%pg_prepared_statements%' order by statement",
      ),
    );
    return result.rows.map((r) => r.statement);
  };
  const amountOf = (id: string) =>
    db.read((q) => q('items').where({ id }).first<{ amount: number }>('amount'));

  it('prepares a statement sent again and again, once, and answers as before', async () => {
    const answers = [];
    for (let i = 0; i < USES_BEFORE_NAMING + 3; i += 1)
      answers.push(await amountOf(i % 2 ? 'a' : 'b'));
    expect(answers).toEqual(
      Array.from({ length: USES_BEFORE_NAMING + 3 }, (_, i) => ({ amount: i % 2 ? 1 : 2 })),
    );
    expect(await prepared()).toEqual(['select "amount" from "items" where "id" = $1 limit $2']);
  });

  it('prepares a statement sent in transactions as well', async () => {
    for (let i = 0; i < USES_BEFORE_NAMING + 1; i += 1)
      await db.tx((trx) => trx('items').where('amount', '>', i).count<{ n: number }[]>('id as n'));
    expect(await prepared()).toContain(
      'select count("id") as "n" from "items" where "amount" > $1',
    );
  });

  it('never prepares a whole-row statement', async () => {
    for (let i = 0; i < USES_BEFORE_NAMING + 1; i += 1)
      await db.read((q) => q('items').where({ id: 'a' }).first());
    expect((await prepared()).some((s) => s.includes('*'))).toBe(false);
  });

  it('after a migration changes a prepared result type, fails only the statement that met it, then prepares it again', async () => {
    expect(await amountOf('a')).toEqual({ amount: 1 });
    await migrator.knex.raw('alter table items alter column amount type text');
    await expect(amountOf('a')).rejects.toMatchObject({ code: '0A000' });
    const after = [];
    for (let i = 0; i < USES_BEFORE_NAMING + 1; i += 1) after.push(await amountOf('a'));
    expect(after).toEqual(Array.from({ length: USES_BEFORE_NAMING + 1 }, () => ({ amount: '1' })));
    // The old name stays prepared on this connection (unused); the text is prepared again under a new one.
    const amountText = 'select "amount" from "items" where "id" = $1 limit $2';
    expect((await prepared()).filter((text) => text === amountText)).toEqual([
      amountText,
      amountText,
    ]);
  });
});
