/** Why a card's authorization was not approved (contract §6): the acquirer port's and the simulator's reasons. */
export type RefusedReason =
  'card_declined' | 'insufficient_funds' | 'expired_card' | 'processing_error';
