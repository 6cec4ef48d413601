import type { Knex } from 'knex';
import type { Tx } from './db';

/**
 * A statement's text with `?` placeholders and its values: what a builder's `toSQL()` gives. With `name`, a
 * write of `inOneStatement` is the WITH query of that name, which the writes after it may read (its
 * `returning` rows); without, it is `write_<its place>`.
 */
export type WriteSql = Pick<Knex.Sql, 'sql' | 'bindings'> & { name?: string };

/** The name of the WITH query that runs `write`, the `at`-th of its statement. */
export const withName = (write: WriteSql, at: number): string => write.name ?? `write_${at}`;

/**
 * Runs writes (inserts, updates) as one statement, one round trip: all but the last as data-modifying WITH
 * queries, each of which runs once and to completion (PostgreSQL's rule), the last as the statement itself,
 * whose rows it answers (the last may be a read: it sees the tables as they were before the writes). A write
 * reads another only through a named one's `returning` rows (they see the same snapshot, not each other's
 * changes). Takes what a builder's `toSQL()` gives (`?` placeholders).
 */
export async function inOneStatement<Row = unknown>(
  q: Knex | Tx,
  writes: WriteSql[],
): Promise<Row[]> {
  const last = writes.at(-1);
  if (last === undefined) return [];
  const before = writes.slice(0, -1);
  const withs = before.map((w, i) => `${i === 0 ? 'with' : ','} ${withName(w, i)} as (${w.sql})`);
  const result = await q.raw(`${withs.join(' ')} ${last.sql}`, [
    ...before.flatMap((w) => w.bindings),
    ...last.bindings,
  ]);
  return (result as { rows: Row[] }).rows;
}
