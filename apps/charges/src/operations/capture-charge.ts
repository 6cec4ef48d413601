import { assert } from '@pgw/domain';
import { ApiError, notFound } from '@pgw/platform-http';
import type { IdempotencySession, Outcome } from '@pgw/platform-idempotency';
import { isCapturable } from '@pgw/charges-domain/charge';
import { findCharge, type Scope } from '../data/charge.repository';
import { chargeResource } from '../resources';
import { acquirerFor } from './acquirer-for';
import type { ChargesDeps, RequestContext } from './deps';
import { moveCharge } from './move-charge';

const notCapturable = () =>
  new ApiError(
    'charge_not_capturable',
    'Only an authorized card charge created with capture_method=manual can be captured.',
  );

/**
 * The full amount of an authorized manual charge. The acquirer's capture is idempotent by transaction, so
 * no intent row is needed: the charge moves to paid only once the acquirer confirms, with a compare-and-set
 * on `authorized`. Without an answer (unreachable or timed out) nothing is saved and the answer is 502:
 * retrying with the same key is safe, and if the capture did happen, the next capture or the
 * authorization-expiry job finds it captured at the acquirer.
 */
export async function captureCharge(
  deps: ChargesDeps,
  context: RequestContext,
  scope: Scope,
  id: string,
  session: IdempotencySession,
): Promise<Outcome> {
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
    context.log.warn({ charge_id: id, kind: captured.kind }, 'capture: acquirer did not answer');
    throw new ApiError(
      'provider_unavailable',
      'The acquirer could not be reached; the charge is still authorized. Retry with the same Idempotency-Key.',
    );
  }
  if (captured.value.status !== 'captured') throw notCapturable();

  const capturedAt =
    captured.value.capturedAt === null ? deps.clock.now() : new Date(captured.value.capturedAt);
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
      { db: deps.db, requestId: context.requestId },
    );
    if (!moved && updated.paid_at === null) throw notCapturable();
    await session.complete(trx, {
      status: 200,
      body: chargeResource(updated, { withSplit: false }),
    });
    return updated;
  });
  context.log.info({ charge_id: id }, 'charge captured');
  return { status: 200, body: chargeResource(charge, { withSplit: false }) };
}
