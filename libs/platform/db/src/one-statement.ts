import type { Knex } from 'knex';
import type { Tx } from './db';

/** A statement's text with `?` placeholders and its values: what a builder's `toSQL()` gives. */
export type WriteSql = Pick<Knex.Sql, 'sql' | 'bindings'>;

/**
 * Runs writes (inserts, updates) as one statement, one round trip: all but the last as data-modifying WITH
 * queries, each of which runs once and to completion (PostgreSQL's rule), the last as the statement itself,
 * whose rows it answers (the last may be a read: it sees the tables as they were before the writes). For
 * statements that read nothing from each other. Takes what a builder's `toSQL()` gives (`?` placeholders).
 */
export async function inOneStatement<Row = unknown>(
  q: Knex | Tx,
  writes: WriteSql[],
): Promise<Row[]> {
  const last = writes.at(-1);
  if (last === undefined) return [];
  const before = writes.slice(0, -1);
  const withs = before.map((w, i) => `${i === 0 ? 'with' : ','} write_${i} as (${w.sql})`);
  const result = await q.raw(`${withs.join(' ')} ${last.sql}`, [
    ...before.flatMap((w) => w.bindings),
    ...last.bindings,
  ]);
  return (result as { rows: Row[] }).rows;
}
