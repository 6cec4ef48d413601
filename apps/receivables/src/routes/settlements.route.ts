import type { App } from '@pgw/platform-http';
import type { Db } from '@pgw/platform-db';
import { getSettlement, listSettlements } from '../data/settlements.repository';
import { settlementResource } from '../resources';
import { SettlementsQuery, SettlementBody, SettlementItem } from './schemas';
import { scopedReadRoutes } from './scoped-reads';

/** GET /api/v1/settlements and /api/v1/settlements/:id, scoped as the receivables routes. */
export function settlementsRoutes(app: App, db: Db): void {
  scopedReadRoutes(app, db, {
    path: '/api/v1/settlements',
    permission: 'settlements:read',
    idPrefix: 'set_',
    name: 'settlement',
    schemas: { query: SettlementsQuery, item: SettlementItem, body: SettlementBody },
    list: (q, scope, { status }, page, limit) =>
      listSettlements(q, scope, status === undefined ? {} : { status }, page, limit),
    get: getSettlement,
    resource: settlementResource,
  });
}
