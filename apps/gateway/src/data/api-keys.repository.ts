import type { Knex } from 'knex';
import type { Tx } from '@pgw/platform-db';
import { tableReads } from './queries';

export interface ApiKey {
  id: string;
  tenantId: string;
  sellerId: string | null;
  livemode: boolean;
  /** SHA-256 hex of the secret; the secret itself is never stored. */
  secretSha256: string;
  /**
   * The secret's last four characters, so that an operator tells keys apart as the integrator sees them
   * (4 of 32 random base62 characters leave 28: nothing to guess from). Null for keys made before.
   */
  secretLast4: string | null;
  permissions: string[];
  /** Null: the gateway's default (RATE_LIMIT_PER_SECOND). */
  rateLimitPerSecond: number | null;
  createdAt: Date;
  revokedAt: Date | null;
}

/**
 * What authentication needs of a key, read in one query. Not the seller's KYC status: a key is cached,
 * and KYC is read fresh by the routes that need it (contract §4b, read-your-writes).
 */
export interface KeyForAuth {
  id: string;
  tenantId: string;
  sellerId: string | null;
  livemode: boolean;
  permissions: string[];
  rateLimitPerSecond: number | null;
  revoked: boolean;
}

function fromRow(row: Record<string, unknown>): ApiKey {
  return {
    id: String(row.id),
    tenantId: String(row.tenant_id),
    sellerId: row.seller_id === null || row.seller_id === undefined ? null : String(row.seller_id),
    livemode: row.livemode === true,
    secretSha256: String(row.secret_sha256),
    secretLast4:
      row.secret_last4 === null || row.secret_last4 === undefined ? null : String(row.secret_last4),
    permissions: row.permissions as string[],
    rateLimitPerSecond:
      row.rate_limit_per_second === null || row.rate_limit_per_second === undefined
        ? null
        : (row.rate_limit_per_second as number),
    createdAt: row.created_at as Date,
    revokedAt: row.revoked_at as Date | null,
  };
}

export async function insertApiKey(trx: Tx, key: ApiKey): Promise<void> {
  await trx('api_keys').insert({
    id: key.id,
    tenant_id: key.tenantId,
    seller_id: key.sellerId,
    livemode: key.livemode,
    secret_sha256: key.secretSha256,
    secret_last4: key.secretLast4,
    permissions: JSON.stringify(key.permissions),
    rate_limit_per_second: key.rateLimitPerSecond,
    created_at: key.createdAt,
    revoked_at: key.revokedAt,
  });
}

const apiKeys = tableReads('api_keys', fromRow);

export const findApiKey = apiKeys.find;

/** One page of the tenant's keys, revoked ones included, newest first. */
export const listApiKeysOfTenant = apiKeys.pageOfTenant;

export async function revokeApiKey(trx: Tx, id: string, revokedAt: Date): Promise<void> {
  await trx('api_keys').where({ id }).whereNull('revoked_at').update({ revoked_at: revokedAt });
}

export async function findKeyForAuth(
  q: Knex | Tx,
  secretSha256: string,
): Promise<KeyForAuth | null> {
  const row: Record<string, unknown> | undefined = await q('api_keys')
    .where({ secret_sha256: secretSha256 })
    .first();
  if (row === undefined) return null;
  const key = fromRow(row);
  return {
    id: key.id,
    tenantId: key.tenantId,
    sellerId: key.sellerId,
    livemode: key.livemode,
    permissions: key.permissions,
    rateLimitPerSecond: key.rateLimitPerSecond,
    revoked: key.revokedAt !== null,
  };
}
