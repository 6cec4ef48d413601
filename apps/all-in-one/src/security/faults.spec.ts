import { createPgliteKnex } from '@pgw/platform-db';
// Proves, in the all-in-one mode, that the acquirer going unavailable and then timing out under a steady
// load of card charges and refunds, each sent with an Idempotency-Key and retried by the client until it
// gets an answer that is not 5xx, loses no charge, makes none twice, and answers every retry the same:
// the charges' rows are exactly the charges the client was told of, every acquirer authorization belongs
// to one of them, and every charge's refunded amount is what the acquirer refunded.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAllInOne, type AllInOne } from '../all-in-one';
import { buyer, Client, provisionParty, type Answer, type Party } from './harness';

const WORKERS = 3;
const PHASES: { mode: 'normal' | 'unavailable' | 'timeout'; ms: number }[] = [
  { mode: 'normal', ms: 2_000 },
  { mode: 'unavailable', ms: 3_000 },
  { mode: 'timeout', ms: 4_000 },
  { mode: 'normal', ms: 2_000 },
];
const ATTEMPTS_MAX = 60;
const RETRY_DELAY_MS = 150;

let dataDir: string;
let system: AllInOne;
let client: Client;
let party: Party;
const tokens: string[] = [];

interface Exchange {
  key: string;
  path: string;
  answers: Answer[];
  final: Answer | null;
  replay: Answer | null;
}
const exchanges: Exchange[] = [];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const retryable = (a: Answer) =>
  a.status >= 500 || (a.status === 409 && a.body?.error?.code === 'idempotency_key_in_use');
const normalized = (a: Answer) => `${a.status} ${a.text.replace(/req_[A-Za-z0-9_-]+/g, 'req')}`;

/** The client of contract §3: the same key and body until an answer that is not 5xx, then one replay. */
async function idempotently(path: string, key: string, body: unknown): Promise<Exchange> {
  const exchange: Exchange = { key, path, answers: [], final: null, replay: null };
  exchanges.push(exchange);
  for (let attempt = 0; attempt < ATTEMPTS_MAX; attempt += 1) {
    const answer = await client.call('POST', path, {
      bearer: party.testKey,
      headers: { 'idempotency-key': key },
      ...(body !== undefined ? { body } : {}),
    });
    exchange.answers.push(answer);
    if (!retryable(answer)) {
      exchange.final = answer;
      exchange.replay = await client.call('POST', path, {
        bearer: party.testKey,
        headers: { 'idempotency-key': key },
        ...(body !== undefined ? { body } : {}),
      });
      return exchange;
    }
    await sleep(RETRY_DELAY_MS);
  }
  return exchange;
}

async function worker(n: number, until: () => boolean): Promise<void> {
  // Refunds go to charges made earlier, so that they too meet every fault, not only the phase of their charge.
  const backlog: string[] = [];
  for (let i = 0; !until(); i += 1) {
    const amount = 1_000 + ((n * 7_919 + i * 104_729) % 9_000);
    const charged = await idempotently('/api/v1/charges', `ch-${n}-${i}`, {
      buyer: buyer(n * 1_000 + i),
      amount,
      payment_method: 'CREDIT_CARD',
      installments: 1,
      card_token: tokens[(n + i) % tokens.length],
    });
    const charge = charged.final?.status === 201 ? charged.final.body : null;
    if (charge?.status === 'paid') backlog.push(charge.id);
    const refundOf = backlog.shift();
    if (refundOf !== undefined) {
      const partial = await idempotently(`/api/v1/charges/${refundOf}/refund`, `rf-${refundOf}-1`, {
        amount_cents: 300,
      });
      if (partial.final?.status === 201 && i % 2 === 0) backlog.push(refundOf);
      else if (partial.final?.status === 201)
        await idempotently(`/api/v1/charges/${refundOf}/refund`, `rf-${refundOf}-2`, undefined);
    }
  }
}

let rows: {
  charges: {
    id: string;
    status: string;
    amount_cents: string;
    refunded_cents: string;
    acquirer_transaction_id: string | null;
  }[];
  authorizations: { reference: string; transaction_id: string }[];
  acquirerRefunds: { transaction_id: string; amount_cents: string; status: string }[];
  chargeRefunds: { charge_id: string; amount_cents: string; status: string }[];
};

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'pgw-faults-'));
  system = await startAllInOne({
    dataDir,
    port: 0,
    demo: false,
    log: { level: 'silent' },
    // Short deadlines so the timeout mode is quick; the background recovery stays off and the test runs
    // the reconciliation job itself, after the load.
    env: {
      ...process.env,
      RATE_LIMIT_PER_SECOND: '100000',
      ACQUIRER_TIMEOUT_MS: '500',
      ACQUIRER_SIM_TIMEOUT_DELAY_MS: '1500',
      CHARGES_RECOVERY_INTERVAL_MS: '0',
    },
  });
  client = new Client(system, '');
  party = await provisionParty(client, 'Faults', 404);
  for (const number of ['4111111111111111', '5555555555554444', '378282246310005']) {
    const token = await client.call('POST', '/api/v1/payment-methods/tokenize', {
      bearer: party.testKey,
      body: {
        card: {
          number,
          exp_month: 12,
          exp_year: 2031,
          cvv: number.startsWith('3') ? '1234' : '123',
          holder_name: 'MARIA',
        },
      },
    });
    tokens.push(token.body.id);
  }

  let done = false;
  const load = Promise.all(Array.from({ length: WORKERS }, (_, n) => worker(n, () => done)));
  for (const phase of PHASES) {
    const set = await client.admin('POST', '/admin/v1/simulations/provider', { mode: phase.mode });
    if (set.status !== 200) throw new Error(`provider mode: ${set.text}`);
    await sleep(phase.ms);
  }
  done = true;
  await load;
  await client.admin('POST', '/admin/v1/simulations/provider', { mode: 'normal' });
  // The late answers of the timeout mode arrive after ACQUIRER_SIM_TIMEOUT_DELAY_MS; then reconcile.
  await sleep(2_000);
  for (let round = 0; round < 3; round += 1) {
    await client.admin('POST', '/admin/v1/jobs/refund-reconciliation');
    await sleep(700);
  }
  await system.stop();

  const knex = createPgliteKnex(join(dataDir, 'pg'));
  try {
    const all = async (sql: string) => (await knex.raw(sql)).rows;
    rows = {
      charges: await all(
        'select id, status, amount_cents, refunded_cents, acquirer_transaction_id from charges.charges',
      ),
      authorizations: await all(
        'select reference, transaction_id from acquirer_sim.authorizations',
      ),
      acquirerRefunds: await all(
        'select transaction_id, amount_cents, status from acquirer_sim.refunds',
      ),
      chargeRefunds: await all('select charge_id, amount_cents, status from charges.refunds'),
    };
  } finally {
    await knex.destroy();
  }
}, 240_000);

