import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { newId } from '@pgw/domain';
import { ApiError, apiPrincipal, notFound } from '@pgw/platform-http';
import { idempotent, type IdempotentOptions } from '@pgw/platform-idempotency';
import { isCard, isRefundable, refundableCents } from '@pgw/charges-domain/charge';
import { lockCharge, type ChargeRow } from '../data/charge.repository';
import {
  inFlightCents,
  insertRefund,
  updateRefund,
  type RefundRow,
} from '../data/refund.repository';
import type { Announcer } from '../operations/announce';
import type { ChargesDeps } from '../operations/deps';
import { refundAnswer, requestRefund, settleRefund } from '../operations/refund-outcome';
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

/**
 * POST /api/v1/charges/{id}/refund (contract §4): in one transaction, the Idempotency-Key is taken and,
 * under the charge's row lock, the refund takes at most what is neither refunded nor in flight and is
 * saved `processing`, before the acquirer is called; so two racing refunds of the whole remainder cannot
 * both pass. Then the acquirer decides: succeeded or failed
 * (201); unreachable (502, the refund canceled, nothing half-done); no answer (201 processing, resolved
 * by the refund-reconciliation job). Pix and boleto refunds have no provider call in the simulator:
 * they succeed at once.
 */
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
      const announcer: Announcer = { db: deps.db, requestId: request.id };
      const keyOptions: IdempotentOptions = {
        claim: 'with-work',
        mayRead: mayReadCharge(scope, 'charge_id'),
      };
      return idempotent(request, reply, deps, principal, keyOptions, async (session) => {
        const id = requireId('ch_', request.params.id, 'charge');
        // The key is taken in the refund's own transaction (one commit fewer than a transaction of its own):
        // a twin waits on the key's row, then finds it in use or answered.
        const started = await deps.db.tx(
          async (trx): Promise<{ charge: ChargeRow; refund: RefundRow }> => {
            await session.claim(trx);
            const charge = await lockCharge(trx, scope, id);
            if (charge === undefined) throw notFound('charge');
            if (!isRefundable(charge.status))
              throw new ApiError(
                'charge_not_refundable',
                `A ${charge.status} charge cannot be refunded; only paid or partially refunded ones.`,
              );
            const remaining = refundableCents(
              charge.amount_cents,
              charge.refunded_cents,
              await inFlightCents(trx, charge.id),
            );
            const amountCents = request.body.amount_cents ?? remaining;
            if (amountCents > remaining || remaining === 0) {
              throw new ApiError(
                'refund_amount_exceeds_remaining',
                `amount_cents: at most ${remaining} cents can be refunded now`,
                'amount_cents',
              );
            }
            const now = deps.clock.now();
            const refund: RefundRow = {
              id: newId('rf_'),
              charge_id: charge.id,
              tenant_id: charge.tenant_id,
              livemode: charge.livemode,
              status: 'processing',
              amount_cents: amountCents,
              reason: request.body.reason ?? null,
              provider_reference: null,
              failure_reason: null,
              succeeded_at: null,
              created_at: now,
              updated_at: now,
            };
            await insertRefund(trx, refund);
            await session.attach(trx, refund.id);
            return { charge, refund };
          },
        );

        // A card refund is the acquirer's; so is a live Pix made at a PSP (a devolução returns the money).
        // Otherwise (boleto, a test or sandbox Pix) the refund is ours to record.
        const atProvider =
          isCard(started.charge.payment_method) ||
          (started.charge.payment_method === 'pix' &&
            started.charge.livemode &&
            started.charge.acquirer_code !== deps.acquirers.simulator.code);
        if (!atProvider) {
          const { refund } = await deps.db.tx((trx) =>
            settleRefund(
              deps,
              trx,
              started.refund.id,
              { kind: 'succeeded_locally' },
              announcer,
              session,
            ),
          );
          return refundAnswer(refund);
        }

        const outcome = await requestRefund(deps, started.charge, started.refund);
        switch (outcome.kind) {
          case 'refund':
          case 'rejected': {
            const { refund } = await deps.db.tx((trx) =>
              settleRefund(deps, trx, started.refund.id, outcome, announcer, session),
            );
            request.log.info(
              { refund_id: refund.id, charge_id: id, status: refund.status },
              'refund settled',
            );
            return refundAnswer(refund);
          }
          case 'unreachable':
            // Nothing moved at the acquirer: the refund is canceled and the key given back, so a retry
            // with the same key starts over.
            await deps.db.tx(async (trx) => {
              await updateRefund(trx, started.refund.id, {
                status: 'canceled',
                failure_reason: 'provider_unavailable',
                updated_at: deps.clock.now(),
              });
              await session.release(trx);
            });
            throw new ApiError(
              'provider_unavailable',
              'The acquirer could not be reached; nothing was refunded. Retry later.',
            );
          case 'unknown': {
            request.log.warn(
              { refund_id: started.refund.id, charge_id: id },
              'refund outcome unknown: left processing for reconciliation',
            );
            const answer = refundAnswer(started.refund);
            await deps.db.tx((trx) => session.complete(trx, answer));
            return answer;
          }
        }
      });
    },
  );
}
