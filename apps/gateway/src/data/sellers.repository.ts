import type { Knex } from 'knex';
import type { KycStatus } from '@pgw/contracts';
import type { DocumentType } from '@pgw/domain';
import type { Tx } from '@pgw/platform-db';
import type { MdrBps } from '../directory/defaults';
import { pageOfRows, toDate, toInt, toMdrBps } from './rows';

export interface Seller {
  id: string;
  tenantId: string;
  name: string;
  document: string;
  documentType: DocumentType;
  kycStatus: KycStatus;
  anticipationLimitCents: number;
  feeBpsPerMonth: number;
  settlementDelayDays: number;
  mdrBps: MdrBps;
  pricingPlanId: string | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

export function toKycStatus(value: unknown): KycStatus {
  if (value === 'pending' || value === 'approved' || value === 'rejected') return value;
  throw new Error('sellers.kyc_status holds an unknown status');
}

function toDocumentType(value: unknown): DocumentType {
  if (value === 'cpf' || value === 'cnpj') return value;
  throw new Error('sellers.document_type holds an unknown type');
}

function fromRow(row: Record<string, unknown>): Seller {
  return {
    id: String(row.id),
    tenantId: String(row.tenant_id),
    name: String(row.name),
    document: String(row.document),
    documentType: toDocumentType(row.document_type),
    kycStatus: toKycStatus(row.kyc_status),
    anticipationLimitCents: toInt(row.anticipation_limit_cents, 'sellers.anticipation_limit_cents'),
    feeBpsPerMonth: toInt(row.fee_bps_per_month, 'sellers.fee_bps_per_month'),
    settlementDelayDays: toInt(row.settlement_delay_days, 'sellers.settlement_delay_days'),
    mdrBps: toMdrBps(row.mdr_bps, 'sellers.mdr_bps'),
    pricingPlanId: row.pricing_plan_id === null || row.pricing_plan_id === undefined ? null : String(row.pricing_plan_id),
    version: toInt(row.version, 'sellers.version'),
    createdAt: toDate(row.created_at, 'sellers.created_at'),
    updatedAt: toDate(row.updated_at, 'sellers.updated_at'),
  };
}

function toRow(seller: Seller) {
  return {
    name: seller.name,
    document: seller.document,
    document_type: seller.documentType,
    kyc_status: seller.kycStatus,
    anticipation_limit_cents: seller.anticipationLimitCents,
    fee_bps_per_month: seller.feeBpsPerMonth,
    settlement_delay_days: seller.settlementDelayDays,
    mdr_bps: JSON.stringify(seller.mdrBps),
    pricing_plan_id: seller.pricingPlanId,
    version: seller.version,
    updated_at: seller.updatedAt,
  };
}

export async function insertSeller(trx: Tx, seller: Seller): Promise<void> {
  await trx('sellers').insert({ id: seller.id, tenant_id: seller.tenantId, created_at: seller.createdAt, ...toRow(seller) });
}

export async function updateSeller(trx: Tx, seller: Seller): Promise<void> {
  await trx('sellers').where({ id: seller.id }).update(toRow(seller));
}

export async function findSeller(q: Knex | Tx, id: string, options: { forUpdate?: boolean } = {}): Promise<Seller | null> {
  const query = q('sellers').where({ id }).first();
  const row: Record<string, unknown> | undefined = await (options.forUpdate === true ? query.forUpdate() : query);
  return row === undefined ? null : fromRow(row);
}

/** One page of the tenant's sellers, newest first, of one KYC status when given. */
export async function listSellersOfTenant(q: Knex | Tx, tenantId: string, filter: { kycStatus?: KycStatus }, page: number, limit: number): Promise<{ data: Seller[]; total: number }> {
  const where = filter.kycStatus === undefined ? { tenant_id: tenantId } : { tenant_id: tenantId, kyc_status: filter.kycStatus };
  const { rows, total } = await pageOfRows(q, 'sellers', where, page, limit);
  return { data: rows.map(fromRow), total };
}

export async function findApprovedSellerOfTenant(q: Knex | Tx, tenantId: string): Promise<Seller | null> {
  const row: Record<string, unknown> | undefined = await q('sellers').where({ tenant_id: tenantId, kyc_status: 'approved' }).orderBy('created_at').first();
  return row === undefined ? null : fromRow(row);
}

/**
 * The KYC status of each of `sellerIds` that is a seller of the tenant, read from the primary key (one
 * query for all of them); an id of no seller, or of another tenant's, is absent from the answer.
 */
export async function kycStatusesOfTenant(q: Knex | Tx, tenantId: string, sellerIds: readonly string[]): Promise<Map<string, KycStatus>> {
  if (sellerIds.length === 0) return new Map();
  const rows: Array<Record<string, unknown>> = await q('sellers').where({ tenant_id: tenantId }).whereIn('id', [...new Set(sellerIds)]).select('id', 'kyc_status');
  return new Map(rows.map((row) => [String(row.id), toKycStatus(row.kyc_status)]));
}
