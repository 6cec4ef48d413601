import { createPgliteKnex, sharedDb } from './db';
import { pagedQuery } from './paged-query';

describe('pagedQuery', () => {
  const knex = createPgliteKnex(null);
  const db = sharedDb(knex, 'paged_query');
  afterAll(() => knex.destroy());

  beforeAll(async () => {
    await db.migrate([
      {
        name: '0001_items',
        up: async (trx) =>
          void (await trx.raw(
            'create table items (id text primary key, owner text not null, created_at int not null)',
          )),
      },
    ]);
    // Two rows share each instant: the second column of the order decides between them.
    await db.tx((trx) =>
      trx('items').insert(
        ['a', 'b', 'c', 'd', 'e'].map((id, i) => ({
          id,
          owner: id === 'e' ? 'other' : 'me',
          created_at: Math.floor(i / 2),
        })),
      ),
    );
  });

  const page = (n: number, limit: number) =>
    db.read((q) =>
      pagedQuery<{ id: string }>(q('items').where({ owner: 'me' }), ['created_at', 'id'], n, limit),
    );

  it('gives the matching rows newest first, ties broken by the next column, and counts them all', async () => {
    const first = await page(1, 3);
    expect(first.rows.map((r) => r.id)).toEqual(['d', 'c', 'b']);
    expect(first.total).toBe(4);
    const second = await page(2, 3);
    expect(second.rows.map((r) => r.id)).toEqual(['a']);
    expect(second.total).toBe(4);
  });

  it('reads the columns asked for only', async () => {
    const { rows } = await db.read((q) =>
      pagedQuery(q('items').where({ owner: 'other' }), ['created_at', 'id'], 1, 10, ['id']),
    );
    expect(rows).toEqual([{ id: 'e' }]);
  });

  it('counts the matches on a page past the end, which has no rows', async () => {
    expect(await page(3, 3)).toEqual({ rows: [], total: 4 });
  });
});
