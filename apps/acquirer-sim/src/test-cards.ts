import type { RefusedReason } from '@pgw/acquirer';

// contract.md §6: the outcome of an authorization by card number. Any other Luhn-valid number is approved.

export type CardOutcome =
  | { status: 'approved' }
  | { status: 'refused' | 'failed'; refusedReason: RefusedReason; returnCode: string | null; returnMessage: string };

const OUTCOMES: ReadonlyMap<string, CardOutcome> = new Map<string, CardOutcome>([
  ['4000000000000002', { status: 'refused', refusedReason: 'card_declined', returnCode: '05', returnMessage: 'Do not honor' }],
  ['4000000000009995', { status: 'refused', refusedReason: 'insufficient_funds', returnCode: '51', returnMessage: 'Insufficient funds' }],
  ['4000000000000069', { status: 'refused', refusedReason: 'expired_card', returnCode: '54', returnMessage: 'Expired card' }],
  // The contract names no return code for a processing failure: none is invented.
  ['4000000000000119', { status: 'failed', refusedReason: 'processing_error', returnCode: null, returnMessage: 'Processing error' }],
]);

export function outcomeFor(pan: string): CardOutcome {
  return OUTCOMES.get(pan) ?? { status: 'approved' };
}

/**
 * Our addition to §6 (the contract allows what adds and breaks nothing): a card that is approved, as any
 * unlisted number, but whose refunds the acquirer declines, so that a `failed` refund can be tested.
 * Stripe's test card for "refund fails" is the same number.
 */
export const REFUND_DECLINED_CARD = '4000000000005126';
