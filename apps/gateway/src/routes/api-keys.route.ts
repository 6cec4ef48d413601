import { Type, type Static } from '@sinclair/typebox';
import { isId, newId } from '@pgw/domain';
import { ApiError, notFound, Nullable, RequestIdSchema, type App } from '@pgw/platform-http';
import { newApiKeySecret, sha256Hex } from '../auth/api-key-secret';
import { PERMISSIONS } from '../auth/permissions';
import { findApiKey, insertApiKey, revokeApiKey, type ApiKey } from '../data/api-keys.repository';
import { findSeller } from '../data/sellers.repository';
import { findTenant } from '../data/tenants.repository';
import { LIMITS } from '../directory/defaults';
import { DateTimeSchema, EnvironmentSchema, iso, StrictObject, type RouteContext } from './route-context';

const PermissionSchema = Type.Union(PERMISSIONS.map((p) => Type.Literal(p)));

const CreateApiKeyBody = StrictObject({
  tenant_id: Type.String({ maxLength: 255 }),
  seller_id: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  /** test (default) or live; the secret's prefix says it, and it decides livemode. */
  environment: Type.Optional(EnvironmentSchema),
  permissions: Type.Array(PermissionSchema, { maxItems: PERMISSIONS.length, uniqueItems: true }),
  /** This key's token bucket; absent: the gateway's RATE_LIMIT_PER_SECOND. */
  rate_limit_per_second: Type.Optional(Type.Integer({ minimum: 1, maximum: LIMITS.rateLimitPerSecondMax })),
});

const apiKeyFields = {
  object: Type.Literal('api_key'),
  id: Type.String(),
  tenant_id: Type.String(),
  seller_id: Nullable(Type.String()),
  environment: EnvironmentSchema,
  livemode: Type.Boolean(),
  permissions: Type.Array(Type.String()),
  rate_limit_per_second: Nullable(Type.Integer({ minimum: 1 })),
  status: Type.Union([Type.Literal('active'), Type.Literal('revoked')]),
  created_at: DateTimeSchema,
  revoked_at: Nullable(DateTimeSchema),
  request_id: RequestIdSchema,
};

/** A key as the operator sees it after creation: never the secret. */
export const ApiKeySchema = Type.Object(apiKeyFields);
/** The creation answer: the one time the secret is shown. */
export const CreatedApiKeySchema = Type.Object({ ...apiKeyFields, secret: Type.String() });

function apiKeyResource(key: ApiKey, requestId: string): Static<typeof ApiKeySchema> {
  return {
    object: 'api_key',
    id: key.id,
    tenant_id: key.tenantId,
    seller_id: key.sellerId,
    environment: key.livemode ? 'live' : 'test',
    livemode: key.livemode,
    permissions: [...key.permissions],
    rate_limit_per_second: key.rateLimitPerSecond,
    status: key.revokedAt === null ? 'active' : 'revoked',
    created_at: iso(key.createdAt),
    revoked_at: key.revokedAt === null ? null : iso(key.revokedAt),
    request_id: requestId,
  };
}

export interface CreatedApiKey {
  key: ApiKey;
  secret: string;
}

export async function createApiKey(ctx: RouteContext, body: Static<typeof CreateApiKeyBody>): Promise<CreatedApiKey> {
  const tenantId = body.tenant_id;
  const sellerId = body.seller_id ?? null;
  const environment = body.environment ?? 'test';
  const secret = newApiKeySecret(environment);
  return ctx.db.tx(async (trx) => {
    const tenant = isId('ten_', tenantId) ? await findTenant(trx, tenantId) : null;
    if (tenant === null) throw new ApiError('resource_not_found', 'No such tenant.', 'tenant_id');
    if (sellerId !== null) {
      const seller = isId('seller_', sellerId) ? await findSeller(trx, sellerId) : null;
      // Another tenant's seller is as unknown as no seller: a key never spans two tenants.
      if (seller === null || seller.tenantId !== tenantId) throw new ApiError('resource_not_found', 'No such seller.', 'seller_id');
    }
    const key: ApiKey = {
      id: newId('key_'),
      tenantId,
      sellerId,
      livemode: environment === 'live',
      secretSha256: sha256Hex(secret),
      permissions: [...body.permissions],
      rateLimitPerSecond: body.rate_limit_per_second ?? null,
      createdAt: ctx.clock.now(),
      revokedAt: null,
    };
    await insertApiKey(trx, key);
    return { key, secret };
  });
}

/** POST /admin/v1/api-keys, DELETE /admin/v1/api-keys/:key_id. */
export async function apiKeyRoutes(app: App, ctx: RouteContext): Promise<void> {
  app.post('/api-keys', { schema: { body: CreateApiKeyBody, response: { 201: CreatedApiKeySchema } } }, async (request, reply) => {
    const { key, secret } = await createApiKey(ctx, request.body);
    return reply.code(201).send({ ...apiKeyResource(key, request.id), secret });
  });

  app.delete(
    '/api-keys/:key_id',
    { schema: { params: Type.Object({ key_id: Type.String() }), response: { 200: ApiKeySchema } } },
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
      return apiKeyResource(key, request.id);
    },
  );
}
