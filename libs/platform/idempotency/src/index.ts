export {
  canonicalJson,
  completeKeysOf,
  IDEMPOTENCY_KEY_CHARS_MAX,
  IDEMPOTENCY_KEY_HEADER,
  idempotent,
  IdempotencySession,
  KEY_TTL_MS,
  LEASE_RENEW_MS,
  purgeExpiredKeys,
  REPLAYED_HEADER,
  requestHash,
  STALE_IN_PROGRESS_MS,
} from './idempotency';
export type {
  IdempotencyDeps,
  IdempotencyScope,
  IdempotentOptions,
  MayRead,
  Outcome,
} from './idempotency';
export { createIdempotencyKeysTable, scopeIdempotencyKeysBySeller } from './migration';
