// The provider's side of a refund: send it with the refund id as reference, look it up when the answer
// was lost, and save what came back. Shared by the refund route and the refund-reconciliation job.
import { assert } from '@pgw/domain';
import type { AcquirerResult, Refund } from '@pgw/acquirer';
import type { Tx } from '@pgw/platform-db';
import { completeKeysOf, type IdempotencySession, type Outcome } from '@pgw/platform-idempotency';
import { isRefundable, refundTrigger, transition } from '@pgw/charges-domain/charge';
import { lockCharge, updateCharge, type ChargeRow } from '../data/charge.repository';
import { lockRefund, updateRefund, type RefundRow } from '../data/refund.repository';
import { refundResource } from '../resources';
import { acquirerFor } from './acquirer-for';
import { announceChargeStatus, announceRefund, type Announcer } from './announce';
import type { ChargesDeps } from './deps';

export type RefundOutcome =
  | { kind: 'refund'; value: Refund }
  /** The acquirer refused the refund request itself (nothing moved): the refund fails. */
  | { kind: 'rejected'; code: string }
  /** Nothing happened at the acquirer: the route answers 502 and cancels the refund. */
  | { kind: 'unreachable' }
  /** Sent, answer lost: the refund stays processing until reconciliation finds its outcome. */
  | { kind: 'unknown' };

export function refundOutcomeOf(result: AcquirerResult<Refund>): RefundOutcome {
  if (result.ok) return { kind: 'refund', value: result.value };
  if (result.kind === 'rejected') return { kind: 'rejected', code: result.code };
  if (result.kind === 'unavailable') return { kind: 'unreachable' };
  return { kind: 'unknown' };
}

export async function requestRefund(
  deps: ChargesDeps,
  charge: ChargeRow,
  refund: RefundRow,
): Promise<RefundOutcome> {
  assert(charge.acquirer_transaction_id !== null, 'charge.refunded-card-has-transaction', {
    charge_id: charge.id,
  });
  const acquirer = await acquirerFor(deps, charge);
  return refundOutcomeOf(
    await acquirer.refund({
      reference: refund.id,
      transactionId: charge.acquirer_transaction_id,
      amountCents: refund.amount_cents,
      chargeReference: charge.id,
    }),
  );
}

export const refundAnswer = (refund: RefundRow): Outcome => ({
  status: 201,
  body: refundResource(refund),
});

/**
 * Saves the refund's final outcome in `trx`, under the charge's row lock: a succeeded refund adds to
 * the refunded amount and moves the charge to refunded or partially_refunded; each change writes its
 * event; the answer goes under the request's key (or any key still waiting for this refund).
 */
export async function settleRefund(
  deps: ChargesDeps,
  trx: Tx,
  refundId: string,
  outcome:
    | { kind: 'refund'; value: Refund }
    | { kind: 'rejected'; code: string }
    | { kind: 'succeeded_locally' },
  announcer: Announcer,
  session: IdempotencySession | null,
): Promise<{ charge: ChargeRow; refund: RefundRow }> {
  const current = await lockRefund(trx, refundId);
  assert(current !== undefined, 'refund.present-under-lock', { refund_id: refundId });
  let charge = await lockCharge(trx, null, current.charge_id);
  assert(charge !== undefined, 'charge.present-under-lock', { charge_id: current.charge_id });
  let refund = current;
  if (current.status === 'processing') {
    const now = deps.clock.now();
    const succeeded =
      outcome.kind === 'succeeded_locally' ||
      (outcome.kind === 'refund' && outcome.value.status === 'succeeded');
    if (succeeded) {
      refund = await updateRefund(trx, refundId, {
        status: 'succeeded',
        succeeded_at: now,
        provider_reference: outcome.kind === 'refund' ? outcome.value.refundId : null,
        updated_at: now,
      });
      const refundedCents = charge.refunded_cents + refund.amount_cents;
      const amountCents = charge.amount_cents;
      // A charge in chargeback keeps that status; the refund still counts.
      const next = isRefundable(charge.status)
        ? transition(
            { status: charge.status, statusBeforeChargeback: charge.status_before_chargeback },
            refundTrigger(amountCents, refundedCents),
          )
        : null;
      charge = await updateCharge(trx, charge.id, {
        refunded_cents: refundedCents,
        ...(next !== null ? { status: next } : {}),
        updated_at: now,
      });
      await announceRefund(announcer, trx, charge, refund);
      // Every refund that changes what is refunded announces the charge again (a second partial refund too).
      if (next !== null) await announceChargeStatus(announcer, trx, charge);
    } else {
      const failureReason =
        outcome.kind === 'refund'
          ? (outcome.value.failureReason ?? 'refund_failed')
          : outcome.kind === 'rejected'
            ? outcome.code
            : 'refund_failed';
      refund = await updateRefund(trx, refundId, {
        status: 'failed',
        failure_reason: failureReason,
        provider_reference: outcome.kind === 'refund' ? outcome.value.refundId : null,
        updated_at: now,
      });
      await announceRefund(announcer, trx, charge, refund);
    }
  }
  const answer = refundAnswer(refund);
  if (session !== null) await session.complete(trx, answer);
  else if (refund.status !== 'processing') await completeKeysOf(trx, refundId, answer);
  return { charge, refund };
}
