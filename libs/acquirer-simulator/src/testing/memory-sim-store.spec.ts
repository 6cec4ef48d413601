import { SIM_PATHS, simPath } from '@pgw/acquirer';
import { createPgliteKnex, sharedDb } from '@pgw/platform-db';
import { buildApp, type App } from '@pgw/platform-http';
import { ManualClock } from '@pgw/platform-service';
import type { FastifyInstance } from 'fastify';
import { PgSimStore } from '../data/pg-sim-store';
import { simMigrations } from '../data/migrations';
import type { SimStore } from '../data/sim-store';
import { registerSimulator } from '../simulator';
import { REFUND_DECLINED_CARD } from '@pgw/acquirer-simulator-domain/test-cards';
import { MemorySimStore } from './memory-sim-store';

// The specs of charges run the simulator on MemorySimStore, the simulator app on PostgreSQL: this holds the
// two stores to the same answers, so what charges' specs prove holds against the app.
jest.setTimeout(60_000);

const knex = createPgliteKnex(null);
afterAll(() => knex.destroy());

async function simulator(store: SimStore): Promise<App> {
  const app = buildApp({ name: 'acquirer-sim', log: { level: 'silent' } });
  await registerSimulator(app as unknown as FastifyInstance, {
    store,
    clock: new ManualClock(new Date('2026-03-01T12:00:00Z')),
    config: { timeoutDelayMs: 0, key: null },
  });
  await app.ready();
  return app;
}

/** One walk through every route and rule; answers with what a caller sees, ids and instants left out. */
async function walk(app: App): Promise<unknown[]> {
  const seen: unknown[] = [];
  const call = async (method: 'GET' | 'POST', url: string, payload?: object) => {
    const res = await app.inject({ method, url, ...(payload === undefined ? {} : { payload }) });
    const body = res.json() as Record<string, unknown> & { error?: { code: string } };
    seen.push([
      method,
      url.replace(/txn_\w+/, 'txn'),
      res.statusCode,
      body.error?.code ?? body.status ?? body.brand,
      body.refunded_amount_cents,
      body.return_code,
      body.failure_reason,
    ]);
    return body;
  };
  const card = async (reference: string, number: string) =>
    (
      await call('POST', SIM_PATHS.cards, {
        reference,
        number,
        exp_month: 12,
        exp_year: 2030,
        holder_name: 'ANA',
      })
    ).card_ref as string;
  const visa = await card('c1', '4111111111111111');
  await card('c1', '4111111111111111'); // replay
  await card('c1', '5555555555554444'); // reused for another card
  await call('POST', SIM_PATHS.cards, {
    reference: 'c2',
    number: '4111111111111112',
    exp_month: 12,
    exp_year: 2030,
    holder_name: 'ANA',
  });
  const declined = await card('c3', '4000000000000002');
  const refundDeclined = await card('c4', REFUND_DECLINED_CARD);

  const sale = {
    reference: 'a1',
    card_ref: visa,
    amount_cents: 10_000,
    installments: 1,
    capture: true,
  };
  const txn = (await call('POST', SIM_PATHS.authorizations, sale)).transaction_id as string;
  await call('POST', SIM_PATHS.authorizations, sale);
  await call('POST', SIM_PATHS.authorizations, { ...sale, amount_cents: 9_000 });
  await call('POST', SIM_PATHS.authorizations, { ...sale, reference: 'a2', card_ref: declined });
  await call('POST', SIM_PATHS.authorizations, {
    ...sale,
    reference: 'a3',
    card_ref: 'card_unknown',
  });
  const held = (
    await call('POST', SIM_PATHS.authorizations, { ...sale, reference: 'a4', capture: false })
  ).transaction_id as string;
  await call('POST', simPath(SIM_PATHS.cancel, { transaction_id: txn }));
  await call('POST', simPath(SIM_PATHS.capture, { transaction_id: held }));
  await call('POST', simPath(SIM_PATHS.capture, { transaction_id: held }));
  await call('POST', simPath(SIM_PATHS.cancel, { transaction_id: held }));
  await call('POST', simPath(SIM_PATHS.capture, { transaction_id: 'txn_unknown' }));
  await call('GET', simPath(SIM_PATHS.authorization, { reference: 'a1' }));

  await call('POST', SIM_PATHS.refunds, {
    reference: 'r1',
    transaction_id: txn,
    amount_cents: 6_000,
  });
  await call('POST', SIM_PATHS.refunds, {
    reference: 'r1',
    transaction_id: txn,
    amount_cents: 6_000,
  });
  await call('POST', SIM_PATHS.refunds, {
    reference: 'r2',
    transaction_id: txn,
    amount_cents: 6_000,
  });
  await call('GET', simPath(SIM_PATHS.authorization, { reference: 'a1' }));
  const other = (
    await call('POST', SIM_PATHS.authorizations, {
      ...sale,
      reference: 'a5',
      card_ref: refundDeclined,
    })
  ).transaction_id as string;
  await call('POST', SIM_PATHS.refunds, {
    reference: 'r3',
    transaction_id: other,
    amount_cents: 100,
  });
  await call('GET', simPath(SIM_PATHS.refund, { reference: 'r3' }));

  await call('POST', SIM_PATHS.pixCharges, { reference: 'p1', amount_cents: 500, expires_in: 60 });
  await call('POST', SIM_PATHS.pixCharges, { reference: 'p1', amount_cents: 600, expires_in: 60 });
  await call('POST', simPath(SIM_PATHS.pixPay, { reference: 'p1' }));
  await call('POST', simPath(SIM_PATHS.pixExpire, { reference: 'p1' }));
  await call('POST', SIM_PATHS.pixCharges, { reference: 'p2', amount_cents: 500, expires_in: 60 });
  await call('POST', simPath(SIM_PATHS.pixExpire, { reference: 'p2' }));
  await call('POST', simPath(SIM_PATHS.pixPay, { reference: 'p2' }));
  await call('GET', simPath(SIM_PATHS.pixCharge, { reference: 'p3' }));

  await call('POST', SIM_PATHS.boletos, {
    reference: 'b1',
    amount_cents: 5_000,
    due_date: '2026-03-10',
  });
  await call('POST', SIM_PATHS.boletos, {
    reference: 'b1',
    amount_cents: 5_000,
    due_date: '2026-03-11',
  });
  await call('POST', SIM_PATHS.boletos, {
    reference: 'b2',
    amount_cents: 5_000,
    due_date: '2026-02-10',
  });
  await call('POST', simPath(SIM_PATHS.boletoPay, { reference: 'b1' }));
  await call('GET', simPath(SIM_PATHS.boleto, { reference: 'b1' }));
  return seen;
}

