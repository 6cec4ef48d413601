import type { Knex } from 'knex';

/** Where a job's walk through its rows is: after the row `after` (null: the start), `limit` rows at most. */
export interface JobPage {
  after: string | null;
  limit: number;
}

/**
 * A job's page of `table`, in (`column`, id) order, after the row `page.after` (the last one of the page
 * before, in whatever status it is now; null: the first page). The cursor is the row itself, so the
 * comparison is on the stored values, to the microsecond.
 */
export function pageAfter(
  query: Knex.QueryBuilder,
  table: 'charges' | 'refunds',
  column: 'created_at' | 'authorized_at' | 'pix_expires_at',
  { after, limit }: JobPage,
): Knex.QueryBuilder {
  const ordered = query.orderBy([{ column }, { column: 'id' }]).limit(limit);
  return after === null
    ? ordered
    : ordered.whereRaw(
        `(${column}, id) > (select k.${column}, k.id from ${table} k where k.id = ?)`,
        [after],
      );
}
