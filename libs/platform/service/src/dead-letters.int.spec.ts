// Issue 17 item 3 on PostgreSQL and the real Kafka broker: an event of a type the consumer does not know
// lands in the service's dead-letter topic with its original bytes and headers, and the reason, source
// topic, partition and offset; the partition goes on with the next event; a replay applies it once.
import { Kafka, logLevel } from 'kafkajs';
import {
  DEAD_LETTER_HEADERS,
  enqueue,
  HEADER_EVENT_ID,
  HEADER_EVENT_TYPE,
  KafkaBus,
  type BusMessage,
} from '@pgw/platform-bus';
import { createPgDb, type Db, type Tx } from '@pgw/platform-db';
import { PRINCIPAL_HEADER, PRINCIPAL_TTL_MS, TestPrincipals } from '@pgw/platform-http';
import { integrationEnv, uniqueName, waitFor } from '@pgw/testing';
import { systemClock } from './clock';
import { InjectPeers } from './peers';
import { startService, type RunningService } from './service';

const env = integrationEnv();
const PRINCIPALS = new TestPrincipals();

describe('a parked event on the real broker', () => {
  const service = uniqueName('dlq');
  const topic = uniqueName('it.orders');
  const handlers = new Map<string, (trx: Tx, message: BusMessage) => Promise<void>>();
  const record = async (trx: Tx, message: BusMessage) =>
    void (await trx('effects').insert({ event_id: message.headers[HEADER_EVENT_ID] }));
  handlers.set('test.order-placed.v1', record);
  let db: Db;
  let bus: KafkaBus;
  let running: RunningService;

  beforeAll(async () => {
    db = createPgDb({ url: env.databaseUrl, schema: service });
    bus = new KafkaBus({ brokers: env.kafkaBrokers, clientId: service, partitions: 2 });
    running = await startService(
      {
        name: service,
        migrations: [
          {
            name: '0001_effects',
            up: async (trx) =>
              void (await trx.raw(
                'create table effects (seq serial primary key, event_id text not null)',
              )),
          },
        ],
        build: async () => ({
          consumers: [
            {
              name: 'orders',
              topics: [topic],
              knows: (type) => type !== undefined && handlers.has(type),
              apply: async (trx, m) => handlers.get(m.headers[HEADER_EVENT_TYPE] ?? '')?.(trx, m),
            },
          ],
        }),
      },
      {
        db,
        bus,
        clock: systemClock,
        principalPublicKey: PRINCIPALS.publicKey,
        peers: new InjectPeers(),
        env: { BUS_RETENTION_INTERVAL_MS: '0' },
        log: { level: 'silent' },
      },
    );
  }, 60_000);

  afterAll(async () => {
    await running.stop();
    await bus.close();
    await db.close();
  });

  const effects = () =>
    db.read(async (q) => (await q('effects').orderBy('seq').pluck('event_id')) as string[]);
  const operator = (method: 'GET' | 'POST', url: string) =>
    running.app.inject({
      method,
      url,
      headers: {
        [PRINCIPAL_HEADER]: PRINCIPALS.sign(
          { kind: 'operator', requestId: 'req_it_dlq', expiresAtMs: Date.now() + PRINCIPAL_TTL_MS },
          method,
          url,
        ),
      },
    });

  it('copies it to <service>.dead-letter with reason, topic, partition and offset, applies the next event, and replays it once', async () => {
    // One key: both events on one partition, the unknown one first.
    await db.tx((trx) =>
      enqueue(db, trx, [
        {
          topic,
          key: 'order_1',
          eventId: 'evt_unknown',
          eventType: 'test.order-placed.v2',
          payload: Buffer.from('v2 body'),
        },
        {
          topic,
          key: 'order_1',
          eventId: 'evt_next',
          eventType: 'test.order-placed.v1',
          payload: Buffer.from('v1 body'),
        },
      ]),
    );
    await waitFor(
      async () => ((await effects()).includes('evt_next') ? true : undefined),
      30_000,
      'the event after the unknown one',
    );
    expect(await effects()).toEqual(['evt_next']);

    const [parked] = (await operator('GET', `/admin/v1/services/${service}/dead-letters`)).json()
      .data;
    expect(parked).toMatchObject({
      event_id: 'evt_unknown',
      reason: 'unknown_type',
      topic,
      partition: expect.any(Number),
      offset: '0',
      status: 'parked',
    });

    const kafka = new Kafka({
      clientId: `${service}-reader`,
      brokers: env.kafkaBrokers,
      logLevel: logLevel.NOTHING,
    });
    const reader = kafka.consumer({ groupId: uniqueName('it-dlq-reader') });
    const seen: Array<{ value: string; headers: Record<string, string> }> = [];
    await reader.connect();
    try {
      await reader.subscribe({ topics: [`${service}.dead-letter`], fromBeginning: true });
      await reader.run({
        eachMessage: async ({ message }) =>
          void seen.push({
            value: message.value?.toString() ?? '',
            headers: Object.fromEntries(
              Object.entries(message.headers ?? {}).map(([k, v]) => [k, String(v)]),
            ),
          }),
      });
      await waitFor(
        () => (seen.length > 0 ? true : undefined),
        30_000,
        'the dead-letter topic message',
      );
    } finally {
      await reader.disconnect();
    }
    expect(seen[0]?.value).toBe('v2 body');
    expect(seen[0]?.headers).toMatchObject({
      [HEADER_EVENT_ID]: 'evt_unknown',
      [HEADER_EVENT_TYPE]: 'test.order-placed.v2',
      [DEAD_LETTER_HEADERS.reason]: 'unknown_type',
      [DEAD_LETTER_HEADERS.consumer]: 'orders',
      [DEAD_LETTER_HEADERS.topic]: topic,
      [DEAD_LETTER_HEADERS.partition]: String(parked.partition),
      [DEAD_LETTER_HEADERS.offset]: '0',
    });

    handlers.set('test.order-placed.v2', record);
    expect(
      (await operator('POST', `/admin/v1/services/${service}/dead-letters/${parked.id}/replay`))
        .statusCode,
    ).toBe(200);
    expect(
      (await operator('POST', `/admin/v1/services/${service}/dead-letters/${parked.id}/replay`))
        .statusCode,
    ).toBe(200);
    expect(await effects()).toEqual(['evt_next', 'evt_unknown']);
  }, 90_000);
});
