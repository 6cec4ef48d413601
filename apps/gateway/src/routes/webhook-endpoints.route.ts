import { Type, type Static } from '@sinclair/typebox';
import { EVERY_WEBHOOK_KIND, WEBHOOK_EVENT_FILTERS } from '@pgw/contracts';
import { isId, newId } from '@pgw/domain';
import { ApiError, ListEnvelope, listPage, notFound, PagingQuery, RequestIdSchema, webhookUrlProblem, type App } from '@pgw/platform-http';
import { randomBase62 } from '../auth/api-key-secret';
import { findTenant } from '../data/tenants.repository';
import { deleteWebhookEndpoint, findWebhookEndpointForUpdate, insertWebhookEndpoint, listWebhookEndpointsOfTenant, type WebhookEndpoint } from '../data/webhook-endpoints.repository';
import { LIMITS } from '../directory/defaults';
import { publishWebhookEndpointChanged } from '../directory/directory-events';
import { DateTimeSchema, EnvironmentSchema, iso, StrictObject, type RouteContext } from './route-context';


const CreateEndpointBody = StrictObject({
  url: Type.String({ format: 'uri', pattern: '^https?://', maxLength: LIMITS.urlLengthMax }),
  /** The kinds of contract §7 the endpoint receives; '*' (the default) is every kind, including kinds added later. */
  events: Type.Optional(Type.Array(Type.Union(WEBHOOK_EVENT_FILTERS.map((k) => Type.Literal(k))), { minItems: 1, maxItems: WEBHOOK_EVENT_FILTERS.length, uniqueItems: true })),
  /**
   * Which events the endpoint receives: test (default) or live. A test event never reaches a live
   * endpoint, nor a live event a test one; the safe default is the one where no real money is involved.
   */
  environment: Type.Optional(EnvironmentSchema),
});

const endpointFields = {
  object: Type.Literal('webhook_endpoint'),
  id: Type.String(),
  tenant_id: Type.String(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  environment: EnvironmentSchema,
  livemode: Type.Boolean(),
  created_at: DateTimeSchema,
  updated_at: DateTimeSchema,
};

/**
 * An endpoint in a list: never its signing secret, which only the creation (and a rotation) shows. A list
 * is read again and again, by more people than the one who set the endpoint up.
 */
export const WebhookEndpointItem = Type.Object(endpointFields);

export const WebhookEndpointSchema = Type.Object({ ...endpointFields, secret: Type.String(), request_id: RequestIdSchema });

export const DeletedWebhookEndpointSchema = Type.Object({
  object: Type.Literal('webhook_endpoint'),
  id: Type.String(),
  deleted: Type.Literal(true),
  request_id: RequestIdSchema,
});

function endpointItem(endpoint: WebhookEndpoint): Static<typeof WebhookEndpointItem> {
  return {
    object: 'webhook_endpoint',
    id: endpoint.id,
    tenant_id: endpoint.tenantId,
    url: endpoint.url,
    events: [...endpoint.events],
    environment: endpoint.livemode ? 'live' : 'test',
    livemode: endpoint.livemode,
    created_at: iso(endpoint.createdAt),
    updated_at: iso(endpoint.updatedAt),
  };
}

function endpointResource(endpoint: WebhookEndpoint, requestId: string): Static<typeof WebhookEndpointSchema> {
  return { ...endpointItem(endpoint), secret: endpoint.secret, request_id: requestId };
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
    { schema: { params: Type.Object({ tenant_id: Type.String() }), querystring: Type.Object(PagingQuery), response: { 200: ListEnvelope(WebhookEndpointItem) } } },
    async (request) => {
      const { tenant_id: tenantId } = request.params;
      const { page = 1, limit = 50 } = request.query;
      if (!isId('ten_', tenantId)) throw notFound('tenant');
      const found = await ctx.db.read(async (q) => ((await findTenant(q, tenantId)) === null ? null : listWebhookEndpointsOfTenant(q, tenantId, page, limit)));
      if (found === null) throw notFound('tenant');
      return { ...listPage(found.data.map(endpointItem), page, limit, found.total), request_id: request.id };
    },
  );

  app.post(
    '/tenants/:tenant_id/webhook-endpoints',
    { schema: { params: Type.Object({ tenant_id: Type.String() }), body: CreateEndpointBody, response: { 201: WebhookEndpointSchema } } },
    async (request, reply) => {
      const { tenant_id: tenantId } = request.params;
      if (!isId('ten_', tenantId)) throw notFound('tenant');
      const body = request.body;
      const problem = webhookUrlProblem(body.url, { livemode: body.environment === 'live', allowPrivateTargets: ctx.allowPrivateWebhookTargets });
      if (problem !== null) throw new ApiError('parameter_invalid', `url: ${problem}`, 'url');
      const endpoint = await ctx.db.tx(async (trx) => {
        if ((await findTenant(trx, tenantId)) === null) throw notFound('tenant');
        const now = ctx.clock.now();
        const created: WebhookEndpoint = {
          id: newId('we_'),
          tenantId,
          url: body.url,
          events: body.events === undefined ? [EVERY_WEBHOOK_KIND] : [...body.events],
          secret: `whsec_${randomBase62(32)}`,
          livemode: body.environment === 'live',
          version: 1,
          createdAt: now,
          updatedAt: now,
        };
        await insertWebhookEndpoint(trx, created);
        await publishWebhookEndpointChanged(ctx.db, trx, created, request.id);
        return created;
      });
      return reply.code(201).send(endpointResource(endpoint, request.id));
    },
  );

  app.delete(
    '/webhook-endpoints/:id',
    { schema: { params: Type.Object({ id: Type.String() }), response: { 200: DeletedWebhookEndpointSchema } } },
    async (request) => {
      const { id } = request.params;
      if (!isId('we_', id)) throw notFound('webhook endpoint');
      await ctx.db.tx(async (trx) => {
        const current = await findWebhookEndpointForUpdate(trx, id);
        if (current === null) throw notFound('webhook endpoint');
        await deleteWebhookEndpoint(trx, id);
        await publishWebhookEndpointChanged(ctx.db, trx, { ...current, events: [], version: current.version + 1, updatedAt: ctx.clock.now() }, request.id);
      });
      return { object: 'webhook_endpoint' as const, id, deleted: true as const, request_id: request.id };
    },
  );
}
