import { generateCnpj } from '@pgw/domain';
import { newRequestId } from '@pgw/platform-http';
import type { DemoCredentials } from './service';
import { PERMISSIONS } from './auth/permissions';
import { findApprovedSellerOfTenant } from './data/sellers.repository';
import { findTenantByName } from './data/tenants.repository';
import { createApiKey } from './operations/api-keys';
import type { DirectoryContext } from './operations/sellers';
import { createSeller } from './operations/sellers';
import { createTenant } from './operations/tenants';

const DEMO_TENANT_NAME = 'Demo';
/** R$ 1,000,000.00 in the demo treasury and R$ 100,000.00 of anticipation limit: room to try everything. */
const DEMO_TREASURY_CENTS = 100_000_000;
const DEMO_ANTICIPATION_LIMIT_CENTS = 10_000_000;

/**
 * The demo of `npm start`: tenant "Demo", an approved seller, and a test key with every permission
 * scoped to that seller. The tenant and seller are reused when they exist; the key is new each time,
 * since a stored key's secret cannot be read back (only its hash is kept).
 */
export async function provisionDemo(ctx: DirectoryContext): Promise<DemoCredentials> {
  const requestId = newRequestId();
  const tenant =
    (await ctx.db.read((q) => findTenantByName(q, DEMO_TENANT_NAME))) ??
    (await createTenant(
      ctx,
      { name: DEMO_TENANT_NAME, treasury_available_cash_cents: DEMO_TREASURY_CENTS },
      requestId,
    ));
  const seller =
    (await ctx.db.read((q) => findApprovedSellerOfTenant(q, tenant.id))) ??
    (await createSeller(
      ctx,
      tenant.id,
      {
        name: 'Demo Seller',
        document: generateCnpj(20_260_101),
        kyc_status: 'approved',
        anticipation_limit_cents: DEMO_ANTICIPATION_LIMIT_CENTS,
      },
      requestId,
    ));
  const { secret } = await createApiKey(ctx, {
    tenant_id: tenant.id,
    seller_id: seller.id,
    environment: 'test',
    permissions: [...PERMISSIONS],
  });
  return { tenantId: tenant.id, sellerId: seller.id, apiKey: secret };
}
