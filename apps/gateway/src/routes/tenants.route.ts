import { Type } from '@sinclair/typebox';
import { isId } from '@pgw/domain';
import { notFound, type App } from '@pgw/platform-http';
import { findTenant, listTenants, updateTenant, type Tenant } from '../data/tenants.repository';
import { publishTenantChanged } from '../directory/directory-events';
import { createTenant } from '../operations/tenants';
import { listSchema, operatorList } from './operator-list';
import {
  CentsSchema,
  changeSchema,
  DateTimeSchema,
  iso,
  NameSchema,
  operatorResource,
  StrictObject,
  withRequestId,
  type RouteContext,
} from './route-context';

const CreateTenantBody = StrictObject({
  name: NameSchema,
  treasury_available_cash_cents: Type.Optional(CentsSchema),
});

// Not in contract §5, which only creates tenants: the treasury moves, and the directory event says so.
const UpdateTenantBody = Type.Object(
  { name: Type.Optional(NameSchema), treasury_available_cash_cents: Type.Optional(CentsSchema) },
  { additionalProperties: false, minProperties: 1 },
);

const tenantResource = operatorResource(
  'tenant',
  {
    name: Type.String(),
    treasury_available_cash_cents: Type.Integer({ minimum: 0 }),
    created_at: DateTimeSchema,
    updated_at: DateTimeSchema,
  },
  (tenant: Tenant) => ({
    name: tenant.name,
    treasury_available_cash_cents: tenant.treasuryAvailableCashCents,
    created_at: iso(tenant.createdAt),
    updated_at: iso(tenant.updatedAt),
  }),
);

/** GET and POST /admin/v1/tenants, PATCH /admin/v1/tenants/:tenant_id. */
export async function tenantRoutes(app: App, ctx: RouteContext): Promise<void> {
  app.get(
    '/tenants',
    listSchema(tenantResource.Item),
    operatorList(ctx, listTenants, tenantResource.item),
  );

  app.post(
    '/tenants',
    { schema: { body: CreateTenantBody, response: { 201: tenantResource.Answer } } },
    async (request, reply) => {
      const tenant = await createTenant(ctx, request.body, request.id);
      return reply.code(201).send(withRequestId(tenantResource.item(tenant), request.id));
    },
  );

  app.patch(
    '/tenants/:tenant_id',
    changeSchema('tenant_id', UpdateTenantBody, tenantResource.Answer),
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
          treasuryAvailableCashCents:
            body.treasury_available_cash_cents ?? current.treasuryAvailableCashCents,
          version: current.version + 1,
          updatedAt: ctx.clock.now(),
        };
        await updateTenant(trx, next);
        await publishTenantChanged(ctx.db, trx, next, request.id);
        return next;
      });
      return withRequestId(tenantResource.item(tenant), request.id);
    },
  );
}