afterAll(() => {
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('acquirer faults under a steady load of idempotent charges and refunds', () => {
  it('the load ran through every fault and every request got a final answer', () => {
    // Proves the run is not vacuous: retries happened, and none ran out of attempts.
    const charges = exchanges.filter((e) => e.path === '/api/v1/charges');
    expect(charges.length).toBeGreaterThan(10);
    // The faults showed: 502s retried, charges failed while unavailable, pending after a timeout.
    const outcomes = exchanges
      .flatMap((e) => e.answers)
      .map((a) =>
        a.status === 201
          ? `${a.body.object} ${a.body.status}`
          : `${a.status} ${a.body?.error?.code}`,
      );
    const counts = Object.fromEntries(
      [...new Set(outcomes)].map((o) => [o, outcomes.filter((x) => x === o).length]),
    );
    process.stdout.write(
      `faults: ${exchanges.length} exchanges, ${outcomes.length} answers: ${JSON.stringify(counts)}\n`,
    );
    expect(outcomes.some((o) => o.startsWith('502') || o === 'charge failed')).toBe(true);
    expect(outcomes.some((o) => o === 'charge pending' || o === 'refund processing')).toBe(true);
    expect(exchanges.filter((e) => e.final === null).map((e) => e.key)).toEqual([]);
    expect(
      exchanges
        .flatMap((e) => e.answers)
        .filter((a) => a.status === 500)
        .map((a) => a.text),
    ).toEqual([]);
  });

  it('every retry of one key after its first answer, and the replay, are answered the same', () => {
    // Proves contract §3 under faults: the stored answer is replayed, with its status and body.
    const differing = exchanges.flatMap((e) => {
      const kept = [...e.answers.filter((a) => !retryable(a)), ...(e.replay ? [e.replay] : [])].map(
        normalized,
      );
      return new Set(kept).size > 1
        ? [{ key: e.key, answers: [...new Set(kept)].map((a) => a.slice(0, 200)) }]
        : [];
    });
    expect(differing).toEqual([]);
    expect(
      exchanges
        .filter(
          (e) =>
            e.replay !== null &&
            e.replay.headers.get('idempotent-replayed') !== 'true' &&
            e.final!.status < 300,
        )
        .map((e) => e.key),
    ).toEqual([]);
  });

  it('no charge lost, none made twice: the rows are exactly the charges the client was told of', () => {
    // Proves one charge per Idempotency-Key, and no charge the client does not know of.
    const told = exchanges
      .filter((e) => e.path === '/api/v1/charges' && e.final?.status === 201)
      .map((e) => e.final!.body.id as string);
    expect(new Set(told).size).toBe(told.length);
    expect(rows.charges.map((c) => c.id).sort()).toEqual([...told].sort());
    // Every acquirer authorization is of one of them (reference = charge id; unique at the acquirer).
    const ids = new Set(told);
    expect(rows.authorizations.filter((a) => !ids.has(a.reference))).toEqual([]);
    // After reconciliation no card charge is left waiting on the acquirer.
    expect(rows.charges.filter((c) => c.status === 'pending')).toEqual([]);
  });

  it("every charge's refunded amount is what the acquirer refunded, and never above the amount", () => {
    // Proves refunds under faults: none lost, none doubled, nothing half-done.
    const problems = rows.charges.flatMap((c) => {
      const acquirer = rows.acquirerRefunds
        .filter((r) => r.transaction_id === c.acquirer_transaction_id && r.status === 'succeeded')
        .reduce((s, r) => s + Number(r.amount_cents), 0);
      const ours = rows.chargeRefunds
        .filter((r) => r.charge_id === c.id && r.status === 'succeeded')
        .reduce((s, r) => s + Number(r.amount_cents), 0);
      const refunded = Number(c.refunded_cents);
      return refunded === acquirer && refunded === ours && refunded <= Number(c.amount_cents)
        ? []
        : [{ id: c.id, refunded, acquirer, ours, amount: c.amount_cents }];
    });
    expect(problems).toEqual([]);
    expect(rows.chargeRefunds.filter((r) => r.status === 'processing')).toEqual([]);
  });
});
