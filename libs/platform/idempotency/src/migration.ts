import type { Tx } from '@pgw/platform-db';

/**
 * Creates the Idempotency-Key table (contract §3) in the migrating service's own schema: each service
 * calls it from its own migration, so that the keys live beside the rows they protect. The shape is the
 * one both services shipped in their first migration; change it only with a new migration of each.
 */
export async function createIdempotencyKeysTable(trx: Tx): Promise<void> {
  await trx.raw(`
    create table idempotency_keys (
      tenant_id text not null,
      livemode boolean not null,
      method text not null,
      path text not null,
      key text not null,
      request_hash text not null,
      state text not null,
      response_status int,
      response_json text,
      resource_id text,
      locked_at timestamptz not null,
      created_at timestamptz not null,
      primary key (tenant_id, livemode, method, path, key)
    )`);
  // The recovery's way from a resource to the keys waiting on it (completeKeysOf).
  await trx.raw('create index idempotency_keys_resource on idempotency_keys (resource_id) where resource_id is not null');
  // The purge's way to keys past their 24 hours (purgeExpiredKeys).
  await trx.raw('create index idempotency_keys_age on idempotency_keys (created_at)');
}
