// The sellers' business operations (the admin routes and the demo data both create sellers through them):
// the routes only adapt HTTP to them and back.
import { isId, newId, normalizeDocument, type NormalizedDocument } from '@pgw/domain';
import type { Db, Tx } from '@pgw/platform-db';
import { ApiError, notFound } from '@pgw/platform-http';
import type { Clock } from '@pgw/platform-service';
import { findPricingPlan } from '../data/pricing-plans.repository';
import { findSeller, insertSeller, updateSeller, type Seller } from '../data/sellers.repository';
import { mdrWithDefaults, SELLER_DEFAULTS } from '@pgw/gateway-domain/defaults';
import { publishSellerChanged } from '../directory/directory-events';
import { inTenant } from './in-tenant';

/** What the directory's operations need: the gateway's database and clock. */
export interface DirectoryContext {
  db: Db;
  clock: Clock;
}

/** A new seller as POST /admin/v1/tenants/:tenant_id/sellers takes it (absent fields take SELLER_DEFAULTS). */
export interface NewSeller {
  name: string;
  document: string;
  kyc_status?: Seller['kycStatus'];
  anticipation_limit_cents?: number;
  fee_bps_per_month?: number;
  settlement_delay_days?: number;
  mdr_bps?: Parameters<typeof mdrWithDefaults>[1];
  pricing_plan_id?: string | null;
}

function parseDocument(raw: string): NormalizedDocument {
  const document = normalizeDocument(raw);
  if (document === null)
    throw new ApiError('parameter_invalid', 'document: must be a valid CPF or CNPJ', 'document');
  return document;
}

/** A plan named in a body must be one of the seller's tenant: another tenant's plan is as unknown as none. */
async function checkPlan(
  trx: Tx,
  tenantId: string,
  planId: string | null | undefined,
): Promise<void> {
  if (planId === null || planId === undefined) return;
  const plan = isId('plan_', planId) ? await findPricingPlan(trx, planId) : null;
  if (plan === null || plan.tenantId !== tenantId)
    throw new ApiError('resource_not_found', 'No such pricing plan.', 'pricing_plan_id');
}

export async function createSeller(
  ctx: DirectoryContext,
  tenantId: string,
  body: NewSeller,
  requestId: string,
): Promise<Seller> {
  return inTenant(ctx.db, tenantId, {}, async (trx) => {
    const document = parseDocument(body.document);
    await checkPlan(trx, tenantId, body.pricing_plan_id);
    const now = ctx.clock.now();
    const seller: Seller = {
      id: newId('seller_'),
      tenantId,
      name: body.name,
      document: document.digits,
      documentType: document.type,
      kycStatus: body.kyc_status ?? SELLER_DEFAULTS.kycStatus,
      anticipationLimitCents:
        body.anticipation_limit_cents ?? SELLER_DEFAULTS.anticipationLimitCents,
      feeBpsPerMonth: body.fee_bps_per_month ?? SELLER_DEFAULTS.feeBpsPerMonth,
      settlementDelayDays: body.settlement_delay_days ?? SELLER_DEFAULTS.settlementDelayDays,
      mdrBps: mdrWithDefaults(SELLER_DEFAULTS.mdrBps, body.mdr_bps),
      pricingPlanId: body.pricing_plan_id ?? null,
      version: 1,
      createdAt: now,
      updatedAt: now,
    };
    await insertSeller(trx, seller);
    await publishSellerChanged(ctx.db, trx, seller, requestId);
    return seller;
  });
}

/** The fields PATCH /admin/v1/sellers/:seller_id may change (at least one). */
export type SellerChanges = Partial<NewSeller>;

/** Applies the changes to the seller, one version more, and announces it on the directory topic. */
export async function changeSeller(
  ctx: DirectoryContext,
  sellerId: string,
  body: SellerChanges,
  requestId: string,
): Promise<Seller> {
  return ctx.db.tx(async (trx) => {
    const current = await findSeller(trx, sellerId, { forUpdate: true });
    if (current === null) throw notFound('seller');
    const document = body.document === undefined ? undefined : parseDocument(body.document);
    await checkPlan(trx, current.tenantId, body.pricing_plan_id);
    const next: Seller = {
      ...current,
      name: body.name ?? current.name,
      document: document?.digits ?? current.document,
      documentType: document?.type ?? current.documentType,
      kycStatus: body.kyc_status ?? current.kycStatus,
      anticipationLimitCents: body.anticipation_limit_cents ?? current.anticipationLimitCents,
      feeBpsPerMonth: body.fee_bps_per_month ?? current.feeBpsPerMonth,
      settlementDelayDays: body.settlement_delay_days ?? current.settlementDelayDays,
      mdrBps: mdrWithDefaults(current.mdrBps, body.mdr_bps),
      pricingPlanId:
        body.pricing_plan_id === undefined ? current.pricingPlanId : body.pricing_plan_id,
      version: current.version + 1,
      updatedAt: ctx.clock.now(),
    };
    await updateSeller(trx, next);
    await publishSellerChanged(ctx.db, trx, next, requestId);
    return next;
  });
}
