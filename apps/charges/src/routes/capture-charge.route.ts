import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { apiPrincipal } from '@pgw/platform-http';
import { idempotent, type IdempotentOptions } from '@pgw/platform-idempotency';
import { captureCharge } from '../operations/capture-charge';
import type { ChargesDeps } from '../operations/deps';
import { ChargeResource } from '../resources';
import { IdParams, mayReadCharge, permittedOptionalBody, requireId, scopeOf } from './common';

export const CAPTURE_PATH = '/api/v1/charges/:id/capture';

/** POST /api/v1/charges/{id}/capture: operations/capture-charge.ts, under the Idempotency-Key. */
export function captureChargeRoute(app: FastifyInstance, deps: ChargesDeps): void {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    CAPTURE_PATH,
    {
      schema: {
        params: IdParams,
        body: Type.Object({}, { additionalProperties: false }),
        response: { 200: ChargeResource },
      },
      preValidation: permittedOptionalBody('charges:create'),
    },
    async (request, reply) => {
      const principal = apiPrincipal(request, 'charges:create');
      const scope = scopeOf(principal);
      const keyOptions: IdempotentOptions = { mayRead: mayReadCharge(scope, 'id') };
      return idempotent(request, reply, deps, principal, keyOptions, (session) =>
        captureCharge(
          deps,
          { requestId: request.id, log: request.log },
          scope,
          requireId('ch_', request.params.id, 'charge'),
          session,
        ),
      );
    },
  );
}
