import { integrationEnv, uniqueName } from '@pgw/testing';
import { createPgDb, createPgliteKnex, sharedDb, type Db } from './db';

// The one query every type goes through, on PostgreSQL (node-postgres) and on the embedded database (PGlite).
const TYPES_QUERY = `
  select 9007199254740991::int8 as big, -42::int8 as negative, 7::int4 as int4,
         sum(v) as sum_of_bigint, count(*) as count, 12.5::numeric as fraction,
         '2026-02-28'::date as day, '2026-01-02T03:04:05.678Z'::timestamptz as instant,
         '{"a":[1,"x"]}'::jsonb as jsonb, '{"b":null}'::json as json, null::int8 as nothing
  from (values (1::int8), (2::int8)) as t(v)`;

describe('column types on both drivers', () => {
  const pglite = createPgliteKnex(null);
  let pg: Db;
  beforeAll(() => {
    pg = createPgDb({ url: integrationEnv().databaseUrl, schema: uniqueName('types') });
  });
  afterAll(async () => {
    await pg.close();
    await pglite.destroy();
  });

  const expected = {
    big: 9007199254740991,
    negative: -42,
    int4: 7,
    sum_of_bigint: 3,
    count: 2,
    fraction: 12.5,
    day: '2026-02-28',
    instant: new Date('2026-01-02T03:04:05.678Z'),
    jsonb: { a: [1, 'x'] },
    json: { b: null },
    nothing: null,
  };

  it.each([
    ['PostgreSQL (pg)', () => pg],
    ['the embedded database (PGlite)', () => sharedDb(pglite, 'types')],
  ] as const)(
    '%s gives bigint and numeric as numbers, a date as YYYY-MM-DD, timestamptz as a Date, json parsed',
    async (_, db) => {
      const [row] = await db().read(
        async (q) => (await q.raw(TYPES_QUERY)).rows as Array<Record<string, unknown>>,
      );
      expect(row).toEqual(expected);
      expect(row!.instant).toBeInstanceOf(Date);
    },
  );

  it.each([
    ['PostgreSQL (pg)', () => pg],
    ['the embedded database (PGlite)', () => sharedDb(pglite, 'types')],
  ] as const)(
    '%s refuses a bigint beyond the safe integers rather than round it',
    async (_, db) => {
      await expect(db().read((q) => q.raw('select 9007199254740993::int8 as big'))).rejects.toThrow(
        'beyond the safe integers',
      );
    },
  );
});