describe('the simulator in memory', () => {
  it('answers every route and rule as the simulator on its database does', async () => {
    // Proves the stores agree: the same walk gives the same statuses, codes and amounts on both.
    const db = sharedDb(knex, 'acquirer_sim');
    await db.migrate(simMigrations);
    const onDatabase = await simulator(new PgSimStore(db));
    const inMemory = await simulator(new MemorySimStore());
    try {
      const expected = await walk(onDatabase);
      expect(expected).toContainEqual([
        'POST',
        SIM_PATHS.refunds,
        422,
        'refund_amount_exceeds_captured',
        undefined,
        undefined,
        undefined,
      ]);
      expect(await walk(inMemory)).toEqual(expected);
    } finally {
      await onDatabase.close();
      await inMemory.close();
    }
  });

  it('runs one unit of work at a time, so two refunds of one transaction never pass the captured amount', async () => {
    // Proves the memory store's lock: concurrent refunds are decided one after the other.
    const store = new MemorySimStore();
    const app = await simulator(store);
    const cardRef = store.addCard('4111111111111111');
    const auth = (
      await app.inject({
        method: 'POST',
        url: SIM_PATHS.authorizations,
        payload: {
          reference: 'a',
          card_ref: cardRef,
          amount_cents: 1_000,
          installments: 1,
          capture: true,
        },
      })
    ).json();
    const refunds = await Promise.all(
      [1, 2, 3].map((n) =>
        app.inject({
          method: 'POST',
          url: SIM_PATHS.refunds,
          payload: { reference: `r${n}`, transaction_id: auth.transaction_id, amount_cents: 400 },
        }),
      ),
    );
    expect(refunds.map((r) => r.statusCode).sort()).toEqual([201, 201, 422]);
    expect(store.authorizations.get('a')?.refunded_amount_cents).toBe(800);
    await app.close();
  });
});
