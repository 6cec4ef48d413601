import { Type, type Static } from '@sinclair/typebox';
import { isId, newId } from '@pgw/domain';
import { notFound, RequestIdSchema, type App } from '@pgw/platform-http';
import { findTenant, insertTenant, updateTenant, type Tenant } from '../data/tenants.repository';
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

export const TenantSchema = Type.Object({
  object: Type.Literal('tenant'),
  id: Type.String(),
  name: Type.String(),
  treasury_available_cash_cents: Type.Integer({ minimum: 0 }),
  created_at: DateTimeSchema,
  updated_at: DateTimeSchema,
  request_id: RequestIdSchema,
});

export function tenantResource(tenant: Tenant, requestId: string): Static<typeof TenantSchema> {
  return {
    object: 'tenant',
    id: tenant.id,
    name: tenant.name,
    treasury_available_cash_cents: tenant.treasuryAvailableCashCents,
    created_at: iso(tenant.createdAt),
    updated_at: iso(tenant.updatedAt),
    request_id: requestId,
  };
}

/** POST /admin/v1/tenants, PATCH /admin/v1/tenants/:tenant_id. */
export async function tenantRoutes(app: App, ctx: RouteContext): Promise<void> {
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
