import type { App } from '@pgw/platform-http';
import type { Db } from '@pgw/platform-db';
import { getReceivable, listReceivables } from '../data/receivables.repository';
import { receivableResource } from '../resources';
import { ReceivablesQuery, ReceivableBody, ReceivableItem } from './schemas';
import { scopedReadRoutes } from './scoped-reads';

/** GET /api/v1/receivables and /api/v1/receivables/:id, in the key's scope (see scopedReadRoutes). */
export function receivablesRoutes(app: App, db: Db): void {
  scopedReadRoutes(app, db, {
    path: '/api/v1/receivables',
    permission: 'receivables:read',
    idPrefix: 'recv_',
    name: 'receivable',
    schemas: { query: ReceivablesQuery, item: ReceivableItem, body: ReceivableBody },
    list: (q, scope, { status, charge_id: chargeId }, page, limit) => {
      const filter = {
        ...(status === undefined ? {} : { status }),
        ...(chargeId === undefined ? {} : { chargeId }),
      };
      return listReceivables(q, scope, filter, page, limit);
    },
    get: getReceivable,
    resource: receivableResource,
  });
}
