import { Type, type Static } from '@sinclair/typebox';
import { isId, newId } from '@pgw/domain';
import { ApiError, ListEnvelope, listPage, notFound, Nullable, PagingQuery, RequestIdSchema, type App } from '@pgw/platform-http';
import { newApiKeySecret, sha256Hex } from '../auth/api-key-secret';
import { PERMISSIONS } from '../auth/permissions';
import { findApiKey, insertApiKey, listApiKeysOfTenant, revokeApiKey, type ApiKey } from '../data/api-keys.repository';
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
  /** The secret's last four characters (`sk_test_…` + these), to tell keys apart; null for keys made before it was kept. */
  secret_last4: Nullable(Type.String({ minLength: 4, maxLength: 4 })),
  permissions: Type.Array(Type.String()),
  rate_limit_per_second: Nullable(Type.Integer({ minimum: 1 })),
  status: Type.Union([Type.Literal('active'), Type.Literal('revoked')]),
  created_at: DateTimeSchema,
  revoked_at: Nullable(DateTimeSchema),
};

/**
 * A key in a list: never the secret, nor its hash (a hash of a 32-character random secret cannot be
 * reversed, but it is what authentication looks keys up by, so it stays in the table).
 */
export const ApiKeyItem = Type.Object(apiKeyFields);
/** A key as the operator sees it after creation: never the secret. */
export const ApiKeySchema = Type.Object({ ...apiKeyFields, request_id: RequestIdSchema });
/** The creation answer: the one time the secret is shown. */
export const CreatedApiKeySchema = Type.Object({ ...apiKeyFields, request_id: RequestIdSchema, secret: Type.String() });

function apiKeyItem(key: ApiKey): Static<typeof ApiKeyItem> {
  return {
    object: 'api_key',
    id: key.id,
    tenant_id: key.tenantId,
    seller_id: key.sellerId,
    environment: key.livemode ? 'live' : 'test',
    livemode: key.livemode,
    secret_last4: key.secretLast4,
    permissions: [...key.permissions],
    rate_limit_per_second: key.rateLimitPerSecond,
    status: key.revokedAt === null ? 'active' : 'revoked',
    created_at: iso(key.createdAt),
    revoked_at: key.revokedAt === null ? null : iso(key.revokedAt),
  };
}

function apiKeyResource(key: ApiKey, requestId: string): Static<typeof ApiKeySchema> {
  return { ...apiKeyItem(key), request_id: requestId };
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
      secretLast4: secret.slice(-4),
      permissions: [...body.permissions],
      rateLimitPerSecond: body.rate_limit_per_second ?? null,
      createdAt: ctx.clock.now(),
      revokedAt: null,
    };
    await insertApiKey(trx, key);
    return { key, secret };
  });
}

/** GET /admin/v1/tenants/:tenant_id/api-keys, POST /admin/v1/api-keys, DELETE /admin/v1/api-keys/:key_id. */
export async function apiKeyRoutes(app: App, ctx: RouteContext): Promise<void> {
  app.get(
    '/tenants/:tenant_id/api-keys',
    { schema: { params: Type.Object({ tenant_id: Type.String() }), querystring: Type.Object(PagingQuery), response: { 200: ListEnvelope(ApiKeyItem) } } },
    async (request) => {
      const { tenant_id: tenantId } = request.params;
      const { page = 1, limit = 50 } = request.query;
      if (!isId('ten_', tenantId)) throw notFound('tenant');
      const found = await ctx.db.read(async (q) => ((await findTenant(q, tenantId)) === null ? null : listApiKeysOfTenant(q, tenantId, page, limit)));
      if (found === null) throw notFound('tenant');
      return { ...listPage(found.data.map(apiKeyItem), page, limit, found.total), request_id: request.id };
    },
  );

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
