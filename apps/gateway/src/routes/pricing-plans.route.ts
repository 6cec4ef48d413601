import { Type } from '@sinclair/typebox';
import { isId, newId } from '@pgw/domain';
import type { Db, Tx } from '@pgw/platform-db';
import { notFound, type App } from '@pgw/platform-http';
import {
  findDefaultPlanForUpdate,
  findPricingPlan,
  insertPricingPlan,
  listPricingPlansOfTenant,
  updatePricingPlan,
  type PricingPlan,
} from '../data/pricing-plans.repository';
import { findTenant } from '../data/tenants.repository';
import { mdrWithDefaults, SELLER_DEFAULTS } from '@pgw/gateway-domain/defaults';
import { publishPricingPlanChanged } from '../directory/directory-events';
import { inTenant } from '../operations/in-tenant';
import { tenantList, tenantListSchema } from './operator-list';
import {
  BpsSchema,
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

const CreatePlanBody = StrictObject({
  name: NameSchema,
  fee_bps_per_month: BpsSchema,
  settlement_delay_days: DelayDaysSchema,
  mdr_bps: Type.Optional(MdrBpsInputSchema),
  /** The tenant's default plan: sellers without an override of their own use it. */
  default: Type.Optional(Type.Boolean()),
});

// Not in contract §5, which only creates plans: a plan's terms change, and the directory event says so.
const UpdatePlanBody = Type.Object(
  {
    name: Type.Optional(NameSchema),
    fee_bps_per_month: Type.Optional(BpsSchema),
    settlement_delay_days: Type.Optional(DelayDaysSchema),
    mdr_bps: Type.Optional(MdrBpsInputSchema),
    default: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, minProperties: 1 },
);

const planResource = operatorResource(
  'pricing_plan',
  {
    tenant_id: Type.String(),
    name: Type.String(),
    fee_bps_per_month: Type.Integer({ minimum: 0 }),
    settlement_delay_days: Type.Integer({ minimum: 0 }),
    mdr_bps: MdrBpsSchema,
    default: Type.Boolean(),
    created_at: DateTimeSchema,
    updated_at: DateTimeSchema,
  },
  (plan: PricingPlan) => ({
    tenant_id: plan.tenantId,
    name: plan.name,
    fee_bps_per_month: plan.feeBpsPerMonth,
    settlement_delay_days: plan.settlementDelayDays,
    mdr_bps: { ...plan.mdrBps },
    default: plan.isDefault,
    created_at: iso(plan.createdAt),
    updated_at: iso(plan.updatedAt),
  }),
);

/** A tenant has at most one default: the old default stops being one, and its own event says so. */
async function demoteCurrentDefault(
  db: Db,
  trx: Tx,
  tenantId: string,
  exceptPlanId: string | null,
  now: Date,
  requestId: string,
): Promise<void> {
  const current = await findDefaultPlanForUpdate(trx, tenantId);
  if (current === null || current.id === exceptPlanId) return;
  const demoted: PricingPlan = {
    ...current,
    isDefault: false,
    version: current.version + 1,
    updatedAt: now,
  };
  await updatePricingPlan(trx, demoted);
  await publishPricingPlanChanged(db, trx, demoted, requestId);
}

/** GET and POST /admin/v1/tenants/:tenant_id/pricing-plans, PATCH /admin/v1/pricing-plans/:plan_id. */
export async function pricingPlanRoutes(app: App, ctx: RouteContext): Promise<void> {
  app.get(
    '/tenants/:tenant_id/pricing-plans',
    tenantListSchema(planResource.Item),
    tenantList(ctx, listPricingPlansOfTenant, planResource.item),
  );

  app.post(
    '/tenants/:tenant_id/pricing-plans',
    createInTenantSchema(CreatePlanBody, planResource.Answer),
    async (request, reply) => {
      const { tenant_id: tenantId } = request.params;
      const body = request.body;
      // Locking the tenant serialises default changes of one tenant (two concurrent defaults would both find none).
      const plan = await inTenant(ctx.db, tenantId, { forUpdate: true }, async (trx) => {
        const now = ctx.clock.now();
        const created: PricingPlan = {
          id: newId('plan_'),
          tenantId,
          name: body.name,
          feeBpsPerMonth: body.fee_bps_per_month,
          settlementDelayDays: body.settlement_delay_days,
          mdrBps: mdrWithDefaults(SELLER_DEFAULTS.mdrBps, body.mdr_bps),
          isDefault: body.default ?? false,
          version: 1,
          createdAt: now,
          updatedAt: now,
        };
        if (created.isDefault)
          await demoteCurrentDefault(ctx.db, trx, tenantId, null, now, request.id);
        await insertPricingPlan(trx, created);
        await publishPricingPlanChanged(ctx.db, trx, created, request.id);
        return created;
      });
      return reply.code(201).send(withRequestId(planResource.item(plan), request.id));
    },
  );

  app.patch(
    '/pricing-plans/:plan_id',
    changeSchema('plan_id', UpdatePlanBody, planResource.Answer),
    async (request) => {
      const { plan_id: planId } = request.params;
      if (!isId('plan_', planId)) throw notFound('pricing plan');
      const body = request.body;
      const plan = await ctx.db.tx(async (trx) => {
        const found = await findPricingPlan(trx, planId);
        if (found === null) throw notFound('pricing plan');
        await findTenant(trx, found.tenantId, { forUpdate: true });
        const current = await findPricingPlan(trx, planId, { forUpdate: true });
        if (current === null) throw notFound('pricing plan');
        const now = ctx.clock.now();
        const next: PricingPlan = {
          ...current,
          name: body.name ?? current.name,
          feeBpsPerMonth: body.fee_bps_per_month ?? current.feeBpsPerMonth,
          settlementDelayDays: body.settlement_delay_days ?? current.settlementDelayDays,
          mdrBps: mdrWithDefaults(current.mdrBps, body.mdr_bps),
          isDefault: body.default ?? current.isDefault,
          version: current.version + 1,
          updatedAt: now,
        };
        if (next.isDefault && !current.isDefault)
          await demoteCurrentDefault(ctx.db, trx, current.tenantId, current.id, now, request.id);
        await updatePricingPlan(trx, next);
        await publishPricingPlanChanged(ctx.db, trx, next, request.id);
        return next;
      });
      return withRequestId(planResource.item(plan), request.id);
    },
  );
}
