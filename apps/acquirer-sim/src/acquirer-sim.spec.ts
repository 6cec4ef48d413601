import { SimAcquirer, type AcquirerResult } from '@pgw/acquirer';
import { InProcessBus } from '@pgw/platform-bus';
import { createPgliteKnex, sharedDb } from '@pgw/platform-db';
import { TestPrincipals } from '@pgw/platform-http';
import { InjectPeers, ManualClock, startService, type RunningService } from '@pgw/platform-service';
import { acquirerSimService } from './service';
import { REFUND_DECLINED_CARD, simMigrations } from '@pgw/acquirer-simulator';

// The simulator's routes are specced beside them in libs/acquirer-simulator/src/routes (in memory). This
// spec keeps what only the service on its database shows: no PAN or security code in any row, the migration
// that dropped them, idempotency as rows, state and mode across a restart, and the shared key.

/** The specs play the gateway: principals are signed with this pair for each request; the simulator holds the public key. */
const PRINCIPALS = new TestPrincipals();

const knex = createPgliteKnex(null);
const db = sharedDb(knex, 'acquirer_sim');
const clock = new ManualClock(new Date('2026-03-01T12:00:00Z'));
const TIMEOUT_DELAY_MS = 1_500;
let service: RunningService;
let peers: InjectPeers;
let acquirer: SimAcquirer;

async function start(env: NodeJS.ProcessEnv = {}): Promise<RunningService> {
  const running = await startService(acquirerSimService, {
    db,
    bus: new InProcessBus(),
    clock,
    principalPublicKey: PRINCIPALS.publicKey,
    peers: new InjectPeers(),
    env: { ACQUIRER_SIM_TIMEOUT_DELAY_MS: String(TIMEOUT_DELAY_MS), ...env },
    log: { level: 'warn' },
  });
  PRINCIPALS.bind(running.app);
  return running;
}

beforeAll(async () => {
  service = await start();
  peers = new InjectPeers();
  peers.register('acquirer-sim', service.app);
  acquirer = new SimAcquirer({ peers, timeoutMs: 1_000 });
});

afterAll(async () => {
  await service.stop();
  await knex.destroy();
});

let seq = 0;
const ref = (what: string) => `${what}_${++seq}_${Date.now()}`;

function value<T>(result: AcquirerResult<T>): T {
  if (!result.ok) throw new Error(`expected ok, got ${JSON.stringify(result)}`);
  return result.value;
}

async function card(number: string): Promise<string> {
  return value(
    await acquirer.storeCard({
      reference: ref('card'),
      number,
      expMonth: 12,
      expYear: 2030,
      holderName: 'ANA SILVA',
    }),
  ).cardRef;
}

const operator = () =>
  PRINCIPALS.header({ kind: 'operator', requestId: 'req_x', expiresAtMs: Date.now() + 60_000 });

async function setMode(
  mode: 'normal' | 'unavailable' | 'timeout',
  app = service.app,
): Promise<void> {
  const res = await app.inject({
    method: 'POST',
    url: '/admin/v1/simulations/provider',
    headers: { 'x-gateway-principal': operator() },
    payload: { mode },
  });
  expect(res.statusCode).toBe(200);
  expect(res.json()).toMatchObject({ object: 'provider_simulation', mode });
}

describe('the acquirer simulator: test cards (contract §6)', () => {
  it('does not keep the security code: it is accepted with the sale and found in no column afterwards', async () => {
    const cardRef = await card('4111111111111111');
    const reference = ref('auth');
    value(
      await acquirer.authorize({
        reference,
        cardRef,
        amountCents: 777,
        installments: 1,
        capture: false,
        securityCode: '9183',
      }),
    );
    const row = await db.read((q) => q('authorizations').where({ reference }).first());
    expect(JSON.stringify(row)).not.toContain('9183');
  });
});

