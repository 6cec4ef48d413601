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
  await trx.raw(
    'create index idempotency_keys_resource on idempotency_keys (resource_id) where resource_id is not null',
  );
  // The purge's way to keys past their 24 hours (purgeExpiredKeys).
  await trx.raw('create index idempotency_keys_age on idempotency_keys (created_at)');
}

/**
 * Scopes the keys by seller and gives each in-progress key a lease owner (contract §3), each service's
 * second step on the table `createIdempotencyKeysTable` made. `seller_scope` is the key's seller for a
 * seller-scoped API key and '' for a tenant-wide one: two sellers' keys sending the same key value are two
 * keys. Keys written before it land in the tenant's namespace (''), where only tenant-wide keys, who may
 * read every seller's resources, find them; they are gone within 24 hours anyway.
 */
export async function scopeIdempotencyKeysBySeller(trx: Tx): Promise<void> {
  await trx.raw(`alter table idempotency_keys add column seller_scope text not null default ''`);
  await trx.raw('alter table idempotency_keys alter column seller_scope drop default');
  // Which request holds an in-progress key's lease (idempotency.ts): null on keys written before it.
  await trx.raw('alter table idempotency_keys add column lease_owner text');
  await trx.raw('alter table idempotency_keys drop constraint idempotency_keys_pkey');
  await trx.raw(
    'alter table idempotency_keys add constraint idempotency_keys_pkey primary key (tenant_id, livemode, seller_scope, method, path, key)',
  );
}
