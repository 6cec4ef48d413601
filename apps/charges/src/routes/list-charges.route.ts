import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { apiPrincipal, ListEnvelope, listPage, literals, PagingQuery } from '@pgw/platform-http';
import { listCharges } from '../data/charge.repository';
import { CHARGE_STATUSES, PAYMENT_METHODS } from '@pgw/charges-domain/charge';
import type { ChargesDeps } from '../operations/deps';
import { chargeResource, ChargeItem } from '../resources';
import { scopeOf } from './common';

export const CHARGES_PATH = '/api/v1/charges';

const ListChargesQuery = Type.Object({
  ...PagingQuery,
  status: Type.Optional(literals(CHARGE_STATUSES)),
  payment_method: Type.Optional(literals(PAYMENT_METHODS)),
  // Instants rather than dates: which day a charge belongs to depends on the reader's time zone.
  created_from: Type.Optional(Type.String({ format: 'date-time' })),
  created_to: Type.Optional(Type.String({ format: 'date-time' })),
});

/**
 * GET /api/v1/charges: the key's charges (its seller's, for a seller-scoped key), paged, most recent
 * first, narrowed by status, payment method and creation instant [created_from, created_to). No split.
 */
export function listChargesRoute(app: FastifyInstance, deps: ChargesDeps): void {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    CHARGES_PATH,
    {
      schema: { querystring: ListChargesQuery, response: { 200: ListEnvelope(ChargeItem) } },
      preValidation: async (request) => void apiPrincipal(request, 'charges:read'),
    },
    async (request) => {
      const principal = apiPrincipal(request, 'charges:read');
      const {
        page = 1,
        limit = 50,
        status,
        payment_method,
        created_from,
        created_to,
      } = request.query;
      const filter = {
        ...(status !== undefined ? { status } : {}),
        ...(payment_method !== undefined ? { paymentMethod: payment_method } : {}),
        ...(created_from !== undefined ? { createdFrom: new Date(created_from) } : {}),
        ...(created_to !== undefined ? { createdTo: new Date(created_to) } : {}),
      };
      const { rows, total } = await deps.db.read((q) =>
        listCharges(q, scopeOf(principal), filter, page, limit),
      );
      return {
        ...listPage(
          rows.map((row) => chargeResource(row, { withSplit: false })),
          page,
          limit,
          total,
        ),
        request_id: request.id,
      };
    },
  );
}
