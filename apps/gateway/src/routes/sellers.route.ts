import { Type, type Static } from '@sinclair/typebox';
import { isId, newId, normalizeDocument, type NormalizedDocument } from '@pgw/domain';
import type { Tx } from '@pgw/platform-db';
import { ApiError, ListEnvelope, listPage, notFound, Nullable, PagingQuery, RequestIdSchema, type App } from '@pgw/platform-http';
import { findPricingPlan } from '../data/pricing-plans.repository';
import { findSeller, insertSeller, listSellersOfTenant, updateSeller, type Seller } from '../data/sellers.repository';
import { findTenant } from '../data/tenants.repository';
import { mdrWithDefaults, SELLER_DEFAULTS } from '../directory/defaults';
import { publishSellerChanged } from '../directory/directory-events';
import { BpsSchema, CentsSchema, DateTimeSchema, DelayDaysSchema, iso, MdrBpsInputSchema, MdrBpsSchema, NameSchema, StrictObject, type RouteContext } from './route-context';

const KycStatusSchema = Type.Union([Type.Literal('pending'), Type.Literal('approved'), Type.Literal('rejected')]);
const PlanIdSchema = Type.String({ maxLength: 255 });

const sellerFields = {
  kyc_status: Type.Optional(KycStatusSchema),
  anticipation_limit_cents: Type.Optional(CentsSchema),
  fee_bps_per_month: Type.Optional(BpsSchema),
  settlement_delay_days: Type.Optional(DelayDaysSchema),
  mdr_bps: Type.Optional(MdrBpsInputSchema),
  /** The seller's own plan, over the tenant's default; null clears it. */
  pricing_plan_id: Type.Optional(Nullable(PlanIdSchema)),
};

const CreateSellerBody = StrictObject({
  name: NameSchema,
  document: Type.String({ minLength: 1, maxLength: 32 }),
  ...sellerFields,
});

const UpdateSellerBody = Type.Object(
  { name: Type.Optional(NameSchema), document: Type.Optional(Type.String({ minLength: 1, maxLength: 32 })), ...sellerFields },
  { additionalProperties: false, minProperties: 1 },
);

const sellerResourceFields = {
  object: Type.Literal('seller'),
  id: Type.String(),
  tenant_id: Type.String(),
  name: Type.String(),
  document: Type.String(),
  document_type: Type.Union([Type.Literal('cpf'), Type.Literal('cnpj')]),
  kyc_status: KycStatusSchema,
  anticipation_limit_cents: Type.Integer({ minimum: 0 }),
  fee_bps_per_month: Type.Integer({ minimum: 0 }),
  settlement_delay_days: Type.Integer({ minimum: 0 }),
  mdr_bps: MdrBpsSchema,
  pricing_plan_id: Nullable(Type.String()),
  created_at: DateTimeSchema,
  updated_at: DateTimeSchema,
};

/** A seller in a list: the page carries the request id. */
export const SellerItem = Type.Object(sellerResourceFields);
export const SellerSchema = Type.Object({ ...sellerResourceFields, request_id: RequestIdSchema });

const ListSellersQuery = Type.Object({ ...PagingQuery, kyc_status: Type.Optional(KycStatusSchema) });

function sellerItem(seller: Seller): Static<typeof SellerItem> {
  return {
    object: 'seller',
    id: seller.id,
    tenant_id: seller.tenantId,
    name: seller.name,
    document: seller.document,
    document_type: seller.documentType,
    kyc_status: seller.kycStatus,
    anticipation_limit_cents: seller.anticipationLimitCents,
    fee_bps_per_month: seller.feeBpsPerMonth,
    settlement_delay_days: seller.settlementDelayDays,
    mdr_bps: { ...seller.mdrBps },
    pricing_plan_id: seller.pricingPlanId,
    created_at: iso(seller.createdAt),
    updated_at: iso(seller.updatedAt),
  };
}

export function sellerResource(seller: Seller, requestId: string): Static<typeof SellerSchema> {
  return { ...sellerItem(seller), request_id: requestId };
}

function parseDocument(raw: string): NormalizedDocument {
  const document = normalizeDocument(raw);
  if (document === null) throw new ApiError('parameter_invalid', 'document: must be a valid CPF or CNPJ', 'document');
  return document;
}

/** A plan named in a body must be one of the seller's tenant: another tenant's plan is as unknown as none. */
async function checkPlan(trx: Tx, tenantId: string, planId: string | null | undefined): Promise<void> {
  if (planId === null || planId === undefined) return;
  const plan = isId('plan_', planId) ? await findPricingPlan(trx, planId) : null;
  if (plan === null || plan.tenantId !== tenantId) throw new ApiError('resource_not_found', 'No such pricing plan.', 'pricing_plan_id');
}

/** GET and POST /admin/v1/tenants/:tenant_id/sellers, PATCH /admin/v1/sellers/:seller_id. */
export async function sellerRoutes(app: App, ctx: RouteContext): Promise<void> {
  app.get(
    '/tenants/:tenant_id/sellers',
    { schema: { params: Type.Object({ tenant_id: Type.String() }), querystring: ListSellersQuery, response: { 200: ListEnvelope(SellerItem) } } },
    async (request) => {
      const { tenant_id: tenantId } = request.params;
      const { page = 1, limit = 50, kyc_status: kycStatus } = request.query;
      if (!isId('ten_', tenantId)) throw notFound('tenant');
      const found = await ctx.db.read(async (q) => {
        if ((await findTenant(q, tenantId)) === null) return null;
        return listSellersOfTenant(q, tenantId, kycStatus === undefined ? {} : { kycStatus }, page, limit);
      });
      if (found === null) throw notFound('tenant');
      return { ...listPage(found.data.map(sellerItem), page, limit, found.total), request_id: request.id };
    },
  );

  app.post(
    '/tenants/:tenant_id/sellers',
    { schema: { params: Type.Object({ tenant_id: Type.String() }), body: CreateSellerBody, response: { 201: SellerSchema } } },
    async (request, reply) => {
      const seller = await createSeller(ctx, request.params.tenant_id, request.body, request.id);
      return reply.code(201).send(sellerResource(seller, request.id));
    },
  );

  app.patch(
    '/sellers/:seller_id',
    { schema: { params: Type.Object({ seller_id: Type.String() }), body: UpdateSellerBody, response: { 200: SellerSchema } } },
    async (request) => {
      const { seller_id: sellerId } = request.params;
      if (!isId('seller_', sellerId)) throw notFound('seller');
      const body = request.body;
      const seller = await ctx.db.tx(async (trx) => {
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
          pricingPlanId: body.pricing_plan_id === undefined ? current.pricingPlanId : body.pricing_plan_id,
          version: current.version + 1,
          updatedAt: ctx.clock.now(),
        };
        await updateSeller(trx, next);
        await publishSellerChanged(ctx.db, trx, next, request.id);
        return next;
      });
      // No cache holds KYC: the next tokenize or charge, on any replica, reads this commit (contract §4b).
      return sellerResource(seller, request.id);
    },
  );
}

export async function createSeller(ctx: RouteContext, tenantId: string, body: Static<typeof CreateSellerBody>, requestId: string): Promise<Seller> {
  if (!isId('ten_', tenantId)) throw notFound('tenant');
  return ctx.db.tx(async (trx) => {
    if ((await findTenant(trx, tenantId)) === null) throw notFound('tenant');
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
      anticipationLimitCents: body.anticipation_limit_cents ?? SELLER_DEFAULTS.anticipationLimitCents,
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
