// The tenants' business operations (the admin routes and the demo data both create tenants through them).
import { newId } from '@pgw/domain';
import { insertTenant, type Tenant } from '../data/tenants.repository';
import { TENANT_DEFAULTS } from '@pgw/gateway-domain/defaults';
import { publishTenantChanged } from '../directory/directory-events';
import type { DirectoryContext } from './sellers';

/** A new tenant as POST /admin/v1/tenants takes it. */
export interface NewTenant {
  name: string;
  treasury_available_cash_cents?: number;
}

export async function createTenant(
  ctx: DirectoryContext,
  body: NewTenant,
  requestId: string,
): Promise<Tenant> {
  const now = ctx.clock.now();
  const tenant: Tenant = {
    id: newId('ten_'),
    name: body.name,
    treasuryAvailableCashCents:
      body.treasury_available_cash_cents ?? TENANT_DEFAULTS.treasuryAvailableCashCents,
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
