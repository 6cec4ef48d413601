import type { Knex } from 'knex';

// Column values as the drivers hand them back: pg gives bigint as text and timestamptz as Date; PGlite
// may differ. These helpers read both.

export type Cents = string | number;
export type Timestamp = Date | string;

export const cents = (value: Cents): number => {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new Error(`not an integer amount: ${String(value)}`);
  return n;
};

export const date = (value: Timestamp): Date => (value instanceof Date ? value : new Date(value));
export const iso = (value: Timestamp): string => date(value).toISOString();
export const isoOrNull = (value: Timestamp | null): string | null => (value === null ? null : iso(value));
export const msOrNull = (value: Timestamp | null): number | null => (value === null ? null : date(value).getTime());

/**
 * A job's page of `table`, in (`column`, id) order, after the row `after` (the last one of the page before,
 * in whatever status it is now; null: the first page). The cursor is the row itself, so the comparison is
 * on the stored values, to the microsecond.
 */
export function pageAfter(query: Knex.QueryBuilder, table: 'charges' | 'refunds', column: 'created_at' | 'authorized_at' | 'pix_expires_at', after: string | null): Knex.QueryBuilder {
  const ordered = query.orderBy([{ column }, { column: 'id' }]);
  return after === null ? ordered : ordered.whereRaw(`(${column}, id) > (select k.${column}, k.id from ${table} k where k.id = ?)`, [after]);
}
