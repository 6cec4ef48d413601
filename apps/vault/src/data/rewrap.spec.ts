import { randomBytes } from 'node:crypto';
import { createPgliteKnex } from '@pgw/platform-db';
import { vaultKeysFromEnv } from '../config';
import { newSeller, principal, startVault, validCard, type VaultHarness } from '../testing/harness';
import { rewrapTokens } from './rewrap';
import { openDetails, type TokenRow } from './token.repository';

const knex = createPgliteKnex(null);
beforeAll(() => knex.raw('select 1'));
afterAll(() => knex.destroy());

const b64 = () => randomBytes(32).toString('base64');

async function tokenize(
  h: VaultHarness,
  seller: { tenantId: string; sellerId: string },
  city: string,
): Promise<string> {
  const res = await h.vault.app.inject({
    method: 'POST',
    url: '/api/v1/payment-methods/tokenize',
    headers: { 'x-gateway-principal': principal(seller) },
    payload: { card: validCard(), billing_address: { city } },
  });
  expect(res.statusCode).toBe(201);
  return res.json().id as string;
}

/** Runs `fn` on a vault started with `env`, and always stops it. */
async function withVault<T>(
  env: NodeJS.ProcessEnv,
  fn: (h: VaultHarness) => Promise<T>,
): Promise<T> {
  const h = await startVault(knex, { env, keysFromEnvOnly: true });
  try {
    return await fn(h);
  } finally {
    await h.stop();
  }
}

const tokenRows = async () =>
  new Map(
    (await knex.withSchema('vault').select<TokenRow[]>('*').from('tokens')).map((r) => [r.id, r]),
  );

describe('KEK rotation', () => {
  it('keeps old rows readable under a retired KEK, seals new rows under the new one, and re-wraps the old rows', async () => {
    const k1 = b64();
    const fingerprintKey = b64();
    const first = { VAULT_KEK: k1, VAULT_KEK_ID: 'k1', VAULT_FINGERPRINT_KEY: fingerprintKey };
    const { seller, oldIds } = await withVault(first, async (h) => {
      const s = newSeller();
      return { seller: s, oldIds: [await tokenize(h, s, 'Recife'), await tokenize(h, s, 'Natal')] };
    });

    // Rotation: a new active KEK, the old one listed as retired; the fingerprint key does not change.
    const second = {
      VAULT_KEK: b64(),
      VAULT_KEK_ID: 'k2',
      VAULT_KEKS_RETIRED: `k1:${k1}`,
      VAULT_FINGERPRINT_KEY: fingerprintKey,
    };
    const keys = vaultKeysFromEnv(second);
    await withVault(second, async (h) => {
      const newId = await tokenize(h, seller, 'Belém');
      let byId = await tokenRows();
      expect(oldIds.map((id) => byId.get(id)?.kek_id)).toEqual(['k1', 'k1']);
      expect(byId.get(newId)?.kek_id).toBe('k2');
      expect(openDetails(keys.keyring, byId.get(oldIds[0]!)!).billing_address).toEqual({
        city: 'Recife',
      });
      // The same card keeps its fingerprint across the rotation.
      expect(byId.get(newId)?.fingerprint).toBe(byId.get(oldIds[0]!)?.fingerprint);

      expect(await rewrapTokens(h.db, keys.keyring, { batchSizeMax: 1 })).toBe(2);
      byId = await tokenRows();
      expect([...byId.values()].map((r) => r.kek_id)).toEqual(['k2', 'k2', 'k2']);
      // Once re-wrapped, the retired KEK can be dropped from the configuration.
      const withoutK1 = vaultKeysFromEnv({ ...second, VAULT_KEKS_RETIRED: '' });
      expect(
        oldIds.map((id) => openDetails(withoutK1.keyring, byId.get(id)!).billing_address),
      ).toEqual([{ city: 'Recife' }, { city: 'Natal' }]);
      expect(await rewrapTokens(h.db, keys.keyring)).toBe(0);
    });
  });

  it('refuses to start in distributed mode without keys', async () => {
    await expect(
      startVault(knex, { schema: 'vault_nokeys', env: {}, keysFromEnvOnly: true }),
    ).rejects.toThrow(/VAULT_KEK is required/);
  });
});
