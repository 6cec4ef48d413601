import type { Knex } from 'knex';
import type { Db, Tx } from './db';

// Test support (no shipped code path uses it): which index serves a query, as PostgreSQL plans it.

export interface OrderedQueryPlan {
  /** The SELECT as issued, with $n placeholders. */
  sql: string;
  /** The indexes the plan scans, each with its columns in order. */
  indexes: Array<{ name: string; columns: string[] }>;
  /** Whether the plan sorts rows itself, which it does when no index gives the ORDER BY. */
  sorts: boolean;
}

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

function walk(node: PlanNode, visit: (node: PlanNode) => void): void {
  visit(node);
  for (const child of node.Plans ?? []) walk(child, visit);
}

/**
 * Runs `work` in a transaction with sequential scans off, and answers the plan of each SELECT (or WITH …
 * SELECT) with an ORDER BY that it issued. With `enable_seqscan = off` a small table is planned as a
 * large one would be: through the index that serves the query's WHERE and ORDER BY if there is one,
 * else through a sort.
 */
export async function orderedQueryPlans(
  db: Db,
  work: (trx: Tx) => Promise<unknown>,
): Promise<OrderedQueryPlan[]> {
  return db.tx(async (trx) => {
    await trx.raw('set local enable_seqscan = off');
    const issued: Array<{ sql: string; bindings: readonly Knex.RawBinding[] }> = [];
    const listener = (query: { sql: string; bindings?: readonly Knex.RawBinding[] }) => {
      if (/^\s*(select|with)\b/i.test(query.sql) && /\border by\b/i.test(query.sql))
        issued.push({ sql: query.sql, bindings: query.bindings ?? [] });
    };
    db.knex.on('query', listener);
    try {
      await work(trx);
    } finally {
      db.knex.off('query', listener);
    }
    const plans: OrderedQueryPlan[] = [];
    for (const query of issued) {
      // The driver's $n placeholders back to knex's, in order (knex numbered them in order).
      const result = await trx.raw(
        `explain (format json) ${query.sql.replace(/\$\d+/g, '?')}`,
        query.bindings,
      );
      const plan = (result.rows[0] as { 'QUERY PLAN': Array<{ Plan: PlanNode }> })['QUERY PLAN'][0]!
        .Plan;
      const names: string[] = [];
      let sorts = false;
      walk(plan, (node) => {
        if (node['Index Name'] !== undefined) names.push(node['Index Name']);
        if (node['Node Type'].endsWith('Sort')) sorts = true;
      });
      const indexes = [];
      for (const name of names)
        indexes.push({ name, columns: await indexColumns(trx, db.schema, name) });
      plans.push({ sql: query.sql, indexes, sorts });
    }
    return plans;
  });
}

async function indexColumns(trx: Tx, schema: string, index: string): Promise<string[]> {
  const result = await trx.raw(
    `select a.attname as name
       from pg_index i
       join pg_class c on c.oid = i.indexrelid
       join pg_namespace n on n.oid = c.relnamespace
       join lateral unnest(i.indkey::int2[]) with ordinality as k(attnum, position) on true
       join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.attnum
      where n.nspname = ? and c.relname = ?
      order by k.position`,
    [schema, index],
  );
  return (result.rows as Array<{ name: string }>).map((row) => row.name);
}
