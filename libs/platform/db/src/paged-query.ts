import type { Knex } from 'knex';

/** One page of a list and how many rows the whole list has (contract §4a's `total`). */
export interface Paged<Row> {
  rows: Row[];
  total: number;
}

/**
 * One page of an API list: the rows `query` matches, newest first, `limit` of them from page `page`
 * (1-based), and `total`, the count of all of them. `newestFirst` names the columns of the order, each
 * descending: the first sorts (`created_at`), the next break its ties (`id`, or `seq` for insertion
 * order), so that no row is on two pages or on none. `query` is a builder with the scope and filters
 * only (no select, order or limit): it is cloned for the count and for the page, two statements; the
 * page reads `columns` (every column unless given).
 */
export async function pagedQuery<Row>(
  query: Knex.QueryBuilder,
  newestFirst: readonly [string, ...string[]],
  page: number,
  limit: number,
  columns: readonly string[] = ['*'],
): Promise<Paged<Row>> {
  const [count] = (await query.clone().count({ count: '*' })) as Array<{ count: number }>;
  const rows = (await query
    .clone()
    .select(columns)
    .orderBy(newestFirst.map((column) => ({ column, order: 'desc' as const })))
    .limit(limit)
    .offset((page - 1) * limit)) as Row[];
  return { rows, total: count?.count ?? 0 };
}
