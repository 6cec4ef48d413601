export { afterCommit, createPgDb, createPgliteKnex, Db, sharedDb } from './db';
export type { Migration, PgDbOptions, Tx } from './db';
