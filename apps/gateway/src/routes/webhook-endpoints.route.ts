import { Type, type Static } from '@sinclair/typebox';
import { EVERY_WEBHOOK_KIND, WEBHOOK_EVENT_FILTERS } from '@pgw/contracts';
import { isId, newId, randomString } from '@pgw/domain';
import {
  ApiError,
  notFound,
  RequestIdSchema,
  webhookUrlProblem,
  type App,
} from '@pgw/platform-http';
import { inTenant } from '../operations/in-tenant';
import {
  deleteWebhookEndpoint,
  findWebhookEndpointForUpdate,
  insertWebhookEndpoint,
  listWebhookEndpointsOfTenant,
  type WebhookEndpoint,
} from '../data/webhook-endpoints.repository';
import { LIMITS } from '@pgw/gateway-domain/defaults';
import { publishWebhookEndpointChanged } from '../directory/directory-events';
import { tenantList, tenantListSchema } from './operator-list';
import {
  createInTenantSchema,
  DateTimeSchema,
  environmentOf,
  EnvironmentSchema,
  iso,
  operatorResource,
  StrictObject,
  type RouteContext,
} from './route-context';

const CreateEndpointBody = StrictObject({
  url: Type.String({ format: 'uri', pattern: '^https?://', maxLength: LIMITS.urlLengthMax }),
  /** The kinds of contract §7 the endpoint receives; '*' (the default) is every kind, including kinds added later. */
  events: Type.Optional(
    Type.Array(Type.Union(WEBHOOK_EVENT_FILTERS.map((k) => Type.Literal(k))), {
      minItems: 1,
      maxItems: WEBHOOK_EVENT_FILTERS.length,
      uniqueItems: true,
    }),
  ),
  /**
   * Which events the endpoint receives: test (default) or live. A test event never reaches a live
   * endpoint, nor a live event a test one; the safe default is the one where no real money is involved.
   */
  environment: Type.Optional(EnvironmentSchema),
});

/**
 * An endpoint in a list: never its signing secret, which only the creation (and a rotation) shows. A list
 * is read again and again, by more people than the one who set the endpoint up.
 */
const endpointResource = operatorResource(
  'webhook_endpoint',
  {
    tenant_id: Type.String(),
    url: Type.String(),
    events: Type.Array(Type.String()),
    environment: EnvironmentSchema,
    livemode: Type.Boolean(),
    created_at: DateTimeSchema,
    updated_at: DateTimeSchema,
  },
  (endpoint: WebhookEndpoint) => ({
    tenant_id: endpoint.tenantId,
    url: endpoint.url,
    events: [...endpoint.events],
    environment: environmentOf(endpoint.livemode),
    livemode: endpoint.livemode,
    created_at: iso(endpoint.createdAt),
    updated_at: iso(endpoint.updatedAt),
  }),
);

/** An endpoint as its creation answers it: with the signing secret. */
export const WebhookEndpointSchema = Type.Object({
  ...endpointResource.Item.properties,
  secret: Type.String(),
  request_id: RequestIdSchema,
});

export const DeletedWebhookEndpointSchema = Type.Object({
  object: Type.Literal('webhook_endpoint'),
  id: Type.String(),
  deleted: Type.Literal(true),
  request_id: RequestIdSchema,
});

function endpointAnswer(
  endpoint: WebhookEndpoint,
  requestId: string,
): Static<typeof WebhookEndpointSchema> {
  return { ...endpointResource.item(endpoint), secret: endpoint.secret, request_id: requestId };
}

/**
 * POST /admin/v1/tenants/:tenant_id/webhook-endpoints: stored and announced; delivery is the webhooks service's.
 * DELETE /admin/v1/webhook-endpoints/:id: gone from the directory, and announced as an endpoint that
 * receives no kind (the v2 event carries the whole state and has no deleted flag; an empty filter is what
 * removal means to the webhooks service, which stops delivering and keeps the past deliveries for the log).
 */
export async function webhookEndpointRoutes(app: App, ctx: RouteContext): Promise<void> {
  // GET /admin/v1/tenants/:tenant_id/webhook-endpoints: the tenant's endpoints, newest first, without secrets.
  app.get(
    '/tenants/:tenant_id/webhook-endpoints',
    tenantListSchema(endpointResource.Item),
    tenantList(ctx, listWebhookEndpointsOfTenant, endpointResource.item),
  );

  app.post(
    '/tenants/:tenant_id/webhook-endpoints',
    createInTenantSchema(CreateEndpointBody, WebhookEndpointSchema),
    async (request, reply) => {
      const { tenant_id: tenantId } = request.params;
      if (!isId('ten_', tenantId)) throw notFound('tenant');
      const body = request.body;
      const problem = webhookUrlProblem(body.url, {
        livemode: body.environment === 'live',
        allowPrivateTargets: ctx.allowPrivateWebhookTargets,
      });
      if (problem !== null) throw new ApiError('parameter_invalid', `url: ${problem}`, 'url');
      const endpoint = await inTenant(ctx.db, tenantId, {}, async (trx) => {
        const now = ctx.clock.now();
        const created: WebhookEndpoint = {
          id: newId('we_'),
          tenantId,
          url: body.url,
          events: body.events === undefined ? [EVERY_WEBHOOK_KIND] : [...body.events],
          secret: `whsec_${randomString(32)}`,
          livemode: body.environment === 'live',
          version: 1,
          createdAt: now,
          updatedAt: now,
        };
        await insertWebhookEndpoint(trx, created);
        await publishWebhookEndpointChanged(ctx.db, trx, created, request.id);
        return created;
      });
      return reply.code(201).send(endpointAnswer(endpoint, request.id));
    },
  );

  app.delete(
    '/webhook-endpoints/:id',
    {
      schema: {
        params: Type.Object({ id: Type.String() }),
        response: { 200: DeletedWebhookEndpointSchema },
      },
    },
    async (request) => {
      const { id } = request.params;
      if (!isId('we_', id)) throw notFound('webhook endpoint');
      await ctx.db.tx(async (trx) => {
        const current = await findWebhookEndpointForUpdate(trx, id);
        if (current === null) throw notFound('webhook endpoint');
        await deleteWebhookEndpoint(trx, id);
        await publishWebhookEndpointChanged(
          ctx.db,
          trx,
          { ...current, events: [], version: current.version + 1, updatedAt: ctx.clock.now() },
          request.id,
        );
      });
      return {
        object: 'webhook_endpoint' as const,
        id,
        deleted: true as const,
        request_id: request.id,
      };
    },
  );
}