describe('the acquirer simulator keeps no PAN (contract §6)', () => {
  // Proves the card store keeps a fingerprint, last4, brand, expiry and profile, and the number in no row of any table.
  it('stores each test card without its number, and still answers its outcome from what it kept', async () => {
    const numbers = ['4111111111111111', '4000000000009995', REFUND_DECLINED_CARD];
    for (const number of numbers) await card(number);
    const tables = await db.read((q) =>
      q.raw<{ rows: { table_name: string }[] }>(
        `select table_name from information_schema.tables where table_schema = 'acquirer_sim'`,
      ),
    );
    expect(tables.rows.map((t) => t.table_name)).toEqual(
      expect.arrayContaining(['cards', 'authorizations', 'refunds']),
    );
    for (const { table_name } of tables.rows) {
      const rows = JSON.stringify(await db.read((q) => q(table_name).select('*')));
      for (const number of numbers)
        expect([table_name, rows.includes(number)]).toEqual([table_name, false]);
    }
    const kept = await db.read((q) => q('cards').where({ last4: '9995' }).first());
    expect(kept).toMatchObject({
      brand: 'visa',
      last4: '9995',
      profile: 'insufficient_funds',
      fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(kept).not.toHaveProperty('pan');
  });

  // Proves a database made before this rule loses its stored numbers and keeps every card's outcome.
  it('migrates cards stored with their number: profile and fingerprint derived, the column dropped', async () => {
    const oldKnex = createPgliteKnex(null);
    const oldDb = sharedDb(oldKnex, 'acquirer_sim');
    try {
      const [first, second] = simMigrations;
      await oldDb.tx((trx) => first!.up(trx));
      await oldDb.tx((trx) =>
        trx('cards').insert([
          {
            card_ref: 'card_a',
            reference: 'r_a',
            pan: '4000000000000002',
            brand: 'visa',
            last4: '0002',
            exp_month: 1,
            exp_year: 2031,
            holder_name: 'A',
            created_at: clock.now(),
          },
          {
            card_ref: 'card_b',
            reference: 'r_b',
            pan: REFUND_DECLINED_CARD,
            brand: 'visa',
            last4: '5126',
            exp_month: 1,
            exp_year: 2031,
            holder_name: 'B',
            created_at: clock.now(),
          },
        ]),
      );
      await oldDb.tx((trx) => second!.up(trx));
      const rows = await oldDb.read((q) => q('cards').orderBy('card_ref'));
      expect(rows.map((r: Record<string, unknown>) => [r.card_ref, r.profile, 'pan' in r])).toEqual(
        [
          ['card_a', 'card_declined', false],
          ['card_b', 'refund_declined', false],
        ],
      );
      expect(JSON.stringify(rows)).not.toContain('4000000000000002');
    } finally {
      await oldKnex.destroy();
    }
  });
});

describe('the acquirer simulator: idempotency by reference', () => {
  it('answers the same reference with the same authorization and authorizes only once, even concurrently', async () => {
    const cardRef = await card('4111111111111111');
    const reference = ref('auth');
    const input = { reference, cardRef, amountCents: 2500, installments: 3, capture: false };
    const results = await Promise.all([1, 2, 3, 4, 5].map(() => acquirer.authorize(input)));
    const ids = new Set(results.map((r) => value(r).transactionId));
    expect(ids.size).toBe(1);
    expect(value(await acquirer.authorize(input)).transactionId).toBe([...ids][0]);
    const rows = await db.read((q) => q('authorizations').where({ reference }));
    expect(rows).toHaveLength(1);
  });

  it('refuses the same reference with a different request (reference_reused) and changes nothing', async () => {
    const cardRef = await card('4111111111111111');
    const reference = ref('auth');
    const first = value(
      await acquirer.authorize({
        reference,
        cardRef,
        amountCents: 100,
        installments: 1,
        capture: true,
      }),
    );
    const other = await acquirer.authorize({
      reference,
      cardRef,
      amountCents: 101,
      installments: 1,
      capture: true,
    });
    expect(other).toMatchObject({ ok: false, kind: 'rejected', code: 'reference_reused' });
    expect(value(await acquirer.getAuthorization(reference))).toEqual(first);
    const cardReused = await acquirer.storeCard({
      reference: (await db.read((q) => q('cards').where({ card_ref: cardRef }).first())).reference,
      number: '5555555555554444',
      expMonth: 12,
      expYear: 2030,
      holderName: 'ANA SILVA',
    });
    expect(cardReused).toMatchObject({ ok: false, kind: 'rejected', code: 'reference_reused' });
  });

  it('stores a card once per reference', async () => {
    const reference = ref('card');
    const input = {
      reference,
      number: '5555555555554444',
      expMonth: 5,
      expYear: 2029,
      holderName: 'BIA',
    };
    const a = value(await acquirer.storeCard(input));
    const b = value(await acquirer.storeCard(input));
    expect(b).toEqual(a);
    expect(await db.read((q) => q('cards').where({ reference }))).toHaveLength(1);
  });
});

describe('the acquirer simulator on its database: state and mode across a restart, the shared key', () => {
  afterEach(async () => setMode('normal'));

  it('keeps its state and its mode across a restart', async () => {
    const cardRef = await card('4111111111111111');
    const reference = ref('auth');
    const before = value(
      await acquirer.authorize({
        reference,
        cardRef,
        amountCents: 300,
        installments: 1,
        capture: false,
      }),
    );
    await setMode('unavailable');
    await service.stop();
    service = await start();
    peers.register('acquirer-sim', service.app);
    expect(await acquirer.getAuthorization(reference)).toMatchObject({
      ok: false,
      kind: 'unavailable',
    });
    await setMode('normal');
    expect(value(await acquirer.getAuthorization(reference))).toEqual(before);
  });

  it('with a shared key configured, refuses callers without it', async () => {
    const keyed = await start({ ACQUIRER_SIM_KEY: 'sim-key-0123456789abcdef' });
    try {
      const keyedPeers = new InjectPeers();
      keyedPeers.register('acquirer-sim', keyed.app);
      const without = new SimAcquirer({ peers: keyedPeers });
      const withKey = new SimAcquirer({ peers: keyedPeers, key: 'sim-key-0123456789abcdef' });
      expect(await without.getBoleto('x')).toMatchObject({ ok: false, kind: 'unavailable' });
      expect(await withKey.getBoleto('x')).toMatchObject({ ok: false, kind: 'not_found' });
    } finally {
      await keyed.stop();
    }
  });
});
