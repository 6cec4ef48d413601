import { assert } from '@pgw/domain';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { ApiError, apiPrincipal, notFound } from '@pgw/platform-http';
import { idempotent, type IdempotentOptions } from '@pgw/platform-idempotency';
import { isCapturable } from '@pgw/charges-domain/charge';
import { findCharge } from '../data/charge.repository';
import { acquirerFor } from '../operations/acquirer-for';
import type { ChargesDeps } from '../operations/deps';
import { moveCharge } from '../operations/move-charge';
import { chargeResource, ChargeResource } from '../resources';
import { IdParams, mayReadCharge, permittedOptionalBody, requireId, scopeOf } from './common';

export const CAPTURE_PATH = '/api/v1/charges/:id/capture';

const notCapturable = () =>
  new ApiError(
    'charge_not_capturable',
    'Only an authorized card charge created with capture_method=manual can be captured.',
  );

/**
 * POST /api/v1/charges/{id}/capture: the full amount of an authorized manual charge. The acquirer's
 * capture is idempotent by transaction, so no intent row is needed: the charge moves to paid only once
 * the acquirer confirms, with a compare-and-set on `authorized`. Without an answer (unreachable or timed
 * out) nothing is saved and the answer is 502: retrying with the same key is safe, and if the capture did
 * happen, the next capture or the authorization-expiry job finds it captured at the acquirer.
 */
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
      return idempotent(request, reply, deps, principal, keyOptions, async (session) => {
        const id = requireId('ch_', request.params.id, 'charge');
        const read = await deps.db.read((q) => findCharge(q, scope, id));
        if (read === undefined) throw notFound('charge');
        if (
          !isCapturable({
            status: read.status,
            captureMethod: read.capture_method,
            paymentMethod: read.payment_method,
          })
        )
          throw notCapturable();
        assert(read.acquirer_transaction_id !== null, 'charge.authorized-has-transaction', {
          charge_id: id,
        });

        const acquirer = await acquirerFor(deps, read);
        const captured = await acquirer.capture({ transactionId: read.acquirer_transaction_id });
        if (!captured.ok) {
          if (captured.kind === 'rejected' || captured.kind === 'not_found') throw notCapturable();
          request.log.warn(
            { charge_id: id, kind: captured.kind },
            'capture: acquirer did not answer',
          );
          throw new ApiError(
            'provider_unavailable',
            'The acquirer could not be reached; the charge is still authorized. Retry with the same Idempotency-Key.',
          );
        }
        if (captured.value.status !== 'captured') throw notCapturable();

        const capturedAt =
          captured.value.capturedAt === null
            ? deps.clock.now()
            : new Date(captured.value.capturedAt);
        const charge = await deps.db.tx(async (trx) => {
          // Something moved the charge while the acquirer answered: another capture, or the
          // authorization-expiry job that found it captured at the acquirer. The acquirer captured once;
          // the answer is the charge's final state: captured by then, it is this capture's 200.
          const { moved, charge: updated } = await moveCharge(
            trx,
            read,
            'capture',
            { paid_at: capturedAt },
            deps.clock.now(),
            { db: deps.db, requestId: request.id },
          );
          if (!moved && updated.paid_at === null) throw notCapturable();
          await session.complete(trx, {
            status: 200,
            body: chargeResource(updated, { withSplit: false }),
          });
          return updated;
        });
        request.log.info({ charge_id: id }, 'charge captured');
        return { status: 200, body: chargeResource(charge, { withSplit: false }) };
      });
    },
  );
}
