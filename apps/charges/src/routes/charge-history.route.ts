import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type TSchema } from '@sinclair/typebox';
import {
  apiPrincipal,
  ListEnvelope,
  listPage,
  notFound,
  PagingQuery,
  pagingOf,
} from '@pgw/platform-http';
import { findCharge } from '../data/charge.repository';
import type { PageOfCharge } from '../data/pages-of-charge';
import { listChargeEvents } from '../data/charge-event.repository';
import { listRefundsOfCharge } from '../data/refund.repository';
import type { ChargesDeps } from '../operations/deps';
import { chargeEventResource, ChargeEventItem, refundResource, RefundItem } from '../resources';
import { IdParams, requireId, scopeOf } from './common';

export const CHARGE_REFUNDS_PATH = '/api/v1/charges/:id/refunds';
export const CHARGE_EVENTS_PATH = '/api/v1/charges/:id/events';

const Paging = Type.Object(PagingQuery);

/**
 * GET /api/v1/charges/{id}/refunds and /events: a charge's refunds, and every change its events announced
 * (the charge's, its refunds' and its chargebacks'), paged, newest first. Read with `charges:read`, like
 * the charge; a charge outside the key's scope (tenant, environment, seller) is a 404 before anything is
 * listed.
 */
export function chargeHistoryRoutes(app: FastifyInstance, deps: ChargesDeps): void {
  listOfCharge(app, deps, CHARGE_REFUNDS_PATH, RefundItem, listRefundsOfCharge, refundResource);
  listOfCharge(
    app,
    deps,
    CHARGE_EVENTS_PATH,
    ChargeEventItem,
    listChargeEvents,
    chargeEventResource,
  );
}

/** GET `path`: one page of a charge's `list`, each row as `resource`, once the charge is in scope. */
function listOfCharge<Row>(
  app: FastifyInstance,
  deps: ChargesDeps,
  path: string,
  item: TSchema,
  list: PageOfCharge<Row>,
  resource: (row: Row) => unknown,
): void {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    path,
    {
      schema: { params: IdParams, querystring: Paging, response: { 200: ListEnvelope(item) } },
      preValidation: async (request) => void apiPrincipal(request, 'charges:read'),
    },
    async (request) => {
      const { scope, id } = await chargeInScope(deps, request, request.params.id);
      const { page, limit } = pagingOf(request.query);
      const { rows, total } = await deps.db.read((q) => list(q, scope, id, page, limit));
      return { ...listPage(rows.map(resource), page, limit, total), request_id: request.id };
    },
  );
}

/** The key's scope and the charge's id, once the charge is found in that scope (404 otherwise). */
async function chargeInScope(deps: ChargesDeps, request: FastifyRequest, chargeId: string) {
  const principal = apiPrincipal(request, 'charges:read');
  const id = requireId('ch_', chargeId, 'charge');
  const scope = scopeOf(principal);
  const charge = await deps.db.read((q) => findCharge(q, scope, id));
  if (charge === undefined) throw notFound('charge');
  return { scope, id };
}
