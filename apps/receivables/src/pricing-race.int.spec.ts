// A paid charge and its seller's directory event committing at the same time, on the real PostgreSQL (two
// connections): the charge must not wait for the tenant's next directory event. The chaos run saw it once
// (a charge paid, no receivables): the directory event's scan for waiting charges ran before the charge
// committed, and the charge had read the directory before the event committed.
import { encodeEvent, newEnvelope, type EventMap, type EventType } from '@pgw/contracts';
import { newId } from '@pgw/domain';
import {
  busMigration,
  HEADER_EVENT_ID,
  HEADER_EVENT_TYPE,
  type BusMessage,
} from '@pgw/platform-bus';
import { createPgDb, type Db } from '@pgw/platform-db';
import { ManualClock } from '@pgw/platform-service';
import { integrationEnv, uniqueName } from '@pgw/testing';
import { chargesConsumer } from './consumers/charges.consumer';
import { directoryConsumer } from './consumers/directory.consumer';
import { receivablesMigrations } from './migrations';
import { approvedSeller, paidCardCharge } from './testing/events';

const env = integrationEnv();
const clock = new ManualClock(new Date('2026-03-02T18:00:00Z'));
let db: Db;

function message<K extends EventType>(type: K, event: EventMap[K]): BusMessage {
  return {
    topic: 't',
    key: 'k',
    value: encodeEvent(type, event),
    headers: { [HEADER_EVENT_ID]: event.envelope.event_id, [HEADER_EVENT_TYPE]: type },
  };
}

beforeAll(async () => {
  db = createPgDb({ url: env.databaseUrl, schema: uniqueName('pricing_race') });
  await db.migrate([busMigration, ...receivablesMigrations]);
});

afterAll(async () => {
  await db?.knex.raw(`drop schema if exists "${db.schema}" cascade`);
  await db?.close();
});

it('prices a charge whose seller arrives in a transaction that commits while the charge is being recorded', async () => {
  const tenantId = newId('ten_');
  const sellerId = newId('seller_');
  const chargeId = newId('ch_');
  const paidAt = Date.parse('2026-03-02T15:00:00Z');
  const seller = message('gateway.seller-changed.v1', approvedSeller(tenantId, sellerId));
  const charge = paidCardCharge(chargeId, sellerId, 10_000, 2, paidAt);
  const paid = message('charges.charge-paid.v2', {
    envelope: newEnvelope('charges.charge-paid.v2', {
      producer: 'charges',
      tenantId,
      livemode: false,
    }),
    charge,
    resource_json: '{}',
    brand: 'visa',
    authorization_code: 'A1',
  });

  // The directory event applies (the seller written, waiting charges scanned) and holds its commit open...
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let applied!: () => void;
  const directoryApplied = new Promise<void>((resolve) => (applied = resolve));
  const directory = db.tx(async (trx) => {
    await directoryConsumer(db, clock).apply(trx, seller);
    applied();
    await held;
  });
  await directoryApplied;
  // ...while the charge is recorded in another transaction; then the directory event commits.
  const recorded = db.tx((trx) => chargesConsumer(db, clock).apply(trx, paid));
  await new Promise((r) => setTimeout(r, 300));
  release();
  await Promise.all([directory, recorded]);

  const receivables = await db.read((q) =>
    q('receivables')
      .where({ charge_id: chargeId })
      .orderBy('installment')
      .select('installment', 'gross_amount_cents'),
  );
  expect(receivables.map((r) => [Number(r.installment), Number(r.gross_amount_cents)])).toEqual([
    [1, 5_000],
    [2, 5_000],
  ]);
});
