import type { Knex } from 'knex';
import type { Tx } from '@pgw/platform-db';

type Q = Knex | Tx;

/**
 * Keeps the newest state of a seller from gateway.seller-changed.v1: an event whose version is not above
 * the stored one changes nothing, so a late or repeated event cannot undo a newer one.
 */
export async function upsertSeller(trx: Tx, seller: { sellerId: string; tenantId: string; kycStatus: string; version: number }, now: Date): Promise<void> {
  await trx.raw(
    `insert into sellers (seller_id, tenant_id, kyc_status, version, updated_at) values (?, ?, ?, ?, ?)
     on conflict (seller_id) do update set tenant_id = excluded.tenant_id, kyc_status = excluded.kyc_status, version = excluded.version, updated_at = excluded.updated_at
     where sellers.version < excluded.version`,
    [seller.sellerId, seller.tenantId, seller.kycStatus, seller.version, now],
  );
}

/** The seller's KYC status as charges' copy of the directory knows it; null when no event has said yet. */
export async function kycStatusOf(q: Q, tenantId: string, sellerId: string): Promise<string | null> {
  const row = await q('sellers').where({ tenant_id: tenantId, seller_id: sellerId }).first<{ kyc_status: string | null } | undefined>('kyc_status');
  return row?.kyc_status ?? null;
}

/** Which of `sellerIds` are sellers of the tenant, as charges' copy of the directory knows them. */
export async function sellersOfTenant(q: Q, tenantId: string, sellerIds: readonly string[]): Promise<Set<string>> {
  if (sellerIds.length === 0) return new Set();
  const rows = await q('sellers').where({ tenant_id: tenantId }).whereIn('seller_id', [...sellerIds]).select<{ seller_id: string }[]>('seller_id');
  return new Set(rows.map((r) => r.seller_id));
}
