// The API keys' business operations (the admin routes and the demo data both create keys through them).
import { isId, newId } from '@pgw/domain';
import { ApiError } from '@pgw/platform-http';
import { newApiKeySecret, sha256Hex } from '@pgw/gateway-domain/api-key-secret';
import { insertApiKey, type ApiKey } from '../data/api-keys.repository';
import { findSeller } from '../data/sellers.repository';
import { findTenant } from '../data/tenants.repository';
import type { DirectoryContext } from './sellers';

/** A new key as POST /admin/v1/api-keys takes it: test (default) or live, for a tenant or one of its sellers. */
export interface NewApiKey {
  tenant_id: string;
  seller_id?: string | null;
  environment?: 'test' | 'live';
  permissions: readonly string[];
  rate_limit_per_second?: number;
}

export interface CreatedApiKey {
  key: ApiKey;
  secret: string;
}

export async function createApiKey(ctx: DirectoryContext, body: NewApiKey): Promise<CreatedApiKey> {
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
      if (seller === null || seller.tenantId !== tenantId)
        throw new ApiError('resource_not_found', 'No such seller.', 'seller_id');
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
