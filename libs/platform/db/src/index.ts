export {
  afterCommit,
  createPgDb,
  createPgliteKnex,
  Db,
  insertAtCommit,
  isRetryableConflict,
  sharedDb,
  TX_RETRY,
  writeAtCommit,
} from './db';
export { Coalescer } from './coalesce';
export { mayBeNamed } from './prepared-statements';
export { inOneStatement } from './one-statement';
export type { WriteSql } from './one-statement';
export { backoffMs, retry } from './retry';
export { haltProcess, replaceHalt } from './halt';
export { startLoop } from './loop';
export type { Loop, LoopOptions } from './loop';
export {
  claimLease,
  jobLockName,
  lockJobInTransaction,
  releaseLease,
  withJobLease,
} from './job-lock';
export type { JobLeaseOptions, Lease } from './job-lock';
export type { RetryOptions, RetryPolicy } from './retry';
export type { Migration, PgDbOptions, Tx } from './db';
export { pagedQuery } from './paged-query';
export type { Paged } from './paged-query';
export { orderedQueryPlans } from './query-plans';
export type { OrderedQueryPlan } from './query-plans';
export { parseBigint, parseDate, parseNumeric, PG_TYPES, TYPE_PARSERS } from './types';
