import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { apiPrincipal, notFound } from '@pgw/platform-http';
import { findCharge } from '../data/charge.repository';
import type { ChargesDeps } from '../operations/deps';
import { chargeResource, ChargeResource } from '../resources';
import { IdParams, requireId, scopeOf } from './common';

export const CHARGE_PATH = '/api/v1/charges/:id';

/** GET /api/v1/charges/{id}: the charge, with its split when it has one; 404 outside the key's scope. */
export function getChargeRoute(app: FastifyInstance, deps: ChargesDeps): void {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    CHARGE_PATH,
    {
      schema: { params: IdParams, response: { 200: ChargeResource } },
      preValidation: async (request) => void apiPrincipal(request, 'charges:read'),
    },
    async (request) => {
      const principal = apiPrincipal(request, 'charges:read');
      const id = requireId('ch_', request.params.id, 'charge');
      const charge = await deps.db.read((q) => findCharge(q, scopeOf(principal), id));
      if (charge === undefined) throw notFound('charge');
      return { ...chargeResource(charge, { withSplit: true }), request_id: request.id };
    },
  );
}
