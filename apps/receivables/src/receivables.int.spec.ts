// charge-paid → receivables → ledger on the real PostgreSQL (a schema per service) and the real Kafka
// broker (KafkaBus): the schedule, the release job, an anticipation, the balance and its history, checked
// by the shared invariants.
import {
  encodeEvent,
  EVENT_TOPICS,
  newEnvelope,
  type EventMap,
  type EventType,
} from '@pgw/contracts';
import { newId } from '@pgw/domain';
// eslint-disable-next-line @nx/enforce-module-boundaries -- a test composition of receivables with the ledger, as the all-in-one composes them
import { ledgerService } from '@pgw/ledger';
import { HEADER_EVENT_ID, HEADER_EVENT_TYPE, KafkaBus } from '@pgw/platform-bus';
import { createPgDb, type Db } from '@pgw/platform-db';
import { PRINCIPAL_HEADER, TestPrincipals } from '@pgw/platform-http';
import { HttpPeers, ManualClock, startService, type RunningService } from '@pgw/platform-service';
import { integrationEnv, uniqueName, waitFor } from '@pgw/testing';
import { checkInvariants } from './scenarios/invariants';
import { anticipationExecuted } from './scenarios/money.scenarios';
import { receivablesService } from './service';
import { approvedSeller, paidCardCharge } from './testing/events';
import { IsolatedBus } from './testing/isolated-bus';

/** The suite plays the gateway: principals are signed with this pair for each request; the services hold the public key. */
const PRINCIPALS = new TestPrincipals();
const env = integrationEnv();
const prefix = uniqueName('it');
const tenantId = newId('ten_');
const clock = new ManualClock(new Date('2026-03-02T18:00:00Z'));
const kafka = (clientId: string) =>
  new IsolatedBus(
    new KafkaBus({ brokers: env.kafkaBrokers, clientId: `${prefix}-${clientId}`, partitions: 3 }),
    prefix,
  );
const buses = {
  receivables: kafka('receivables'),
  ledger: kafka('ledger'),
  producer: kafka('producer'),
};
let receivablesDb: Db;
let ledgerDb: Db;
let receivables: RunningService;
let ledger: RunningService;

async function publish<K extends EventType>(
  type: K,
  key: string,
  event: EventMap[K],
): Promise<void> {
  await buses.producer.publish([
    {
      topic: EVENT_TOPICS[type],
      key,
      value: encodeEvent(type, event),
      headers: { [HEADER_EVENT_ID]: event.envelope.event_id, [HEADER_EVENT_TYPE]: type },
    },
  ]);
}

const principal = (sellerId: string | null) =>
  PRINCIPALS.header({
    kind: 'api_key',
    tenantId,
    sellerId,
    keyId: 'key_x',
    permissions: ['receivables:read', 'balance:read'],
    livemode: false,
    requestId: 'req_it',
    expiresAtMs: Date.now() + 60_000,
  });

async function balance(sellerId: string) {
  const res = await ledger.app.inject({
    url: '/api/v1/balance',
    headers: { [PRINCIPAL_HEADER]: principal(sellerId) },
  });
  return res.json();
}

const view = {
  tenantId,
  get receivablesDb() {
    return receivablesDb;
  },
  get ledgerDb() {
    return ledgerDb;
  },
  balance,
  // Everything announced is published, and every balance movement is booked by the ledger.
  settle: async () => {
    await waitFor(
      async () => {
        const unsent = await receivablesDb.read((q) =>
          q('outbox').whereNull('sent_at').count<{ count: string }[]>('* as count'),
        );
        const moved = await receivablesDb.read((q) =>
          q('outbox')
            .where({ event_type: 'receivables.balance-moved.v1' })
            .count<{ count: string }[]>('* as count'),
        );
        const booked = await ledgerDb.read((q) =>
          q('journal_entries')
            .where({ tenant_id: tenantId })
            .count<{ count: string }[]>('* as count'),
        );
        return Number(unsent[0]?.count) === 0 &&
          Number(moved[0]?.count) === Number(booked[0]?.count)
          ? true
          : undefined;
      },
      30_000,
      'receivables and ledger to catch up',
    );
  },
};

beforeAll(async () => {
  receivablesDb = createPgDb({ url: env.databaseUrl, schema: uniqueName('receivables') });
  ledgerDb = createPgDb({ url: env.databaseUrl, schema: uniqueName('ledger') });
  const context = {
    clock,
    principalPublicKey: PRINCIPALS.publicKey,
    peers: new HttpPeers({}),
    env: {},
    log: { level: 'silent' },
  };
  ledger = await startService(ledgerService, { ...context, db: ledgerDb, bus: buses.ledger });
  receivables = await startService(receivablesService, {
    ...context,
    db: receivablesDb,
    bus: buses.receivables,
  });
  PRINCIPALS.bind(ledger.app);
  PRINCIPALS.bind(receivables.app);
});

