import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { isId } from '@pgw/domain';
import type { Db } from '@pgw/platform-db';
import { ListEnvelope, listPage, notFound, PagingQuery, pagingOf } from '@pgw/platform-http';
import { findAnticipation, listAnticipations } from '../data/anticipations.repository';
import { anticipationResource, AnticipationBody, AnticipationItemSchema } from '../resources';
import { ANTICIPATIONS_PATH } from './create-anticipation.route';
import { IdParams, sellerScope } from './common';

const PERMISSION = 'anticipations:read';

/**
 * GET /api/v1/anticipations (paged, most recent first) and GET /api/v1/anticipations/{id}, within the
 * key's tenant, environment and seller: anything else, or an id off its pattern, is a 404.
 */
export function anticipationsRoutes(app: FastifyInstance, deps: { db: Db }): void {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  typed.get(
    ANTICIPATIONS_PATH,
    {
      schema: {
        querystring: Type.Object(PagingQuery),
        response: { 200: ListEnvelope(AnticipationItemSchema) },
      },
      preValidation: async (request) => void sellerScope(request, PERMISSION),
    },
    async (request) => {
      const scope = sellerScope(request, PERMISSION);
      const { page, limit } = pagingOf(request.query);
      const { data, total } = await deps.db.read((q) => listAnticipations(q, scope, page, limit));
      return {
        ...listPage(data.map(anticipationResource), page, limit, total),
        request_id: request.id,
      };
    },
  );

  typed.get(
    `${ANTICIPATIONS_PATH}/:id`,
    {
      schema: { params: IdParams, response: { 200: AnticipationBody } },
      preValidation: async (request) => void sellerScope(request, PERMISSION),
    },
    async (request) => {
      const scope = sellerScope(request, PERMISSION);
      const { id } = request.params;
      if (!isId('ant_', id)) throw notFound('anticipation');
      const anticipation = await deps.db.read((q) => findAnticipation(q, scope, id));
      if (anticipation === undefined) throw notFound('anticipation');
      return { ...anticipationResource(anticipation), request_id: request.id };
    },
  );
}
