import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import {
  apiPrincipal,
  ListEnvelope,
  listPage,
  notFound,
  PagingQuery,
  pagingOf,
} from '@pgw/platform-http';
import { findChargeback, listChargebacks } from '../data/chargeback.repository';
import type { ChargesDeps } from '../operations/deps';
import { chargebackResource, ChargebackItem, ChargebackResource } from '../resources';
import { IdParams, requireId, scopeOf } from './common';

export const CHARGEBACKS_PATH = '/api/v1/chargebacks';
export const CHARGEBACK_PATH = '/api/v1/chargebacks/:id';

const PERMISSION = 'chargebacks:read';

/** GET /api/v1/chargebacks (paged, most recent first) and GET /api/v1/chargebacks/{id}. Read-only. */
export function chargebacksRoutes(app: FastifyInstance, deps: ChargesDeps): void {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    CHARGEBACKS_PATH,
    {
      schema: {
        querystring: Type.Object(PagingQuery),
        response: { 200: ListEnvelope(ChargebackItem) },
      },
      preValidation: async (request) => void apiPrincipal(request, PERMISSION),
    },
    async (request) => {
      const principal = apiPrincipal(request, PERMISSION);
      const { page, limit } = pagingOf(request.query);
      const { rows, total } = await deps.db.read((q) =>
        listChargebacks(q, scopeOf(principal), page, limit),
      );
      return {
        ...listPage(rows.map(chargebackResource), page, limit, total),
        request_id: request.id,
      };
    },
  );

  app.withTypeProvider<TypeBoxTypeProvider>().get(
    CHARGEBACK_PATH,
    {
      schema: { params: IdParams, response: { 200: ChargebackResource } },
      preValidation: async (request) => void apiPrincipal(request, PERMISSION),
    },
    async (request) => {
      const principal = apiPrincipal(request, PERMISSION);
      const id = requireId('cb_', request.params.id, 'chargeback');
      const row = await deps.db.read((q) => findChargeback(q, scopeOf(principal), id));
      if (row === undefined) throw notFound('chargeback');
      return { ...chargebackResource(row), request_id: request.id };
    },
  );
}
