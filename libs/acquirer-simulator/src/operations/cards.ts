import type { StoreCardRequestBody } from '@pgw/acquirer';
import { detectBrand, fingerprint, luhnValid } from '@pgw/domain';
import type { Clock } from '@pgw/platform-service';
import type { CardRow, SimStore } from '../data/sim-store';
import { simId } from '../http';
import { profileOf } from '@pgw/acquirer-simulator-domain/test-cards';
import { insertedOrTaken, unlessReused, type Created } from './created';

export type StoreCardResult = Created<CardRow, 'card_number_invalid' | 'reference_reused'>;

/**
 * The acquirer's card store: takes a PAN once and answers with the reference that stands for it. The number
 * lives only in this call: what is kept is its fingerprint, last4, brand, expiry and test-card profile.
 */
export async function storeCard(
  store: SimStore,
  clock: Clock,
  body: StoreCardRequestBody,
): Promise<StoreCardResult> {
  if (!luhnValid(body.number)) return { rejected: 'card_number_invalid' };
  const row: CardRow = {
    card_ref: simId('card_'),
    reference: body.reference,
    fingerprint: fingerprint(body.number, await store.fingerprintKey()),
    profile: profileOf(body.number),
    brand: detectBrand(body.number),
    last4: body.number.slice(-4),
    exp_month: body.exp_month,
    exp_year: body.exp_year,
    holder_name: body.holder_name,
  };
  const result = await store.tx(async (repo) =>
    insertedOrTaken(await repo.insertCard({ ...row, created_at: clock.now() }), () =>
      repo.cardByReference(body.reference),
    ),
  );
  return unlessReused(
    result,
    (stored) =>
      stored.fingerprint === row.fingerprint &&
      stored.exp_month === row.exp_month &&
      stored.exp_year === row.exp_year &&
      stored.holder_name === row.holder_name,
  );
}
