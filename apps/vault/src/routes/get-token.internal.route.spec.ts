import { createPgliteKnex } from '@pgw/platform-db';
import type { ApiKeyPrincipal } from '@pgw/platform-http';
import {
  newSeller,
  principal,
  PRINCIPALS,
  startVault,
  validCard,
  type PrincipalInput,
  type VaultHarness,
} from '../testing/harness';

const knex = createPgliteKnex(null);
let h: VaultHarness;

beforeAll(async () => {
  h = await startVault(knex);
});

afterAll(async () => {
  await h.stop();
  await knex.destroy();
});

async function tokenize(who: PrincipalInput): Promise<string> {
  const res = await h.vault.app.inject({
    method: 'POST',
    url: '/api/v1/payment-methods/tokenize',
    headers: { 'x-gateway-principal': principal(who) },
    payload: { card: validCard({ number: '5555 5555 5555 4444', exp_month: 7, exp_year: 2031 }) },
  });
  expect(res.statusCode).toBe(201);
  return res.json().id as string;
}

const asApiKey = (who: PrincipalInput): ApiKeyPrincipal => ({
  kind: 'api_key',
  tenantId: who.tenantId,
  sellerId: who.sellerId,
  keyId: 'key_test',
  permissions: who.permissions ?? ['charges:create'],
  livemode: who.livemode ?? false,
  requestId: 'req_x',
  expiresAtMs: Date.now() + 60_000,
});

/** As charges asks: with the principal the gateway signed for the integrator's POST /api/v1/charges. */
const lookup = (
  id: string,
  who: PrincipalInput | null,
  signedFor: [string, string] = ['POST', '/api/v1/charges'],
) =>
  h.vault.app.inject({
    method: 'GET',
    url: `/internal/v1/tokens/${id}`,
    headers:
      who === null ? {} : { 'x-gateway-principal': PRINCIPALS.sign(asApiKey(who), ...signedFor) },
  });

describe('GET /internal/v1/tokens/:id (for charges)', () => {
  it('resolves a token to its card reference and public facts, for its own tenant and environment', async () => {
    const seller = newSeller();
    const id = await tokenize(seller);
    const res = await lookup(id, {
      tenantId: seller.tenantId,
      sellerId: null,
      permissions: ['charges:create'],
    });
    expect(res.statusCode).toBe(200);
    const row = await h.db.read((q) => q('tokens').where({ id }).first());
    expect(res.json()).toEqual({
      card_ref: row.card_ref,
      card_rail: 'simulator',
      brand: 'mastercard',
      last4: '4444',
      exp_month: 7,
      exp_year: 2031,
      seller_id: seller.sellerId,
      request_id: expect.stringMatching(/^req_/),
    });
    expect((await lookup(id, seller)).statusCode).toBe(200);
  });

  it("answers 404 for another tenant's token, for a live token asked in test mode (and the reverse), and for another seller's token", async () => {
    const seller = newSeller();
    const other = newSeller();
    const testToken = await tokenize(seller);
    const liveToken = await tokenize({ ...seller, livemode: true });
    const notFound = {
      error: expect.objectContaining({ type: 'not_found_error', code: 'resource_not_found' }),
    };

    const otherTenant = await lookup(testToken, { tenantId: other.tenantId, sellerId: null });
    expect([otherTenant.statusCode, otherTenant.json()]).toEqual([
      404,
      expect.objectContaining(notFound),
    ]);
    expect(
      (await lookup(liveToken, { tenantId: seller.tenantId, sellerId: null, livemode: false }))
        .statusCode,
    ).toBe(404);
    expect(
      (await lookup(testToken, { tenantId: seller.tenantId, sellerId: null, livemode: true }))
        .statusCode,
    ).toBe(404);
    expect(
      (await lookup(liveToken, { tenantId: seller.tenantId, sellerId: null, livemode: true }))
        .statusCode,
    ).toBe(200);
    const sameTenantOtherSeller = await lookup(testToken, {
      tenantId: seller.tenantId,
      sellerId: 'seller_someoneelse',
    });
    expect(sameTenantOtherSeller.statusCode).toBe(404);
  });

  it('answers 404 for an id that is not a token id, and 401 without a principal or with an operator one', async () => {
    const seller = newSeller();
    expect((await lookup('ch_123', seller)).statusCode).toBe(404);
    expect((await lookup('tok_doesnotexist', seller)).statusCode).toBe(404);
    expect((await lookup('tok_x', null)).statusCode).toBe(401);
    const operator = PRINCIPALS.sign(
      { kind: 'operator', requestId: 'req_x', expiresAtMs: Date.now() + 60_000 },
      'GET',
      '/internal/v1/tokens/tok_x',
    );
    const res = await h.vault.app.inject({
      method: 'GET',
      url: '/internal/v1/tokens/tok_x',
      headers: { 'x-gateway-principal': operator },
    });
    expect(res.statusCode).toBe(401);
  });

  it('answers 401 for a principal the gateway signed for any request but POST /api/v1/charges: a captured principal buys no token', async () => {
    // Proves the only delegation open is charges' lookup during a charge creation (issue 16, item 11).
    const seller = newSeller();
    const id = await tokenize(seller);
    expect((await lookup(id, seller)).statusCode).toBe(200);
    for (const other of [
      ['GET', '/api/v1/charges'],
      ['POST', '/api/v1/charges/ch_1/refund'],
      ['POST', '/api/v1/payment-methods/tokenize'],
      ['GET', `/internal/v1/tokens/tok_other`],
    ] as Array<[string, string]>) {
      const res = await lookup(id, seller, other);
      expect([other, res.statusCode, res.json().error.code]).toEqual([
        other,
        401,
        'principal_invalid',
      ]);
    }
  });
});
