import type { FastifyRequest } from 'fastify';
import { isId } from '@pgw/domain';
import type { Db } from '@pgw/platform-db';
import { notFound } from '@pgw/platform-http';
import { findTenant } from '../data/tenants.repository';

/**
 * An operator route a service owns under a tenant (`/admin/v1/tenants/:tenant_id/live-rails`) answers the
 * directory's 404 for a tenant the directory does not hold, as the gateway's own tenant routes do: the
 * service never sees the request, so nothing is stored for a tenant that does not exist.
 */
export async function assertTenantExists(db: Db, request: FastifyRequest): Promise<void> {
  const tenantId = (request.params as { tenant_id?: unknown } | undefined)?.tenant_id;
  if (tenantId === undefined) return;
  if (
    typeof tenantId !== 'string' ||
    !isId('ten_', tenantId) ||
    (await db.read((q) => findTenant(q, tenantId))) === null
  )
    throw notFound('tenant');
}
