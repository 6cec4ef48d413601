// POST /acquirer/v1/cards: the card store, through the services' client (@pgw/acquirer's SimAcquirer).
import { simHarness } from '../testing/sim-harness';

const { acquirer, ref, value } = simHarness();

describe('POST /acquirer/v1/cards', () => {
  it('stores a card: its card_ref, brand and last four, and the same answer for the same reference', async () => {
    const request = {
      reference: ref('card'),
      number: '5555555555554444',
      expMonth: 6,
      expYear: 2031,
      holderName: 'ANA',
    };
    const stored = value(await acquirer.storeCard(request));
    expect(stored).toMatchObject({ brand: 'mastercard', last4: '4444' });
    expect(stored.cardRef).toEqual(expect.any(String));
    expect(value(await acquirer.storeCard(request)).cardRef).toBe(stored.cardRef);
  });

  it('refuses a Luhn-invalid number at the card store', async () => {
    const result = await acquirer.storeCard({
      reference: ref('card'),
      number: '4111111111111112',
      expMonth: 1,
      expYear: 2031,
      holderName: 'ANA',
    });
    expect(result).toMatchObject({ ok: false, kind: 'rejected', code: 'card_number_invalid' });
  });
});
