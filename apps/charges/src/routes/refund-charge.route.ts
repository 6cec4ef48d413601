import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { apiPrincipal } from '@pgw/platform-http';
import { idempotent, type IdempotentOptions } from '@pgw/platform-idempotency';
import type { ChargesDeps } from '../operations/deps';
import { refundCharge } from '../operations/refund-charge';
import { RefundResource } from '../resources';
import { IdParams, mayReadCharge, permittedOptionalBody, requireId, scopeOf } from './common';

export const REFUND_PATH = '/api/v1/charges/:id/refund';

export const RefundBody = Type.Object(
  {
    amount_cents: Type.Optional(Type.Integer({ minimum: 1 })),
    reason: Type.Optional(Type.String({ minLength: 1, maxLength: 120 })),
  },
  { additionalProperties: false },
);

/** POST /api/v1/charges/{id}/refund: operations/refund-charge.ts, its key taken with the refund. */
export function refundChargeRoute(app: FastifyInstance, deps: ChargesDeps): void {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    REFUND_PATH,
    {
      schema: { params: IdParams, body: RefundBody, response: { 201: RefundResource } },
      preValidation: permittedOptionalBody('refunds:create'),
    },
    async (request, reply) => {
      const principal = apiPrincipal(request, 'refunds:create');
      const scope = scopeOf(principal);
      const keyOptions: IdempotentOptions = {
        claim: 'with-work',
        mayRead: mayReadCharge(scope, 'charge_id'),
      };
      return idempotent(request, reply, deps, principal, keyOptions, (session) =>
        refundCharge(
          deps,
          { requestId: request.id, log: request.log },
          scope,
          requireId('ch_', request.params.id, 'charge'),
          { amountCents: request.body.amount_cents, reason: request.body.reason },
          session,
        ),
      );
    },
  );
}
