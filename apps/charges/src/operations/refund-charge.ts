import { newId } from '@pgw/domain';
import { ApiError, notFound } from '@pgw/platform-http';
import type { IdempotencySession, Outcome } from '@pgw/platform-idempotency';
import { isCard, isRefundable, refundableCents } from '@pgw/charges-domain/charge';
import { lockCharge, type ChargeRow, type Scope } from '../data/charge.repository';
import {
  inFlightCents,
  insertRefund,
  updateRefund,
  type RefundRow,
} from '../data/refund.repository';
import type { Announcer } from './announce';
import type { ChargesDeps, RequestContext } from './deps';
import { refundAnswer, requestRefund, settleRefund } from './refund-outcome';

/** What the integrator asks for: an amount (the whole remainder when absent) and a reason. */
export interface RefundRequest {
  amountCents: number | undefined;
  reason: string | undefined;
}

/**
 * A refund (contract §4): in one transaction, the Idempotency-Key is taken and, under the charge's row
 * lock, the refund takes at most what is neither refunded nor in flight and is saved `processing`, before
 * the acquirer is called; so two racing refunds of the whole remainder cannot both pass. Then the acquirer
 * decides: succeeded or failed (201); unreachable (502, the refund canceled, nothing half-done); no answer
 * (201 processing, resolved by the refund-reconciliation job). Pix and boleto refunds have no provider call
 * in the simulator: they succeed at once.
 */
export async function refundCharge(
  deps: ChargesDeps,
  context: RequestContext,
  scope: Scope,
  id: string,
  asked: RefundRequest,
  session: IdempotencySession,
): Promise<Outcome> {
  const announcer: Announcer = { db: deps.db, requestId: context.requestId };
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
      const amountCents = asked.amountCents ?? remaining;
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
        reason: asked.reason ?? null,
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
      settleRefund(deps, trx, started.refund.id, { kind: 'succeeded_locally' }, announcer, session),
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
      context.log.info(
        { refund_id: refund.id, charge_id: id, status: refund.status },
        'refund settled',
      );
      return refundAnswer(refund);
    }
    case 'unreachable':
      // Nothing moved at the acquirer: the refund is canceled and the key given back, so a retry with
      // the same key starts over.
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
      context.log.warn(
        { refund_id: started.refund.id, charge_id: id },
        'refund outcome unknown: left processing for reconciliation',
      );
      const answer = refundAnswer(started.refund);
      await deps.db.tx((trx) => session.complete(trx, answer));
      return answer;
    }
  }
}
