import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import {
  acquirerCodeFor,
  AcquirerRouter,
  LiveAcquirer,
  type LiveRailsSource,
} from './live-acquirer';
import { FakeCielo } from './live/cielo/testing/fake-cielo';
import type { LiveRails } from './live-rails';
import type { AcquirerPort, AcquirerResult } from './port';

// The router and the composite: test mode keeps the simulator, live mode reaches each tenant's rails (the
// Cielo adapter against its fake, the CNAB 240 adapter on a temporary folder), a kind without a rail
// reaches the simulator only outside production, and incomplete credentials are refused by name.

const MERCHANT_ID = '5e2c4b1a-7d3f-4a9e-8b6c-1f0e2d3c4b5a';
const MERCHANT_KEY = 'KEYFORTHEFAKEONLY0123456789ABCDEFGHIJKLM';
const PAN_APPROVED = '4024007153763190';

/** Stands for the simulator: answers every call with the name of the method, so a test sees where a call went. */
function simulatorStandIn(): AcquirerPort & { calls: string[] } {
  const calls: string[] = [];
  const answer = (name: string) => async (): Promise<AcquirerResult<never>> => {
    calls.push(name);
    return { ok: false, kind: 'not_found', message: `simulator:${name}` };
  };
  return {
    code: 'simulator',
    calls,
    storeCard: answer('storeCard'),
    authorize: answer('authorize'),
    getAuthorization: answer('getAuthorization'),
    capture: answer('capture'),
    cancel: answer('cancel'),
    refund: answer('refund'),
    getRefund: answer('getRefund'),
    createPixCharge: answer('createPixCharge'),
    getPixCharge: answer('getPixCharge'),
    payPix: answer('payPix'),
    expirePix: answer('expirePix'),
    registerBoleto: answer('registerBoleto'),
    getBoleto: answer('getBoleto'),
    payBoleto: answer('payBoleto'),
  };
}

const quietLog = { info: () => undefined, warn: () => undefined };
const clock = { now: () => new Date('2026-03-02T12:00:00Z'), today: () => '2026-03-02' };

let fake: FakeCielo;
let dir: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  fake = new FakeCielo(MERCHANT_ID, MERCHANT_KEY);
  await fake.start();
  dir = mkdtempSync(join(tmpdir(), 'live-rails-'));
  env = {
    LIVE_RAIL_ACME_CIELO_MERCHANT_ID: MERCHANT_ID,
    LIVE_RAIL_ACME_CIELO_MERCHANT_KEY: MERCHANT_KEY,
    LIVE_RAIL_ACME_CIELO_API_URL: fake.apiUrl,
    LIVE_RAIL_ACME_CIELO_QUERY_URL: fake.queryUrl,
    LIVE_RAIL_ACME_BB_CNAB240_CNPJ: '12345678000195',
    LIVE_RAIL_ACME_BB_CNAB240_COMPANY_NAME: 'Acme Pagamentos',
    LIVE_RAIL_ACME_BB_CNAB240_AGENCY: '1234',
    LIVE_RAIL_ACME_BB_CNAB240_AGENCY_DV: '5',
    LIVE_RAIL_ACME_BB_CNAB240_ACCOUNT: '98765',
    LIVE_RAIL_ACME_BB_CNAB240_ACCOUNT_DV: 'X',
    LIVE_RAIL_ACME_BB_CNAB240_AGREEMENT: '1234567',
    LIVE_RAIL_ACME_BB_CNAB240_WALLET: '17',
    LIVE_RAIL_ACME_BB_CNAB240_WALLET_VARIATION: '019',
    LIVE_RAIL_ACME_BB_CNAB240_STATE_FILE: join(dir, 'state.json'),
    LIVE_RAIL_ACME_BB_CNAB240_OUTBOX_DIR: join(dir, 'outbox'),
    LIVE_RAIL_ACME_BB_CNAB240_INBOX_DIR: join(dir, 'inbox'),
  };
});

