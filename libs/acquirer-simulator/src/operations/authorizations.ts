import type { AuthorizeRequestBody } from '@pgw/acquirer';
import { randomString } from '@pgw/domain';
import type { Clock } from '@pgw/platform-service';
import type { AuthorizationRow, SimStore } from '../data/sim-store';
import { simId } from '../http';
import { outcomeOf } from '@pgw/acquirer-simulator-domain/test-cards';
import { insertedOrTaken, unlessReused, type Created } from './created';

const AUTH_CODE_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const authorizationCode = (): string => randomString(6, AUTH_CODE_ALPHABET);

export type AuthorizeResult = Created<AuthorizationRow, 'card_not_found' | 'reference_reused'>;

/**
 * Authorization (and sale, with `capture`). The decision comes from the card's test profile (contract §6);
 * the security code, when sent, was checked for shape by the route's schema and is dropped here: it is
 * never written anywhere.
 */
export async function authorize(
  store: SimStore,
  clock: Clock,
  body: AuthorizeRequestBody,
): Promise<AuthorizeResult> {
  const sameRequest = (stored: AuthorizationRow) =>
    stored.card_ref === body.card_ref &&
    Number(stored.amount_cents) === body.amount_cents &&
    stored.installments === body.installments &&
    stored.capture_requested === body.capture;
  // The profile first (kept: it never changes), then one insert that stands alone: a repeat of the
  // request, or a concurrent twin, finds the reference taken and reads the row that took it.
  const profile = await store.cardProfile(body.card_ref);
  if (profile === undefined) {
    const existing = await authorizationByReference(store, body.reference);
    if (existing === undefined) return { rejected: 'card_not_found' };
    return unlessReused({ row: existing, isNew: false }, sameRequest);
  }
  const outcome = outcomeOf(profile);
  const now = clock.now();
  const approved = outcome.status === 'approved';
  const row: AuthorizationRow = {
    transaction_id: simId('txn_'),
    reference: body.reference,
    card_ref: body.card_ref,
    amount_cents: body.amount_cents,
    installments: body.installments,
    capture_requested: body.capture,
    status: approved ? (body.capture ? 'captured' : 'authorized') : outcome.status,
    captured_amount_cents: approved && body.capture ? body.amount_cents : 0,
    refunded_amount_cents: 0,
    authorization_code: approved ? authorizationCode() : null,
    return_code: approved ? '00' : outcome.returnCode,
    return_message: approved ? 'Approved' : outcome.returnMessage,
    refused_reason: approved ? null : outcome.refusedReason,
    created_at: now,
    captured_at: approved && body.capture ? now : null,
    canceled_at: null,
  };
  const result = await insertedOrTaken(await store.insertAuthorization(row), () =>
    authorizationByReference(store, body.reference),
  );
  return unlessReused(result, sameRequest);
}

export function authorizationByReference(
  store: SimStore,
  reference: string,
): Promise<AuthorizationRow | undefined> {
  return store.read((repo) => repo.authorizationByReference(reference));
}

/**
 * Moves an authorized transaction to `to` (captured, canceled), once: a transaction already there is
 * answered as it is, one in any other state is refused with `refusal`; undefined when there is none.
 */
function settleAuthorization<R extends 'not_capturable' | 'not_cancelable'>(
  store: SimStore,
  transactionId: string,
  to: 'captured' | 'canceled',
  refusal: R,
  patch: (row: AuthorizationRow) => Partial<AuthorizationRow>,
): Promise<AuthorizationRow | undefined | R> {
  return store.tx(async (repo) => {
    const row = await repo.lockAuthorization(transactionId);
    if (row === undefined) return undefined;
    if (row.status === to) return row;
    if (row.status !== 'authorized') return refusal;
    return repo.updateAuthorization(row.transaction_id, { status: to, ...patch(row) });
  });
}

/** Captures the full amount of an authorized transaction. */
export function capture(
  store: SimStore,
  clock: Clock,
  transactionId: string,
): Promise<AuthorizationRow | undefined | 'not_capturable'> {
  return settleAuthorization(store, transactionId, 'captured', 'not_capturable', (row) => ({
    captured_amount_cents: row.amount_cents,
    captured_at: clock.now(),
  }));
}

/** Voids an authorized, uncaptured transaction. */
export function cancel(
  store: SimStore,
  clock: Clock,
  transactionId: string,
): Promise<AuthorizationRow | undefined | 'not_cancelable'> {
  return settleAuthorization(store, transactionId, 'canceled', 'not_cancelable', () => ({
    canceled_at: clock.now(),
  }));
}
