// Issue 17 item 3 in the all-in-one: an event of a type the real ledger does not know (a producer deployed
// a new version first) is parked by the ledger, listed through the gateway's operator API, and nothing else
// stops: the producer's outbox is sent, and a sale right after it still moves the seller's balance.
import { frameWire, TOPICS } from '@pgw/contracts';
import { enqueue } from '@pgw/platform-bus';
import type { Db } from '@pgw/platform-db';
import type { ServiceDefinition } from '@pgw/platform-service';
import { waitFor } from '@pgw/testing';
import { startAllInOne, type AllInOne } from './all-in-one';
import { BUYER, client, type Target } from './e2e.scenarios';
import { SERVICES } from './services';

let system: AllInOne;
let producerDb: Db | undefined;

/** A producer of the receivables topic deployed ahead of its consumers: it writes a version they do not know. */
const aheadProducer: ServiceDefinition = {
  name: 'ahead',
  migrations: [],
  build: async (_app, context) => {
    producerDb = context.db;
    return {};
  },
};

beforeAll(async () => {
  system = await startAllInOne({
    dataDir: null,
    port: 0,
    demo: true,
    log: { level: 'silent' },
    services: [...SERVICES, aheadProducer],
  });
  if (system.demo === null) throw new Error('the demo was not provisioned');
}, 120_000);

afterAll(async () => {
  await system?.stop();
});

const target = (): Target => ({
  url: system.url,
  adminToken: system.adminToken,
  tenantId: system.demo!.tenantId,
  apiKey: system.demo!.apiKey,
});

it('parks an unknown event type in the ledger, lists it through the gateway, and the ledger goes on with the next events', async () => {
  const { call, admin } = client(target());
  const db = producerDb!;
  // In the wire format, with a schema id of the newer producer's registration.
  await db.tx((trx) =>
    enqueue(db, trx, [
      {
        topic: TOPICS.receivables,
        key: system.demo!.sellerId,
        eventId: 'evt_from_the_future',
        eventType: 'receivables.balance-moved.v99',
        payload: frameWire(9_999, Buffer.from('a body this build cannot read')),
      },
    ]),
  );
  const parked = await waitFor(
    async () => {
      const list = await admin('GET', '/admin/v1/services/ledger/dead-letters?status=parked');
      return list.body?.data?.find(
        (d: { event_id: string }) => d.event_id === 'evt_from_the_future',
      );
    },
    15_000,
    'the ledger to park the unknown event',
  );
  expect(parked).toMatchObject({
    object: 'dead_letter',
    consumer: 'movements',
    event_type: 'receivables.balance-moved.v99',
    reason: 'unknown_type',
    topic: TOPICS.receivables,
    partition: 0,
    offset: expect.any(String),
    status: 'parked',
  });
  // The producer's outbox was not held: the event counts as published (marked by the relay's next round).
  await waitFor(
    async () =>
      (await db.read((q) => q('outbox').whereNull('sent_at').pluck('event_id'))).length === 0
        ? true
        : undefined,
    10_000,
    'the outbox marked sent',
  );

  // A sale after it: receivables books it and the ledger applies the movement, so the balance moves.
  const before = (await call('GET', '/api/v1/balance')).body.pending_cents as number;
  const token = await call('POST', '/api/v1/payment-methods/tokenize', {
    body: {
      card: {
        number: '4111 1111 1111 1111',
        exp_month: 12,
        exp_year: 2031,
        cvv: '123',
        holder_name: 'MARIA OLIVEIRA',
      },
    },
  });
  const sale = await call('POST', '/api/v1/charges', {
    body: {
      buyer: BUYER,
      amount: 10_000,
      payment_method: 'CREDIT_CARD',
      installments: 1,
      card_token: token.body.id,
      security_code: '123',
    },
  });
  expect(sale.body.status).toBe('paid');
  await waitFor(
    async () =>
      ((await call('GET', '/api/v1/balance')).body.pending_cents as number) > before
        ? true
        : undefined,
    10_000,
    'the balance to move',
  );

  // This ledger still cannot apply it: the replay is refused with the contract's error body, and it stays parked.
  const replay = await admin('POST', `/admin/v1/services/ledger/dead-letters/${parked.id}/replay`);
  expect(replay.status).toBe(409);
  expect(replay.body).toMatchObject({
    error: {
      type: 'invalid_request_error',
      code: 'event_not_replayable',
      message: expect.any(String),
      param: null,
    },
    request_id: expect.stringMatching(/^req_/),
  });
  expect(
    (await admin('GET', '/admin/v1/services/ledger/dead-letters?status=parked')).body.total,
  ).toBe(1);
}, 60_000);
