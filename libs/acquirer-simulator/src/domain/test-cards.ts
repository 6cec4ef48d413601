import type { RefusedReason } from '@pgw/domain';

// contract.md §6: the outcome of an authorization by card number. Any other Luhn-valid number is approved.

export type CardOutcome =
  | { status: 'approved' }
  | {
      status: 'refused' | 'failed';
      refusedReason: RefusedReason;
      returnCode: string | null;
      returnMessage: string;
    };

const OUTCOMES: ReadonlyMap<string, CardOutcome> = new Map<string, CardOutcome>([
  [
    '4000000000000002',
    {
      status: 'refused',
      refusedReason: 'card_declined',
      returnCode: '05',
      returnMessage: 'Do not honor',
    },
  ],
  [
    '4000000000009995',
    {
      status: 'refused',
      refusedReason: 'insufficient_funds',
      returnCode: '51',
      returnMessage: 'Insufficient funds',
    },
  ],
  [
    '4000000000000069',
    {
      status: 'refused',
      refusedReason: 'expired_card',
      returnCode: '54',
      returnMessage: 'Expired card',
    },
  ],
  // The contract names no return code for a processing failure: none is invented.
  [
    '4000000000000119',
    {
      status: 'failed',
      refusedReason: 'processing_error',
      returnCode: null,
      returnMessage: 'Processing error',
    },
  ],
]);

/**
 * Our addition to §6 (the contract allows what adds and breaks nothing): a card that is approved, as any
 * unlisted number, but whose refunds the acquirer declines, so that a `failed` refund can be tested.
 * Stripe's test card for "refund fails" is the same number.
 */
export const REFUND_DECLINED_CARD = '4000000000005126';

/**
 * What the simulator keeps of a test card instead of its number (contract §6): the name of its behaviour,
 * decided once when the card is stored. `refund_declined` is approved at authorization.
 */
export type CardProfile = 'approved' | 'refund_declined' | RefusedReason;

const PROFILES: ReadonlyMap<string, CardProfile> = new Map<string, CardProfile>([
  ...[...OUTCOMES].map(([pan, outcome]): [string, CardProfile] => [
    pan,
    outcome.status === 'approved' ? 'approved' : outcome.refusedReason,
  ]),
  [REFUND_DECLINED_CARD, 'refund_declined'],
]);

/** The profile of a card number (digits only): any number not listed is approved. */
export function profileOf(pan: string): CardProfile {
  return PROFILES.get(pan) ?? 'approved';
}

/** The authorization's outcome for a stored card's profile. */
export function outcomeOf(profile: CardProfile): CardOutcome {
  for (const [pan, outcome] of OUTCOMES) if (PROFILES.get(pan) === profile) return outcome;
  return { status: 'approved' };
}

/** Whether the acquirer declines refunds of a card with this profile. */
export function refundsDeclined(profile: CardProfile): boolean {
  return profile === 'refund_declined';
}
