import type { Knex } from 'knex';
import type { KycStatus } from '@pgw/contracts';
import type { Tx } from '@pgw/platform-db';

export interface SellerCopy {
  sellerId: string;
  tenantId: string;
  kycStatus: KycStatus;
  version: number;
}

/**
 * Keeps the newest state of a seller: an event with a version not above the stored one changes nothing,
 * so events delivered late or twice cannot undo a newer KYC decision.
 */
export async function upsertSeller(trx: Tx, seller: SellerCopy, now: Date): Promise<void> {
  await trx.raw(
    `insert into sellers (seller_id, tenant_id, kyc_status, version, updated_at) values (?, ?, ?, ?, ?)
     on conflict (seller_id) do update set tenant_id = excluded.tenant_id, kyc_status = excluded.kyc_status,
       version = excluded.version, updated_at = excluded.updated_at
     where sellers.version < excluded.version`,
    [seller.sellerId, seller.tenantId, seller.kycStatus, seller.version, now],
  );
}

/** The seller's KYC status as the vault knows it, within the tenant; null when the vault has not heard of it. */
export async function sellerKycStatus(q: Knex | Tx, tenantId: string, sellerId: string): Promise<KycStatus | null> {
  const row = await q('sellers').where({ seller_id: sellerId, tenant_id: tenantId }).first<{ kyc_status: KycStatus } | undefined>('kyc_status');
  return row?.kyc_status ?? null;
}
