import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Db } from '@pgw/platform-db';
import type { Clock } from '@pgw/platform-service';
import { buildQuote } from '../operations/quote';
import { SimulationBody, simulationResource } from '../resources';
import { checkedOptionalBody } from '@pgw/platform-http';
import { ReceivableIdsBody, sellerScope } from './common';

export const SIMULATE_PATH = '/api/v1/anticipations/simulate';

/**
 * POST /api/v1/anticipations/simulate: a pure preview. It reads the local copies and writes nothing, not
 * even an idempotency key: the same state always answers the same.
 */
export function simulateRoute(app: FastifyInstance, deps: { db: Db; clock: Clock }): void {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    SIMULATE_PATH,
    {
      schema: { body: ReceivableIdsBody, response: { 200: SimulationBody } },
      // 401/403 before 422: the principal is checked before the body is looked at.
      preValidation: checkedOptionalBody((request) => sellerScope(request, 'anticipations:read')),
    },
    async (request) => {
      const scope = sellerScope(request, 'anticipations:read');
      const today = deps.clock.today();
      const quote = await deps.db.read((q) =>
        buildQuote(
          { kind: 'read', q },
          { scope, receivableIds: request.body.receivable_ids, today },
        ),
      );
      return { ...simulationResource(quote), request_id: request.id };
    },
  );
}
