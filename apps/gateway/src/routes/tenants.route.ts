import { Type, type Static } from '@sinclair/typebox';
import { isId, newId } from '@pgw/domain';
import { ListEnvelope, listPage, notFound, PagingQuery, RequestIdSchema, type App } from '@pgw/platform-http';
import { findTenant, insertTenant, listTenants, updateTenant, type Tenant } from '../data/tenants.repository';
import { TENANT_DEFAULTS } from '../directory/defaults';
import { publishTenantChanged } from '../directory/directory-events';
import { CentsSchema, DateTimeSchema, iso, NameSchema, StrictObject, type RouteContext } from './route-context';

const CreateTenantBody = StrictObject({
  name: NameSchema,
  treasury_available_cash_cents: Type.Optional(CentsSchema),
});

// Not in contract §5, which only creates tenants: the treasury moves, and the directory event says so.
const UpdateTenantBody = Type.Object(
  { name: Type.Optional(NameSchema), treasury_available_cash_cents: Type.Optional(CentsSchema) },
  { additionalProperties: false, minProperties: 1 },
);

const tenantFields = {
  object: Type.Literal('tenant'),
  id: Type.String(),
  name: Type.String(),
  treasury_available_cash_cents: Type.Integer({ minimum: 0 }),
  created_at: DateTimeSchema,
  updated_at: DateTimeSchema,
};

/** A tenant in a list: the page carries the request id. */
export const TenantItem = Type.Object(tenantFields);
export const TenantSchema = Type.Object({ ...tenantFields, request_id: RequestIdSchema });

function tenantItem(tenant: Tenant): Static<typeof TenantItem> {
  return {
    object: 'tenant',
    id: tenant.id,
    name: tenant.name,
    treasury_available_cash_cents: tenant.treasuryAvailableCashCents,
    created_at: iso(tenant.createdAt),
    updated_at: iso(tenant.updatedAt),
  };
}

export function tenantResource(tenant: Tenant, requestId: string): Static<typeof TenantSchema> {
  return { ...tenantItem(tenant), request_id: requestId };
}

/** GET and POST /admin/v1/tenants, PATCH /admin/v1/tenants/:tenant_id. */
export async function tenantRoutes(app: App, ctx: RouteContext): Promise<void> {
  app.get('/tenants', { schema: { querystring: Type.Object(PagingQuery), response: { 200: ListEnvelope(TenantItem) } } }, async (request) => {
    const { page = 1, limit = 50 } = request.query;
    const { data, total } = await ctx.db.read((q) => listTenants(q, page, limit));
    return { ...listPage(data.map(tenantItem), page, limit, total), request_id: request.id };
  });

  app.post('/tenants', { schema: { body: CreateTenantBody, response: { 201: TenantSchema } } }, async (request, reply) => {
    const tenant = await createTenant(ctx, request.body, request.id);
    return reply.code(201).send(tenantResource(tenant, request.id));
  });

  app.patch(
    '/tenants/:tenant_id',
    { schema: { params: Type.Object({ tenant_id: Type.String() }), body: UpdateTenantBody, response: { 200: TenantSchema } } },
    async (request) => {
      const { tenant_id: tenantId } = request.params;
      if (!isId('ten_', tenantId)) throw notFound('tenant');
      const body = request.body;
      const tenant = await ctx.db.tx(async (trx) => {
        const current = await findTenant(trx, tenantId, { forUpdate: true });
        if (current === null) throw notFound('tenant');
        const next: Tenant = {
          ...current,
          name: body.name ?? current.name,
          treasuryAvailableCashCents: body.treasury_available_cash_cents ?? current.treasuryAvailableCashCents,
          version: current.version + 1,
          updatedAt: ctx.clock.now(),
        };
        await updateTenant(trx, next);
        await publishTenantChanged(ctx.db, trx, next, request.id);
        return next;
      });
      return tenantResource(tenant, request.id);
    },
  );
}

export async function createTenant(ctx: RouteContext, body: Static<typeof CreateTenantBody>, requestId: string): Promise<Tenant> {
  const now = ctx.clock.now();
  const tenant: Tenant = {
    id: newId('ten_'),
    name: body.name,
    treasuryAvailableCashCents: body.treasury_available_cash_cents ?? TENANT_DEFAULTS.treasuryAvailableCashCents,
    version: 1,
    createdAt: now,
    updatedAt: now,
  };
  await ctx.db.tx(async (trx) => {
    await insertTenant(trx, tenant);
    await publishTenantChanged(ctx.db, trx, tenant, requestId);
  });
  return tenant;
}
