export { afterCommit, createPgDb, createPgliteKnex, Db, sharedDb } from './db';
export type { Migration, PgDbOptions, Tx } from './db';
export { orderedQueryPlans } from './query-plans';
export type { OrderedQueryPlan } from './query-plans';
