import type { RefundRequestBody } from '@pgw/acquirer';
import type { Clock } from '@pgw/platform-service';
import type { RefundRow, SimStore } from '../data/sim-store';
import { simId } from '../http';
import { refundRefusal } from '@pgw/acquirer-simulator-domain/rules';
import { refundsDeclined } from '@pgw/acquirer-simulator-domain/test-cards';
import { insertedOrTaken, unlessReused, type Created } from './created';

export type RefundResult = Created<
  RefundRow,
  | 'authorization_not_found'
  | 'not_refundable'
  | 'refund_amount_exceeds_captured'
  | 'reference_reused'
>;

/**
 * Refunds of captured transactions. The transaction row is locked first, so two refunds of one
 * transaction are decided one after the other and their sum never passes the captured amount.
 */
export async function refund(
  store: SimStore,
  clock: Clock,
  body: RefundRequestBody,
): Promise<RefundResult> {
  const decision = await store.tx(async (repo): Promise<RefundResult> => {
    const auth = await repo.lockAuthorization(body.transaction_id);
    // A replay is answered from the stored refund before any rule runs: the rules may no longer hold
    // (the amount is now refunded), but the answer must stay the first one.
    const existing = await repo.refundByReference(body.reference);
    if (existing !== undefined) return { row: existing, isNew: false };
    if (auth === undefined) return { rejected: 'authorization_not_found' };
    const refusal = refundRefusal(auth, body.amount_cents);
    if (refusal !== null) return { rejected: refusal };
    const refunded = Number(auth.refunded_amount_cents);
    const declined = refundsDeclined((await repo.cardProfile(auth.card_ref)) ?? 'approved');
    const row: RefundRow = {
      refund_id: simId('rfd_'),
      reference: body.reference,
      transaction_id: body.transaction_id,
      amount_cents: body.amount_cents,
      status: declined ? 'failed' : 'succeeded',
      failure_reason: declined ? 'refund_declined' : null,
      created_at: clock.now(),
    };
    // The same reference sent concurrently for another transaction: that one's refund is the answer.
    const result = await insertedOrTaken(await repo.insertRefund(row), () =>
      repo.refundByReference(body.reference),
    );
    if (result.isNew && !declined)
      await repo.updateAuthorization(auth.transaction_id, {
        refunded_amount_cents: refunded + body.amount_cents,
      });
    return result;
  });
  if ('rejected' in decision) return decision;
  return unlessReused(
    decision,
    (stored) =>
      stored.transaction_id === body.transaction_id &&
      Number(stored.amount_cents) === body.amount_cents,
  );
}

export function refundByReference(
  store: SimStore,
  reference: string,
): Promise<RefundRow | undefined> {
  return store.read((repo) => repo.refundByReference(reference));
}