afterAll(async () => {
  await receivables?.stop();
  await ledger?.stop();
  for (const bus of Object.values(buses)) await bus.close();
  for (const db of [receivablesDb, ledgerDb]) {
    await db?.knex.raw(`drop schema if exists "${db.schema}" cascade`);
    await db?.close();
  }
});

it('schedules a paid 3x charge from Kafka, books it in the ledger, releases it and anticipates an installment, on PostgreSQL and Kafka', async () => {
  const seller = 'seller_it';
  await publish('gateway.seller-changed.v1', tenantId, approvedSeller(tenantId, seller));
  const paidAt = Date.parse('2026-03-02T15:00:00Z');
  const chargeId = newId('ch_');
  const charge = paidCardCharge(chargeId, seller, 10_000, 3, paidAt);
  const paid = {
    envelope: newEnvelope('charges.charge-paid.v1', {
      producer: 'charges',
      tenantId,
      livemode: false,
    }),
    charge,
    resource_json: '{}',
  };
  // Delivered twice, as a relay that crashed after publishing would: booked once.
  await publish('charges.charge-paid.v1', chargeId, paid);
  await publish('charges.charge-paid.v1', chargeId, paid);

  const pending = await waitFor(
    async () => {
      const b = await balance(seller);
      return b.pending_cents === 9_700 ? b : undefined;
    },
    30_000,
    'the ledger to show the sale pending',
  );
  expect(pending).toMatchObject({
    object: 'balance',
    available_cents: 0,
    reserved_cents: 0,
    requestable_cents: 0,
  });
  const list = await receivables.app.inject({
    url: '/api/v1/receivables',
    headers: { [PRINCIPAL_HEADER]: principal(null) },
  });
  expect(
    list
      .json()
      .data.map((r: { gross_amount_cents: number; due_date: string }) => [
        r.gross_amount_cents,
        r.due_date,
      ]),
  ).toEqual(
    [
      [3334, '2026-04-01'],
      [3333, '2026-05-01'],
      [3333, '2026-05-31'],
    ].reverse(),
  );

  const operator = PRINCIPALS.header({
    kind: 'operator',
    requestId: 'req_op',
    expiresAtMs: Date.now() + 60_000,
  });
  const job = await receivables.app.inject({
    method: 'POST',
    url: '/admin/v1/jobs/receivables-release',
    headers: { [PRINCIPAL_HEADER]: operator },
    payload: { as_of_date: '2026-04-01' },
  });
  expect(job.json()).toMatchObject({ job: 'receivables-release', processed: 1 });
  await waitFor(
    async () => ((await balance(seller)).available_cents === 3_234 ? true : undefined),
    30_000,
    'the release to reach the ledger',
  );
  await checkInvariants(view, new Map([[chargeId, { grossCents: 10_000 }]]));

  // The second installment anticipated (net 3233, fee 129): the seller's history is the sale and the fee.
  const second = list.json().data.find((r: { installment: number }) => r.installment === 2);
  await publish(
    'anticipation.anticipation-executed.v1',
    seller,
    anticipationExecuted(tenantId, seller, [{ receivable: second, feeCents: 129, days: 60 }]),
  );
  await waitFor(
    async () => ((await balance(seller)).available_cents === 3_234 + 3_104 ? true : undefined),
    30_000,
    'the anticipation to reach the ledger',
  );
  await checkInvariants(view, new Map([[chargeId, { grossCents: 10_000 }]]));
  const history = async (query: string) =>
    (
      await ledger.app.inject({
        url: `/api/v1/balance/history${query}`,
        headers: { [PRINCIPAL_HEADER]: principal(seller) },
      })
    ).json();
  expect(await history('?limit=1')).toMatchObject({
    total: 2,
    total_pages: 2,
    page: 1,
    data: [{ type: 'anticipation.executed', direction: 'debit', amount_cents: 129 }],
  });
  expect(await history('?limit=1&page=2')).toMatchObject({
    total: 2,
    data: [{ type: 'charge.sale', direction: 'credit', amount_cents: 9_700 }],
  });
  expect(await history('?limit=1&page=3')).toMatchObject({ total: 2, total_pages: 2, data: [] });
});
