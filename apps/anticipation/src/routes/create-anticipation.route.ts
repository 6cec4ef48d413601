import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Db } from '@pgw/platform-db';
import { idempotent, type IdempotentOptions } from '@pgw/platform-idempotency';
import { findAnticipation } from '../data/anticipations.repository';
import type { Clock } from '@pgw/platform-service';
import { executeAnticipation } from '../operations/execute';
import { AnticipationBody } from '../resources';
import { checkedOptionalBody } from '@pgw/platform-http';
import { ReceivableIdsBody, sellerScope } from './common';

export const ANTICIPATIONS_PATH = '/api/v1/anticipations';

/**
 * POST /api/v1/anticipations: executes under the request's Idempotency-Key (contract §3). The
 * anticipation, its effects, its event and the key's stored answer commit in one transaction
 * (operations/execute.ts); a refusal (422) is kept under the key like any 4xx.
 */
export function createAnticipationRoute(
  app: FastifyInstance,
  deps: { db: Db; clock: Clock },
): void {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    ANTICIPATIONS_PATH,
    {
      schema: { body: ReceivableIdsBody, response: { 201: AnticipationBody } },
      preValidation: checkedOptionalBody((request) => sellerScope(request, 'anticipations:create')),
    },
    async (request, reply) => {
      const scope = sellerScope(request, 'anticipations:create');
      const keyOptions: IdempotentOptions = {
        // A replay goes only to a caller that may read the anticipation it names (contract §3).
        mayRead: async (q, { id }) =>
          typeof id === 'string' && (await findAnticipation(q, scope, id)) !== undefined,
      };
      return idempotent(request, reply, deps, scope, keyOptions, async (session) => {
        const resource = await executeAnticipation(
          deps,
          scope,
          request.body.receivable_ids,
          request.id,
          session,
        );
        request.log.info(
          {
            anticipation_id: resource.id,
            receivables: resource.receivable_ids.length,
            net_amount_cents: resource.net_amount_cents,
          },
          'anticipation executed',
        );
        return { status: 201, body: resource };
      });
    },
  );
}
