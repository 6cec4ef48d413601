import { Type, type Static } from '@sinclair/typebox';
import { isId } from '@pgw/domain';
import { notFound, Nullable, RequestIdSchema, type App } from '@pgw/platform-http';
import { PERMISSIONS } from '../auth/permissions';
import {
  findApiKey,
  listApiKeysOfTenant,
  revokeApiKey,
  type ApiKey,
} from '../data/api-keys.repository';
import { LIMITS } from '@pgw/gateway-domain/defaults';
import { createApiKey } from '../operations/api-keys';
import { tenantList, tenantListSchema } from './operator-list';
import {
  DateTimeSchema,
  environmentOf,
  EnvironmentSchema,
  iso,
  operatorResource,
  StrictObject,
  withRequestId,
  type RouteContext,
} from './route-context';

const PermissionSchema = Type.Union(PERMISSIONS.map((p) => Type.Literal(p)));
const KeyStatusSchema = Type.Union([Type.Literal('active'), Type.Literal('revoked')]);

const statusOf = (key: ApiKey): Static<typeof KeyStatusSchema> =>
  key.revokedAt === null ? 'active' : 'revoked';

const CreateApiKeyBody = StrictObject({
  tenant_id: Type.String({ maxLength: 255 }),
  seller_id: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  /** test (default) or live; the secret's prefix says it, and it decides livemode. */
  environment: Type.Optional(EnvironmentSchema),
  permissions: Type.Array(PermissionSchema, { maxItems: PERMISSIONS.length, uniqueItems: true }),
  /** This key's token bucket; absent: the gateway's RATE_LIMIT_PER_SECOND. */
  rate_limit_per_second: Type.Optional(
    Type.Integer({ minimum: 1, maximum: LIMITS.rateLimitPerSecondMax }),
  ),
});

/**
 * A key as the operator sees it, in a list or after a change: never the secret, nor its hash (a hash of a
 * 32-character random secret cannot be reversed, but it is what authentication looks keys up by, so it
 * stays in the table).
 */
const apiKeyResource = operatorResource(
  'api_key',
  {
    tenant_id: Type.String(),
    seller_id: Nullable(Type.String()),
    environment: EnvironmentSchema,
    livemode: Type.Boolean(),
    /** The secret's last four characters (`sk_test_…` + these), to tell keys apart; null for keys made before it was kept. */
    secret_last4: Nullable(Type.String({ minLength: 4, maxLength: 4 })),
    permissions: Type.Array(Type.String()),
    rate_limit_per_second: Nullable(Type.Integer({ minimum: 1 })),
    status: KeyStatusSchema,
    created_at: DateTimeSchema,
    revoked_at: Nullable(DateTimeSchema),
  },
  (key: ApiKey) => ({
    tenant_id: key.tenantId,
    seller_id: key.sellerId,
    environment: environmentOf(key.livemode),
    livemode: key.livemode,
    secret_last4: key.secretLast4,
    permissions: [...key.permissions],
    rate_limit_per_second: key.rateLimitPerSecond,
    status: statusOf(key),
    created_at: iso(key.createdAt),
    revoked_at: key.revokedAt === null ? null : iso(key.revokedAt),
  }),
);

/** The creation answer: the one time the secret is shown. */
export const CreatedApiKeySchema = Type.Object({
  ...apiKeyResource.Item.properties,
  request_id: RequestIdSchema,
  secret: Type.String(),
});

/** GET /admin/v1/tenants/:tenant_id/api-keys, POST /admin/v1/api-keys, DELETE /admin/v1/api-keys/:key_id. */
export async function apiKeyRoutes(app: App, ctx: RouteContext): Promise<void> {
  app.get(
    '/tenants/:tenant_id/api-keys',
    tenantListSchema(apiKeyResource.Item),
    tenantList(ctx, listApiKeysOfTenant, apiKeyResource.item),
  );

  app.post(
    '/api-keys',
    { schema: { body: CreateApiKeyBody, response: { 201: CreatedApiKeySchema } } },
    async (request, reply) => {
      const { key, secret } = await createApiKey(ctx, request.body);
      return reply
        .code(201)
        .send({ ...withRequestId(apiKeyResource.item(key), request.id), secret });
    },
  );

  app.delete(
    '/api-keys/:key_id',
    {
      schema: {
        params: Type.Object({ key_id: Type.String() }),
        response: { 200: apiKeyResource.Answer },
      },
    },
    async (request) => {
      const { key_id: keyId } = request.params;
      if (!isId('key_', keyId)) throw notFound('API key');
      // Revoking twice is harmless: the second answer shows the first revocation.
      const key = await ctx.db.tx(async (trx) => {
        const current = await findApiKey(trx, keyId, { forUpdate: true });
        if (current === null) throw notFound('API key');
        if (current.revokedAt !== null) return current;
        const revokedAt = ctx.clock.now();
        await revokeApiKey(trx, keyId, revokedAt);
        return { ...current, revokedAt };
      });
      ctx.authenticator.forget(key.secretSha256);
      return withRequestId(apiKeyResource.item(key), request.id);
    },
  );
}
