import { randomBytes } from 'node:crypto';
import { InProcessBus } from '@pgw/platform-bus';
import { createPgDb, type Db } from '@pgw/platform-db';
import { ManualClock, startService, type RunningService } from '@pgw/platform-service';
import { integrationEnv, uniqueName } from '@pgw/testing';
import { vaultKeysFromEnv } from './config';
import { rewrapTokens } from './data/rewrap';
import { createVaultService } from './service';
import { CardStoreStub, principal, PRINCIPALS, validCard } from './testing/harness';

// The vault on the real PostgreSQL with a pool, its keys from the environment as in the distributed
// mode. It consumes no events (the gateway decides KYC), so the in-process bus stands in for Kafka.
const env = integrationEnv();
const schema = uniqueName('vault');
const b64 = () => randomBytes(32).toString('base64');
const k1 = b64();
const keysEnv = { VAULT_KEK: k1, VAULT_KEK_ID: 'k1', VAULT_FINGERPRINT_KEY: b64() };
let db: Db;
let bus: InProcessBus;
let vault: RunningService;

beforeAll(async () => {
  db = createPgDb({ url: env.databaseUrl, schema, poolMax: 10 });
  bus = new InProcessBus();
  vault = await startService(createVaultService({ keys: 'environment' }), {
    db,
    bus,
    clock: new ManualClock(new Date('2026-03-01T12:00:00Z')),
    principalPublicKey: PRINCIPALS.publicKey,
    peers: new CardStoreStub(),
    env: keysEnv,
    log: { level: 'warn' },
  });
  PRINCIPALS.bind(vault.app);
});

afterAll(async () => {
  await vault.stop();
  await db.knex.raw(`drop schema if exists "${schema}" cascade`);
  await db.close();
});

describe('vault on PostgreSQL', () => {
  it('tokenizes concurrently for a seller, resolves the tokens internally, and re-wraps them with two concurrent passes after a rotation', async () => {
    const seller = { tenantId: 'ten_int1', sellerId: 'seller_int1' };
    const headers = { 'x-gateway-principal': principal(seller) };
    const responses = await Promise.all(
      Array.from({ length: 12 }, () =>
        vault.app.inject({
          method: 'POST',
          url: '/api/v1/payment-methods/tokenize',
          headers,
          payload: { card: validCard(), billing_address: { city: 'Recife' } },
        }),
      ),
    );
    expect(responses.map((r) => r.statusCode)).toEqual(Array(12).fill(201));
    const ids = responses.map((r) => r.json().id as string);
    const lookup = await vault.app.inject({
      method: 'GET',
      url: `/internal/v1/tokens/${ids[0]}`,
      headers,
    });
    expect(lookup.json()).toMatchObject({
      brand: 'visa',
      last4: '1111',
      seller_id: seller.sellerId,
    });

    const rotated = vaultKeysFromEnv({
      VAULT_KEK: b64(),
      VAULT_KEK_ID: 'k2',
      VAULT_KEKS_RETIRED: `k1:${k1}`,
      VAULT_FINGERPRINT_KEY: keysEnv.VAULT_FINGERPRINT_KEY,
    });
    const [a, b] = await Promise.all([
      rewrapTokens(db, rotated.keyring, { batchSizeMax: 2 }),
      rewrapTokens(db, rotated.keyring, { batchSizeMax: 2 }),
    ]);
    expect(a + b).toBe(12);
    expect(await db.read((q) => q('tokens').whereNot({ kek_id: 'k2' }))).toHaveLength(0);
  });
});
