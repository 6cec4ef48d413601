import { isId } from '@pgw/domain';
import { apiPrincipal, ListEnvelope, listPage, notFound, type App } from '@pgw/platform-http';
import type { Db } from '@pgw/platform-db';
import { getSettlement, listSettlements } from '../data/settlements.repository';
import { settlementResource } from '../resources';
import { IdParams, SettlementsQuery, SettlementBody, SettlementItem } from './schemas';

/** GET /api/v1/settlements and /api/v1/settlements/:id, scoped as the receivables routes. */
export function settlementsRoutes(app: App, db: Db): void {
  app.get(
    '/api/v1/settlements',
    { schema: { querystring: SettlementsQuery, response: { 200: ListEnvelope(SettlementItem) } } },
    async (request) => {
      const principal = apiPrincipal(request, 'settlements:read');
      const { page = 1, limit = 50, status } = request.query;
      const scope = { tenantId: principal.tenantId, livemode: principal.livemode, sellerId: principal.sellerId };
      const { data, total } = await db.read((q) => listSettlements(q, scope, status === undefined ? {} : { status }, page, limit));
      return { ...listPage(data.map(settlementResource), page, limit, total), request_id: request.id };
    },
  );

  app.get('/api/v1/settlements/:id', { schema: { params: IdParams, response: { 200: SettlementBody } } }, async (request) => {
    const principal = apiPrincipal(request, 'settlements:read');
    const { id } = request.params;
    if (!isId('set_', id)) throw notFound('settlement');
    const scope = { tenantId: principal.tenantId, livemode: principal.livemode, sellerId: principal.sellerId };
    const settlement = await db.read((q) => getSettlement(q, scope, id));
    if (settlement === undefined) throw notFound('settlement');
    return { ...settlementResource(settlement), request_id: request.id };
  });
}
