import { Type, type Static } from '@sinclair/typebox';
import { isId } from '@pgw/domain';
import { notFound, Nullable, type App } from '@pgw/platform-http';
import { listSellersOfTenant, sellerTerms, type Seller } from '../data/sellers.repository';
import { changeSeller, createSeller } from '../operations/sellers';
import { tenantList, tenantListSchema } from './operator-list';
import {
  BpsSchema,
  CentsSchema,
  changeSchema,
  createInTenantSchema,
  DateTimeSchema,
  DelayDaysSchema,
  iso,
  MdrBpsInputSchema,
  MdrBpsSchema,
  NameSchema,
  operatorResource,
  StrictObject,
  withRequestId,
  type RouteContext,
} from './route-context';

const KycStatusSchema = Type.Union([
  Type.Literal('pending'),
  Type.Literal('approved'),
  Type.Literal('rejected'),
]);
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
  {
    name: Type.Optional(NameSchema),
    document: Type.Optional(Type.String({ minLength: 1, maxLength: 32 })),
    ...sellerFields,
  },
  { additionalProperties: false, minProperties: 1 },
);

const sellerResource = operatorResource(
  'seller',
  {
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
  },
  (seller: Seller) => ({
    tenant_id: seller.tenantId,
    name: seller.name,
    document: seller.document,
    document_type: seller.documentType,
    ...sellerTerms(seller),
    created_at: iso(seller.createdAt),
    updated_at: iso(seller.updatedAt),
  }),
);

/** The sellers' list also filters by KYC status. */
const ListSellersFilters = { kyc_status: Type.Optional(KycStatusSchema) };

/** GET and POST /admin/v1/tenants/:tenant_id/sellers, PATCH /admin/v1/sellers/:seller_id. */
export async function sellerRoutes(app: App, ctx: RouteContext): Promise<void> {
  app.get(
    '/tenants/:tenant_id/sellers',
    tenantListSchema(sellerResource.Item, ListSellersFilters),
    tenantList(
      ctx,
      (q, tenantId, paging, query: { kyc_status?: Static<typeof KycStatusSchema> }) =>
        listSellersOfTenant(q, tenantId, paging, query.kyc_status),
      sellerResource.item,
    ),
  );

  app.post(
    '/tenants/:tenant_id/sellers',
    createInTenantSchema(CreateSellerBody, sellerResource.Answer),
    async (request, reply) => {
      const seller = await createSeller(ctx, request.params.tenant_id, request.body, request.id);
      return reply.code(201).send(withRequestId(sellerResource.item(seller), request.id));
    },
  );

  app.patch(
    '/sellers/:seller_id',
    changeSchema('seller_id', UpdateSellerBody, sellerResource.Answer),
    async (request) => {
      const { seller_id: sellerId } = request.params;
      if (!isId('seller_', sellerId)) throw notFound('seller');
      const seller = await changeSeller(ctx, sellerId, request.body, request.id);
      // No cache holds KYC: the next tokenize or charge, on any replica, reads this commit (contract §4b).
      return withRequestId(sellerResource.item(seller), request.id);
    },
  );
}
