import { FakeCielo } from '@pgw/acquirer/testing';
import { createPgliteKnex } from '@pgw/platform-db';
import type { ApiKeyPrincipal } from '@pgw/platform-http';
import {
  newSeller,
  principal,
  PRINCIPALS,
  startVault,
  validCard,
  type VaultHarness,
} from '../testing/harness';

// A token keeps the rail its card was stored on (issue 23): charges sends the token's charges to that
// card store whatever the tenant's card rail is later, because a card reference means nothing elsewhere.

const knex = createPgliteKnex(null);
const MERCHANT_KEY = 'KEYFORTHEFAKEONLYCCCCCCCCCCCCCCCCCCCCCCC';
const cielo = new FakeCielo('44444444-4444-4444-8444-444444444444', MERCHANT_KEY);
let h: VaultHarness;

beforeAll(async () => {
  await cielo.start();
  h = await startVault(knex, {
    env: {
      LIVE_RAIL_ACME_CIELO_MERCHANT_ID: cielo.merchantId,
      LIVE_RAIL_ACME_CIELO_MERCHANT_KEY: MERCHANT_KEY,
      LIVE_RAIL_ACME_CIELO_API_URL: cielo.apiUrl,
      LIVE_RAIL_ACME_CIELO_QUERY_URL: cielo.queryUrl,
    },
  });
});
afterAll(async () => {
  await h.stop();
  await knex.destroy();
  await cielo.close();
});

const asCharges = (who: { tenantId: string; sellerId: string }): ApiKeyPrincipal => ({
  kind: 'api_key',
  tenantId: who.tenantId,
  sellerId: who.sellerId,
  keyId: 'key_test',
  permissions: ['charges:create'],
  livemode: true,
  requestId: 'req_x',
  expiresAtMs: Date.now() + 60_000,
});

describe('the rail a token was stored on', () => {
  it('Proves a live card tokenized while the tenant\'s card rail is Cielo account "acme" keeps cielo:acme and the account\'s card reference, and charges is told both', async () => {
    const seller = newSeller();
    h.cardStore.liveRails = {
      card: { provider: 'cielo', credentials: 'acme' },
      pix: null,
      boleto: null,
    };
    const res = await h.vault.app.inject({
      method: 'POST',
      url: '/api/v1/payment-methods/tokenize',
      headers: { 'x-gateway-principal': principal({ ...seller, livemode: true }) },
      payload: { card: validCard() },
    });
    expect(res.statusCode).toBe(201);
    const id: string = res.json().id;
    const row = await h.db.read((q) => q('tokens').where({ id }).first('card_rail', 'card_ref'));
    expect(row.card_rail).toBe('cielo:acme');
    // The card went to Cielo's card store (Cartão Protegido), not to the simulator.
    expect(cielo.requests.filter((r) => r.path === '/1/card/')).toHaveLength(1);
    expect(h.cardStore.received).toEqual([]);

    // The operator moves the tenant to the sandbox: the token still names the account that holds its card.
    h.cardStore.liveRails = { card: null, pix: null, boleto: null };
    const lookup = await h.vault.app.inject({
      method: 'GET',
      url: `/internal/v1/tokens/${id}`,
      headers: {
        'x-gateway-principal': PRINCIPALS.sign(asCharges(seller), 'POST', '/api/v1/charges'),
      },
    });
    expect(lookup.statusCode).toBe(200);
    expect(lookup.json()).toMatchObject({ card_ref: row.card_ref, card_rail: 'cielo:acme' });
  });

  it('Proves a live card tokenized on the sandbox (no card rail, outside production) keeps the simulator rail', async () => {
    const seller = newSeller();
    h.cardStore.liveRails = { card: null, pix: null, boleto: null };
    const res = await h.vault.app.inject({
      method: 'POST',
      url: '/api/v1/payment-methods/tokenize',
      headers: { 'x-gateway-principal': principal({ ...seller, livemode: true }) },
      payload: { card: validCard() },
    });
    expect(res.statusCode).toBe(201);
    expect(
      await h.db.read((q) => q('tokens').where({ id: res.json().id }).first('card_rail')),
    ).toEqual({ card_rail: 'simulator' });
  });
});
