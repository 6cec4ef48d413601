import { SimAcquirer, type AcquirerResult } from '@pgw/acquirer';
import { InProcessBus } from '@pgw/platform-bus';
import { createPgDb, mayBeNamed, type Db } from '@pgw/platform-db';
import { generatePrincipalKeys } from '@pgw/platform-http';
import { InjectPeers, startService, systemClock, type RunningService } from '@pgw/platform-service';
import { integrationEnv, uniqueName, waitFor } from '@pgw/testing';
import { acquirerSimService } from './service';

// On the real PostgreSQL, with a pool: requests really run at the same time here, unlike on the
// embedded database's single connection, so this is where "never twice" is put under concurrency.
const env = integrationEnv();
const schema = uniqueName('acquirer_sim');
let db: Db;
let service: RunningService;
const peers = new InjectPeers();
const acquirer = new SimAcquirer({ peers, timeoutMs: 10_000 });

async function start(): Promise<void> {
  db = createPgDb({ url: env.databaseUrl, schema, poolMax: 10 });
  service = await startService(acquirerSimService, {
    db,
    bus: new InProcessBus(),
    clock: systemClock,
    principalPublicKey: generatePrincipalKeys().publicKey,
    peers: new InjectPeers(),
    env: {},
    log: { level: 'warn' },
  });
  peers.register('acquirer-sim', service.app);
}

async function stop(): Promise<void> {
  await service.stop();
  await db.close();
}

beforeAll(start);
afterAll(async () => {
  await service.stop();
  await db.knex.raw(`drop schema if exists "${schema}" cascade`);
  await db.close();
});

function value<T>(result: AcquirerResult<T>): T {
  if (!result.ok) throw new Error(`expected ok, got ${JSON.stringify(result)}`);
  return result.value;
}

const cardRef = async (reference: string) =>
  value(
    await acquirer.storeCard({
      reference,
      number: '4111111111111111',
      expMonth: 12,
      expYear: 2030,
      holderName: 'ANA',
    }),
  ).cardRef;

describe('acquirer simulator on PostgreSQL', () => {
  it('authorizes once for 20 concurrent requests with one reference', async () => {
    const card = await cardRef('int-card-1');
    const input = {
      reference: 'int-auth-1',
      cardRef: card,
      amountCents: 1000,
      installments: 1,
      capture: true,
    };
    const results = await Promise.all(Array.from({ length: 20 }, () => acquirer.authorize(input)));
    expect(new Set(results.map((r) => value(r).transactionId)).size).toBe(1);
    expect(
      await db.read((q) => q('authorizations').where({ reference: 'int-auth-1' })),
    ).toHaveLength(1);
  });

  it('authorizes concurrent requests in fewer inserts than requests, each reference once, twins in one batch included', async () => {
    const card = await cardRef('int-card-batch');
    const references = Array.from({ length: 10 }, (_, i) => `int-batch-${i}`);
    const inserts: string[] = [];
    const count = (query: { sql: string }) => {
      if (/^insert into "authorizations"/.test(query.sql)) inserts.push(query.sql);
    };
    db.knex.on('query', count);
    // Each reference three times, the twins side by side: they meet in one batch.
    const results = await Promise.all(
      references
        .flatMap((reference) => [reference, reference, reference])
        .map(async (reference) => ({
          reference,
          result: value(
            await acquirer.authorize({
              reference,
              cardRef: card,
              amountCents: 1000 + references.indexOf(reference),
              installments: 1,
              capture: true,
            }),
          ),
        })),
    );
    db.knex.off('query', count);
    for (const reference of references) {
      const answers = results.filter((r) => r.reference === reference).map((r) => r.result);
      expect(new Set(answers.map((a) => a.transactionId)).size).toBe(1);
      expect(answers.map((a) => [a.status, a.amountCents])).toEqual(
        Array.from({ length: 3 }, () => ['captured', 1000 + references.indexOf(reference)]),
      );
    }
    const rows: Array<{ reference: string; transaction_id: string }> = await db.read((q) =>
      q('authorizations').whereIn('reference', references).select('reference', 'transaction_id'),
    );
    expect(rows.map((r) => r.reference).sort()).toEqual([...references].sort());
    for (const row of rows)
      expect(results.find((r) => r.reference === row.reference)?.result.transactionId).toBe(
        row.transaction_id,
      );
    expect(inserts.length).toBeGreaterThan(0);
    expect(inserts.length).toBeLessThan(30);
    // Each insert's text is one the pool prepares once it repeats (no whole-row result).
    expect(inserts.filter((sql) => !mayBeNamed(sql))).toEqual([]);
  });

  it('never refunds more than was captured, whatever the concurrency', async () => {
    const card = await cardRef('int-card-2');
    const auth = value(
      await acquirer.authorize({
        reference: 'int-auth-2',
        cardRef: card,
        amountCents: 1000,
        installments: 1,
        capture: true,
      }),
    );
    // Ten refunds of 300 against 1000 captured: at most three can succeed.
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        acquirer.refund({
          reference: `int-refund-${i}`,
          transactionId: auth.transactionId,
          amountCents: 300,
        }),
      ),
    );
    const succeeded = results.filter((r) => r.ok && r.value.status === 'succeeded');
    expect(succeeded).toHaveLength(3);
    expect(
      results.filter(
        (r) => !r.ok && r.kind === 'rejected' && r.code === 'refund_amount_exceeds_captured',
      ),
    ).toHaveLength(7);
    expect(value(await acquirer.getAuthorization('int-auth-2')).refundedAmountCents).toBe(900);
  });

  it('keeps its state and its fault mode across a restart of the process', async () => {
    const card = await cardRef('int-card-3');
    const before = value(
      await acquirer.authorize({
        reference: 'int-auth-3',
        cardRef: card,
        amountCents: 50,
        installments: 1,
        capture: false,
      }),
    );
    await db.tx((trx) => trx('provider_mode').update({ mode: 'unavailable' }));
    await stop();
    await start();
    expect(await acquirer.getAuthorization('int-auth-3')).toMatchObject({
      ok: false,
      kind: 'unavailable',
    });
    // Set by another replica: this one reads the mode at most once a second, so it follows within that.
    await db.tx((trx) => trx('provider_mode').update({ mode: 'normal' }));
    const after = await waitFor(async () => {
      const r = await acquirer.getAuthorization('int-auth-3');
      return r.ok ? r.value : undefined;
    }, 3_000);
    expect(after).toEqual(before);
  });
});
