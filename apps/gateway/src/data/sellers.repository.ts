import type { Knex } from 'knex';
import type { KycStatus } from '@pgw/contracts';
import { assert, type DocumentType } from '@pgw/domain';
import type { Tx } from '@pgw/platform-db';
import {
  pageOf,
  recordFromRow,
  tableReads,
  tenantRowWrites,
  termsFromRow,
  type DirectoryRecord,
  type Page,
  type Paging,
  type Terms,
} from './queries';

export interface Seller extends DirectoryRecord, Terms {
  tenantId: string;
  name: string;
  document: string;
  documentType: DocumentType;
  kycStatus: KycStatus;
  anticipationLimitCents: number;
  pricingPlanId: string | null;
}

export function toKycStatus(value: unknown): KycStatus {
  if (value === 'pending' || value === 'approved' || value === 'rejected') return value;
  assert(false, 'sellers.kyc-status-known', { value: String(value) });
}

function toDocumentType(value: unknown): DocumentType {
  if (value === 'cpf' || value === 'cnpj') return value;
  assert(false, 'sellers.document-type-known', { value: String(value) });
}

function fromRow(row: Record<string, unknown>): Seller {
  return {
    tenantId: String(row.tenant_id),
    name: String(row.name),
    document: String(row.document),
    documentType: toDocumentType(row.document_type),
    kycStatus: toKycStatus(row.kyc_status),
    anticipationLimitCents: row.anticipation_limit_cents as number,
    ...termsFromRow(row),
    pricingPlanId:
      row.pricing_plan_id === null || row.pricing_plan_id === undefined
        ? null
        : String(row.pricing_plan_id),
    ...recordFromRow(row),
  };
}

/**
 * A seller's terms under the names that its row, its directory event and the operator API all give them
 * (the MDR copied, so that nothing shares the seller's own object).
 */
export function sellerTerms(seller: Seller) {
  return {
    kyc_status: seller.kycStatus,
    anticipation_limit_cents: seller.anticipationLimitCents,
    fee_bps_per_month: seller.feeBpsPerMonth,
    settlement_delay_days: seller.settlementDelayDays,
    mdr_bps: { ...seller.mdrBps },
    pricing_plan_id: seller.pricingPlanId,
  };
}

function toRow(seller: Seller) {
  return {
    name: seller.name,
    document: seller.document,
    document_type: seller.documentType,
    ...sellerTerms(seller),
    mdr_bps: JSON.stringify(seller.mdrBps),
    version: seller.version,
    updated_at: seller.updatedAt,
  };
}

const sellerWrites = tenantRowWrites('sellers', toRow);
export const insertSeller = sellerWrites.insert;
export const updateSeller = sellerWrites.update;

export const findSeller = tableReads('sellers', fromRow).find;

/** One page of the tenant's sellers, newest first, of one KYC status when given. */
export async function listSellersOfTenant(
  q: Knex | Tx,
  tenantId: string,
  paging: Paging,
  kycStatus: KycStatus | undefined,
): Promise<Page<Seller>> {
  const where =
    kycStatus === undefined
      ? { tenant_id: tenantId }
      : { tenant_id: tenantId, kyc_status: kycStatus };
  return pageOf(q, 'sellers', where, paging, fromRow);
}

export async function findApprovedSellerOfTenant(
  q: Knex | Tx,
  tenantId: string,
): Promise<Seller | null> {
  const row: Record<string, unknown> | undefined = await q('sellers')
    .where({ tenant_id: tenantId, kyc_status: 'approved' })
    .orderBy('created_at')
    .first();
  return row === undefined ? null : fromRow(row);
}

/**
 * The KYC status of each of `sellerIds` that is a seller of the tenant, read from the primary key (one
 * query for all of them); an id of no seller, or of another tenant's, is absent from the answer.
 */
export async function kycStatusesOfTenant(
  q: Knex | Tx,
  tenantId: string,
  sellerIds: readonly string[],
): Promise<Map<string, KycStatus>> {
  if (sellerIds.length === 0) return new Map();
  const rows: Array<Record<string, unknown>> = await q('sellers')
    .where({ tenant_id: tenantId })
    .whereIn('id', [...new Set(sellerIds)])
    .select('id', 'kyc_status');
  return new Map(rows.map((row) => [String(row.id), toKycStatus(row.kyc_status)]));
}
