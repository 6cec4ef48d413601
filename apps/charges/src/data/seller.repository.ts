import type { Knex } from 'knex';
import type { EventMap } from '@pgw/contracts';
import type { Tx } from '@pgw/platform-db';
import { copyEvent, type CopyTable } from '@pgw/platform-directory';

type Q = Knex | Tx;

/** Charges' copy of the directory's sellers (@pgw/platform-directory: the highest version wins). */
export const SELLERS: CopyTable = { name: 'sellers', key: 'seller_id' };

/**
 * Keeps the newest state of a seller from gateway.seller-changed.v1: an event whose version is not above
 * the stored one changes nothing, so a late or repeated event cannot undo a newer one.
 */
export const upsertSeller = (trx: Tx, event: EventMap['gateway.seller-changed.v1'], now: Date) =>
  copyEvent(trx, SELLERS, event, ['seller_id', 'tenant_id', 'kyc_status'], now);

/** The seller's KYC status as charges' copy of the directory knows it; null when no event has said yet. */
export async function kycStatusOf(
  q: Q,
  tenantId: string,
  sellerId: string,
): Promise<string | null> {
  const row = await q('sellers')
    .where({ tenant_id: tenantId, seller_id: sellerId })
    .first<{ kyc_status: string | null } | undefined>('kyc_status');
  return row?.kyc_status ?? null;
}

/** Which of `sellerIds` are sellers of the tenant, as charges' copy of the directory knows them. */
export async function sellersOfTenant(
  q: Q,
  tenantId: string,
  sellerIds: readonly string[],
): Promise<Set<string>> {
  if (sellerIds.length === 0) return new Set();
  const rows = await q('sellers')
    .where({ tenant_id: tenantId })
    .whereIn('seller_id', [...sellerIds])
    .select<{ seller_id: string }[]>('seller_id');
  return new Set(rows.map((r) => r.seller_id));
}
