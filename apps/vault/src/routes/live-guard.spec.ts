import { createPgliteKnex } from '@pgw/platform-db';
import {
  newSeller,
  LogCapture,
  principal,
  startVault,
  validCard,
  type VaultHarness,
} from '../testing/harness';

// Contract §6: the live acquirer of every deployment is the simulator. The vault says so at start; where the
// deployment is marked production (DEPLOYMENT_ENV=production, the prod overlay) a live tokenize is refused
// before the card leaves, and test mode goes on; elsewhere live keys reach the simulator as a sandbox.

const knex = createPgliteKnex(null);
afterAll(async () => {
  await knex.destroy();
});

async function tokenize(
  h: VaultHarness,
  who: { tenantId: string; sellerId: string },
  livemode: boolean,
) {
  return h.vault.app.inject({
    method: 'POST',
    url: '/api/v1/payment-methods/tokenize',
    headers: { 'x-gateway-principal': principal({ ...who, livemode }) },
    payload: { card: validCard() },
  });
}

describe('the vault where DEPLOYMENT_ENV=production', () => {
  const log = new LogCapture();
  let h: VaultHarness;
  beforeAll(async () => {
    h = await startVault(knex, {
      schema: 'vault_production',
      env: { DEPLOYMENT_ENV: 'production' },
      log,
    });
  });
  afterAll(async () => h.stop());

  it('Proves it warns at start that the live acquirer is the simulator and live requests are refused', () => {
    const warnings = log.lines
      .map((l) => JSON.parse(l))
      .filter((l) => l.level === 40)
      .map((l) => l.msg);
    expect(warnings).toContainEqual(
      expect.stringMatching(
        /live acquirer is the acquirer simulator.*live-mode requests are refused/,
      ),
    );
  });

  it('Proves a live tokenize is refused with 403 permission_denied before the card reaches the card store', async () => {
    const seller = newSeller();
    const res = await tokenize(h, seller, true);
    expect(res.statusCode).toBe(403);
    expect(res.json().error).toEqual({
      type: 'permission_error',
      code: 'permission_denied',
      message: expect.stringMatching(/^live mode is not available/),
      param: null,
    });
    expect(h.cardStore.received).toHaveLength(0);
    expect(await h.db.read((q) => q('tokens').select('id'))).toHaveLength(0);
  });

  it('Proves test mode still tokenizes', async () => {
    const seller = newSeller();
    const res = await tokenize(h, seller, false);
    expect(res.statusCode).toBe(201);
    expect(res.json().livemode).toBe(false);
  });
});

describe('the vault of a deployment not marked production', () => {
  const log = new LogCapture();
  let h: VaultHarness;
  beforeAll(async () => {
    h = await startVault(knex, { schema: 'vault_sandbox', log });
  });
  afterAll(async () => h.stop());

  it('Proves it warns at start that live keys reach the simulator as a sandbox, and a live tokenize is served', async () => {
    const warnings = log.lines
      .map((l) => JSON.parse(l))
      .filter((l) => l.level === 40)
      .map((l) => l.msg);
    expect(warnings).toContainEqual(
      expect.stringMatching(
        /live acquirer is the acquirer simulator: live keys reach it as a sandbox/,
      ),
    );
    const seller = newSeller();
    const res = await tokenize(h, seller, true);
    expect(res.statusCode).toBe(201);
    expect(res.json().livemode).toBe(true);
  });
});