afterAll(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

const ACME: LiveRails = {
  card: { provider: 'cielo', credentials: 'acme' },
  pix: null,
  boleto: { provider: 'cnab240-bb', credentials: 'acme-bb' },
};

function routerWith(rails: Record<string, LiveRails>, extraEnv: NodeJS.ProcessEnv = {}) {
  const simulator = simulatorStandIn();
  const source: LiveRailsSource = { liveRailsOf: async (tenantId) => rails[tenantId] ?? null };
  return {
    simulator,
    router: new AcquirerRouter({
      simulator,
      source,
      env: { ...env, ...extraEnv },
      log: quietLog,
      clock,
    }),
  };
}

describe('AcquirerRouter', () => {
  it('keeps test mode on the simulator, even for a tenant with live rails', async () => {
    // Proves: a test key never reaches a live adapter.
    const { simulator, router } = routerWith({ ten_acme: ACME });
    expect(await router.forScope({ tenantId: 'ten_acme', livemode: false })).toBe(simulator);
  });

  it('sends a live tenant card calls to its card acquirer and boleto calls to its bank, and Pix (no rail) to the sandbox', async () => {
    // Proves: each kind reaches its own rail, and the charge records the rail that served it.
    const { simulator, router } = routerWith({ ten_acme: ACME });
    const port = await router.forScope({ tenantId: 'ten_acme', livemode: true });
    expect(port).toBeInstanceOf(LiveAcquirer);
    const card = await port.storeCard({
      reference: 'tok_route1',
      number: PAN_APPROVED,
      expMonth: 8,
      expYear: 2031,
      holderName: 'Maria Souza',
    });
    expect(card.ok).toBe(true);
    const sale = await port.authorize({
      reference: 'ch_route1',
      cardRef: card.ok ? card.value.cardRef : '',
      amountCents: 1500,
      installments: 2,
      capture: true,
    });
    expect(sale).toMatchObject({ ok: true, value: { status: 'captured', amountCents: 1500 } });
    expect(fake.salesUnder('chZ0route1')).toBe(1);
    const payer = {
      document: '52998224725',
      name: 'Maria Souza',
      address: 'Av Paulista 1000',
      district: null,
      postalCode: '01310100',
      city: 'Sao Paulo',
      state: 'SP',
    };
    const boleto = await port.registerBoleto({
      reference: 'ch_route2',
      amountCents: 9900,
      dueDate: '2026-03-20',
      payer,
    });
    expect(boleto).toMatchObject({ ok: true, value: { status: 'registered', amountCents: 9900 } });
    expect(await port.getPixCharge('ch_route3')).toMatchObject({
      ok: false,
      message: 'simulator:getPixCharge',
    });
    expect(simulator.calls).toEqual(['getPixCharge']);
    expect([
      acquirerCodeFor(port, 'card'),
      acquirerCodeFor(port, 'boleto'),
      acquirerCodeFor(port, 'pix'),
    ]).toEqual(['cielo', 'cnab240-001', 'simulator']);
  });

  it('records the rail that serves a kind, and sends a recorded rail its calls whatever the tenant has now', async () => {
    // Proves the record a charge keeps: `provider:credentials` or `simulator`, read back to the same account; a record no code knows sends nothing.
    const { simulator, router } = routerWith({ ten_acme: ACME });
    expect(await router.railFor({ tenantId: 'ten_acme', livemode: true }, 'card')).toBe(
      'cielo:acme',
    );
    expect(await router.railFor({ tenantId: 'ten_acme', livemode: true }, 'pix')).toBe('simulator');
    expect(await router.railFor({ tenantId: 'ten_acme', livemode: false }, 'card')).toBe(
      'simulator',
    );
    const recorded = router.forRecordedRail(true, 'card', 'cielo:acme');
    expect(acquirerCodeFor(recorded, 'card')).toBe('cielo');
    expect(await recorded.getAuthorization('ch_route1')).toMatchObject({
      ok: true,
      value: { status: 'captured' },
    });
    expect(router.forRecordedRail(true, 'pix', 'simulator')).toBe(simulator);
    expect(router.forRecordedRail(false, 'card', 'cielo:acme')).toBe(simulator);
    for (const record of ['stone:acme', 'cielo:../etc', 'cielo', 'bcb-pix:acme']) {
      expect(
        await router.forRecordedRail(true, 'card', record).getAuthorization('ch_route1'),
      ).toMatchObject({ ok: false, kind: 'unavailable' });
    }
    const production = routerWith({}, { DEPLOYMENT_ENV: 'production' });
    expect(
      await production.router.forRecordedRail(true, 'pix', 'simulator').getPixCharge('ch_x'),
    ).toMatchObject({ ok: false, kind: 'unavailable' });
    expect(production.simulator.calls).toEqual([]);
  });

  it('tells whether a recorded rail can still serve a stored card: its credentials held, a known rail, the sandbox outside production only', () => {
    // Proves: a token keeps the card store it was made at, and one whose account the deployment dropped is refused, not sent elsewhere.
    const { router } = routerWith({});
    expect(router.recordedRailProblem(true, 'card', 'cielo:acme')).toBeNull();
    expect(router.recordedRailProblem(true, 'card', 'simulator')).toBeNull();
    expect(router.recordedRailProblem(false, 'card', 'cielo:gone')).toBeNull();
    expect(router.recordedRailProblem(true, 'card', 'cielo:gone')).toMatch(
      /CIELO_MERCHANT_ID is required/,
    );
    for (const record of ['stone:acme', 'bcb-pix:acme', 'cielo'])
      expect(router.recordedRailProblem(true, 'card', record)).toMatch(
        /is not a card rail this deployment knows/,
      );
    expect(
      routerWith({}, { DEPLOYMENT_ENV: 'production' }).router.recordedRailProblem(
        true,
        'card',
        'simulator',
      ),
    ).toMatch(/DEPLOYMENT_ENV=production/);
  });

  it('answers unavailable for a live kind without a rail where DEPLOYMENT_ENV=production, and says so to the guard', async () => {
    // Proves: production never sends live traffic to the simulator; the rails it has still work.
    const { simulator, router } = routerWith({ ten_acme: ACME }, { DEPLOYMENT_ENV: 'production' });
    const port = await router.forScope({ tenantId: 'ten_acme', livemode: true });
    expect(
      await port.createPixCharge({
        reference: 'ch_prod1',
        amountCents: 100,
        expiresInSeconds: 600,
      }),
    ).toMatchObject({ ok: false, kind: 'unavailable' });
    expect(await router.liveAllowed('ten_acme', 'pix')).toBe(false);
    expect(await router.liveAllowed('ten_acme', 'card')).toBe(true);
    expect(await router.liveAllowed('ten_other', 'card')).toBe(false);
    const unconfigured = await router.forScope({ tenantId: 'ten_other', livemode: true });
    expect(await unconfigured.getAuthorization('ch_x')).toMatchObject({
      ok: false,
      kind: 'unavailable',
    });
    expect(simulator.calls).toEqual([]);
  });

  it('sends live keys of a tenant without rails to the simulator outside production (the sandbox of contract §6)', async () => {
    const { simulator, router } = routerWith({});
    expect(await router.forScope({ tenantId: 'ten_none', livemode: true })).toBe(simulator);
    expect(await router.liveAllowed('ten_none', 'card')).toBe(true);
  });

  it('refuses incomplete credentials by the variable that is missing, never showing a secret, and masks account settings', async () => {
    // Proves: an operator learns at configuration time which variable to set, and nothing secret is echoed.
    const { router } = routerWith({});
    const missing = router.describe({
      card: { provider: 'cielo', credentials: 'nobody' },
      pix: null,
      boleto: null,
    });
    expect(missing).toEqual({
      card: { ready: false, problem: expect.stringContaining('CIELO_MERCHANT_ID') },
      pix: null,
      boleto: null,
    });
    const ok = router.describe(ACME);
    expect(ok).toMatchObject({
      card: { ready: true, settings: { merchant_id: '****4b5a' } },
      boleto: { ready: true, settings: { bank_code: '001', account: '****8765' } },
      pix: null,
    });
    expect(inspect(ok, { depth: 6 })).not.toContain(MERCHANT_KEY);
    // A rail whose credentials vanish after configuration answers unavailable: nothing is sent.
    const port = await routerWith({
      ten_gone: { card: { provider: 'cielo', credentials: 'nobody' }, pix: null, boleto: null },
    }).router.forScope({ tenantId: 'ten_gone', livemode: true });
    expect(
      await port.authorize({
        reference: 'ch_gone',
        cardRef: 'Visa:x',
        amountCents: 100,
        installments: 1,
        capture: true,
      }),
    ).toMatchObject({ ok: false, kind: 'unavailable' });
  });
});
