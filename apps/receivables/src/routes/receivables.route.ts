import { isId } from '@pgw/domain';
import { apiPrincipal, ListEnvelope, listPage, notFound, type App } from '@pgw/platform-http';
import type { Db } from '@pgw/platform-db';
import { getReceivable, listReceivables } from '../data/receivables.repository';
import { receivableResource } from '../resources';
import { IdParams, ReceivablesQuery, ReceivableBody, ReceivableItem } from './schemas';

/**
 * GET /api/v1/receivables and /api/v1/receivables/:id. Tenant-scoped, and seller-scoped when the key has
 * a seller; every query filters on the principal's tenant and environment, so a foreign id is a 404.
 */
export function receivablesRoutes(app: App, db: Db): void {
  app.get(
    '/api/v1/receivables',
    { schema: { querystring: ReceivablesQuery, response: { 200: ListEnvelope(ReceivableItem) } } },
    async (request) => {
      const principal = apiPrincipal(request, 'receivables:read');
      const { page = 1, limit = 50, status } = request.query;
      const scope = { tenantId: principal.tenantId, livemode: principal.livemode, sellerId: principal.sellerId };
      const { data, total } = await db.read((q) => listReceivables(q, scope, status === undefined ? {} : { status }, page, limit));
      return { ...listPage(data.map(receivableResource), page, limit, total), request_id: request.id };
    },
  );

  app.get('/api/v1/receivables/:id', { schema: { params: IdParams, response: { 200: ReceivableBody } } }, async (request) => {
    const principal = apiPrincipal(request, 'receivables:read');
    const { id } = request.params;
    if (!isId('recv_', id)) throw notFound('receivable');
    const scope = { tenantId: principal.tenantId, livemode: principal.livemode, sellerId: principal.sellerId };
    const receivable = await db.read((q) => getReceivable(q, scope, id));
    if (receivable === undefined) throw notFound('receivable');
    return { ...receivableResource(receivable), request_id: request.id };
  });
}
