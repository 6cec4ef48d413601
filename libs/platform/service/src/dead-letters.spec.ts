// Issue 17 item 3, as the all-in-one mode runs it: the service's own outbox, its relay and the in-process
// bus, whose publish waits for every consumer. An event the consumer cannot apply is parked (listed by the
// operator route), the events after it are applied and the outbox goes on; a replay after the consumer
// learns the type applies it once.
import { metrics } from '@opentelemetry/api';
import {
  AggregationTemporality,
  MeterProvider,
  MetricReader,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import {
  decodeEvent,
  EmbeddedSchemaRegistry,
  EventWire,
  newEnvelope,
  type EventType,
} from '@pgw/contracts';
import {
  enqueue,
  HEADER_EVENT_TYPE,
  InProcessBus,
  SchemaRegistryBus,
  type Bus,
  type BusMessage,
} from '@pgw/platform-bus';
import { createPgliteKnex, sharedDb, type Db, type Tx } from '@pgw/platform-db';
import { PRINCIPAL_HEADER, PRINCIPAL_TTL_MS, TestPrincipals } from '@pgw/platform-http';
import { waitFor } from '@pgw/testing';
import { systemClock } from './clock';
import { InjectPeers } from './peers';
import { startService, type RunningService, type ServiceDefinition } from './service';

class TestReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

const TOPIC = 'test.orders';
const PRINCIPALS = new TestPrincipals();

/** A consumer whose handler table the test extends ("a deploy"): it knows exactly the types it has a handler for. */
function ordersService(
  name: string,
  handlers: Map<string, (trx: Tx, message: BusMessage) => Promise<void>>,
): ServiceDefinition {
  return {
    name,
    migrations: [
      {
        name: '0001_effects',
        up: async (trx) =>
          void (await trx.raw(
            'create table effects (seq serial primary key, event_id text not null, type text not null)',
          )),
      },
    ],
    build: async () => ({
      consumers: [
        {
          name: 'orders',
          topics: [TOPIC],
          knows: (type) => type !== undefined && handlers.has(type),
          apply: async (trx, message) =>
            handlers.get(message.headers[HEADER_EVENT_TYPE] ?? '')?.(trx, message),
        },
      ],
    }),
  };
}

const record = async (trx: Tx, message: BusMessage) =>
  void (await trx('effects').insert({
    event_id: message.headers['event-id'],
    type: message.headers[HEADER_EVENT_TYPE],
  }));

async function produce(db: Db, events: Array<[eventId: string, type: string]>): Promise<void> {
  await db.tx((trx) =>
    enqueue(
      db,
      trx,
      events.map(([eventId, eventType]) => ({
        topic: TOPIC,
        key: 'order_1',
        eventId,
        eventType,
        payload: Buffer.from(`body of ${eventId}`),
      })),
    ),
  );
}

const effects = (db: Db) =>
  db.read(async (q) => (await q('effects').orderBy('seq').pluck('event_id')) as string[]);

/** Waits until every outbox row is marked sent (the relay marks a round's rows in its next round). */
const outboxSent = (db: Db, what: string) =>
  waitFor(
    async () =>
      (await db.read((q) => q('outbox').whereNull('sent_at').first())) === undefined
        ? true
        : undefined,
    10_000,
    what,
  );

function operator(service: RunningService, method: 'GET' | 'POST', url: string) {
  const principal = PRINCIPALS.sign(
    { kind: 'operator', requestId: 'req_dead_letters', expiresAtMs: Date.now() + PRINCIPAL_TTL_MS },
    method,
    url,
  );
  return service.app.inject({ method, url, headers: { [PRINCIPAL_HEADER]: principal } });
}

describe('events a consumer cannot apply are parked, not skipped', () => {
  const knex = createPgliteKnex(null);
  const reader = new TestReader();
  const provider = new MeterProvider({ readers: [reader] });
  beforeAll(() => metrics.setGlobalMeterProvider(provider));
  afterAll(async () => {
    metrics.disable();
    await provider.shutdown();
    await knex.destroy();
  });

  const start = (
    definition: ServiceDefinition,
    db: Db,
    env: NodeJS.ProcessEnv = {},
    bus: Bus = new InProcessBus(),
  ) =>
    startService(definition, {
      db,
      bus,
      clock: systemClock,
      principalPublicKey: PRINCIPALS.publicKey,
      peers: new InjectPeers(),
      env: { BUS_RETENTION_INTERVAL_MS: '0', ...env },
      log: { level: 'silent' },
    });

  async function deadLettersCounted(): Promise<
    Array<{ value: number; attributes: Record<string, unknown> }>
  > {
    const { resourceMetrics } = (await reader.collect()) as { resourceMetrics: ResourceMetrics };
    const metric = resourceMetrics.scopeMetrics
      .flatMap((s) => s.metrics)
      .find((m) => m.descriptor.name === 'consumer.dead_letters');
    return (metric?.dataPoints ?? []).map((p) => ({
      value: p.value as number,
      attributes: p.attributes,
    }));
  }

  it('parks an unknown type with its topic, partition and offset, applies the next events, and a replay after the consumer learns the type applies it once', async () => {
    const db = sharedDb(knex, 'parking');
    const handlers = new Map([['test.order-placed.v1', record]]);
    const service = await start(ordersService('parking', handlers), db);
    try {
      await produce(db, [
        ['evt_1', 'test.order-placed.v1'],
        ['evt_2', 'test.order-placed.v2'],
        ['evt_3', 'test.order-placed.v1'],
      ]);
      await waitFor(
        async () => ((await effects(db)).includes('evt_3') ? true : undefined),
        10_000,
        'the event after the unknown one to be applied',
      );
      expect(await effects(db)).toEqual(['evt_1', 'evt_3']);
      // The producer's outbox went on: every row is sent, the parked one included (marked by the next round).
      await outboxSent(db, 'every outbox row marked sent');
      // Not recorded as handled: the inbox has the two applied events only.
      expect(
        (await db.read((q) => q('inbox').orderBy('event_id').pluck('event_id'))) as string[],
      ).toEqual(['evt_1', 'evt_3']);

      const list = await operator(service, 'GET', '/admin/v1/services/parking/dead-letters');
      expect(list.statusCode).toBe(200);
      expect(list.json()).toMatchObject({
        object: 'list',
        total: 1,
        request_id: expect.stringMatching(/^req_/),
      });
      const [parked] = list.json().data;
      expect(parked).toMatchObject({
        object: 'dead_letter',
        status: 'parked',
        consumer: 'orders',
        event_id: 'evt_2',
        event_type: 'test.order-placed.v2',
        reason: 'unknown_type',
        topic: TOPIC,
        partition: 0,
        offset: '1',
        key: 'order_1',
        replayed_at: null,
      });
      expect(await deadLettersCounted()).toEqual([
        {
          value: 1,
          attributes: { service: 'parking', consumer: 'orders', reason: 'unknown_type' },
        },
      ]);

      // Before the deploy: the replay is refused with the contract's error body, and the event stays parked.
      const early = await operator(
        service,
        'POST',
        `/admin/v1/services/parking/dead-letters/${parked.id}/replay`,
      );
      expect(early.statusCode).toBe(409);
      expect(early.json()).toMatchObject({
        error: { type: 'invalid_request_error', code: 'event_not_replayable', param: null },
        request_id: expect.stringMatching(/^req_/),
      });
      expect(
        (
          await operator(service, 'GET', '/admin/v1/services/parking/dead-letters?status=parked')
        ).json().total,
      ).toBe(1);

      handlers.set('test.order-placed.v2', record); // the deploy that teaches the consumer v2
      const replayed = await operator(
        service,
        'POST',
        `/admin/v1/services/parking/dead-letters/${parked.id}/replay`,
      );
      expect(replayed.statusCode).toBe(200);
      expect(replayed.json()).toMatchObject({
        id: parked.id,
        status: 'replayed',
        event_id: 'evt_2',
        replayed_at: expect.any(String),
      });
      expect(await effects(db)).toEqual(['evt_1', 'evt_3', 'evt_2']);

      const again = await operator(
        service,
        'POST',
        `/admin/v1/services/parking/dead-letters/${parked.id}/replay`,
      );
      expect(again.statusCode).toBe(200);
      expect(await effects(db)).toEqual(['evt_1', 'evt_3', 'evt_2']);
      // A redelivery of the replayed event (Kafka reading its offset again) changes nothing either.
      await db.tx((trx) => trx('outbox').update({ sent_at: null }).where('event_id', 'evt_2'));
      service.relay.kick();
      await outboxSent(db, 'the redelivery');
      expect(await effects(db)).toEqual(['evt_1', 'evt_3', 'evt_2']);
      expect(
        (
          await operator(service, 'GET', '/admin/v1/services/parking/dead-letters?status=parked')
        ).json().total,
      ).toBe(0);

      // Replay all: a type still unknown stays parked and is counted; the others are applied, oldest first.
      await produce(db, [
        ['evt_4', 'test.order-placed.v3'],
        ['evt_5', 'test.order-cancelled.v1'],
        ['evt_6', 'test.order-placed.v1'],
      ]);
      await waitFor(
        async () => ((await effects(db)).includes('evt_6') ? true : undefined),
        10_000,
        'the event after the new unknown ones',
      );
      handlers.set('test.order-cancelled.v1', record);
      const all = await operator(service, 'POST', '/admin/v1/services/parking/dead-letters/replay');
      expect(all.statusCode).toBe(200);
      expect(all.json()).toMatchObject({
        object: 'dead_letter_replay',
        replayed: 1,
        still_parked: 1,
      });
      expect(await effects(db)).toEqual(['evt_1', 'evt_3', 'evt_2', 'evt_6', 'evt_5']);
      const left = (
        await operator(service, 'GET', '/admin/v1/services/parking/dead-letters?status=parked')
      ).json();
      expect(left.data.map((d: { event_id: string }) => d.event_id)).toEqual(['evt_4']);

      const missing = await operator(
        service,
        'POST',
        '/admin/v1/services/parking/dead-letters/dlq_nope/replay',
      );
      expect(missing.statusCode).toBe(404);
      expect(missing.json().error.code).toBe('resource_not_found');
    } finally {
      await service.stop();
    }
  }, 60_000);

  it('parks a poison event after its attempts, never one that fails while the database is unreachable', async () => {
    const db = sharedDb(knex, 'poison');
    let flakyCalls = 0;
    const handlers = new Map<string, (trx: Tx, message: BusMessage) => Promise<void>>([
      ['test.order-placed.v1', record],
      [
        'test.order-poisoned.v1',
        async () => Promise.reject(new Error('order total does not add up')),
      ],
      [
        'test.order-flaky.v1',
        async (trx, message) => {
          // What pg says when the server goes away: a database outage, retried however long it lasts.
          if (++flakyCalls <= 5)
            throw Object.assign(new Error('Connection terminated unexpectedly'), { code: '08006' });
          await record(trx, message);
        },
      ],
    ]);
    const service = await start(ordersService('poison', handlers), db, {
      CONSUMER_POISON_ATTEMPTS: '2',
      CONSUMER_POISON_AFTER_MS: '0',
    });
    try {
      await produce(db, [
        ['evt_flaky', 'test.order-flaky.v1'],
        ['evt_poison', 'test.order-poisoned.v1'],
        ['evt_after', 'test.order-placed.v1'],
      ]);
      await waitFor(
        async () => ((await effects(db)).includes('evt_after') ? true : undefined),
        20_000,
        'the event after the poison one to be applied',
      );
      expect(flakyCalls).toBeGreaterThan(2);
      expect(await effects(db)).toEqual(['evt_flaky', 'evt_after']);
      const list = (
        await operator(service, 'GET', '/admin/v1/services/poison/dead-letters')
      ).json();
      expect(list.data).toEqual([
        expect.objectContaining({
          event_id: 'evt_poison',
          reason: 'handler_failed',
          error: 'Error: order total does not add up',
          status: 'parked',
        }),
      ]);
      expect(await deadLettersCounted()).toContainEqual({
        value: 1,
        attributes: { service: 'poison', consumer: 'orders', reason: 'handler_failed' },
      });
    } finally {
      await service.stop();
    }
  }, 60_000);

  it('replays an event parked in the wire format, as it came, once the bus and the consumer know its type', async () => {
    // The all-in-one's bus frames events with a schema id; a type this build does not know reaches the
    // consumer framed, and is parked so. After the deploy the replay reads it as the handler now would.
    class DeployedWire extends EventWire {
      deployed = false;
      override knows(type: string | undefined): type is EventType {
        return this.deployed && super.knows(type);
      }
      override readerTypeOf(type: string | undefined): EventType | undefined {
        return this.deployed ? super.readerTypeOf(type) : undefined;
      }
    }
    const registry = new EmbeddedSchemaRegistry();
    const wire = new DeployedWire(registry);
    const db = sharedDb(knex, 'framed');
    const handlers = new Map<string, (trx: Tx, message: BusMessage) => Promise<void>>();
    const service = await start(
      ordersService('framed', handlers),
      db,
      {},
      new SchemaRegistryBus(new InProcessBus(), wire),
    );
    try {
      const type = 'gateway.tenant-changed.v1';
      const event = {
        envelope: newEnvelope(type, { producer: 'ahead', tenantId: 'ten_1', livemode: null }),
        tenant_id: 'ten_1',
        name: 'Loja do Futuro',
        treasury_available_cash_cents: 0,
        version: 1,
      };
      // A producer deployed ahead, on the same registry, writes the framed event.
      const framed = await new EventWire(registry).encode(type, event);
      await db.tx((trx) =>
        enqueue(db, trx, [
          {
            topic: TOPIC,
            key: 'ten_1',
            eventId: event.envelope.event_id,
            eventType: type,
            payload: framed,
          },
        ]),
      );
      const list = await waitFor(
        async () => {
          const body = (
            await operator(service, 'GET', '/admin/v1/services/framed/dead-letters')
          ).json();
          return body.total === 1 ? body : undefined;
        },
        10_000,
        'the framed event to be parked',
      );
      wire.deployed = true;
      handlers.set(
        type,
        async (trx, message) =>
          void (await trx('effects').insert({
            event_id: decodeEvent(type, message.value).name,
            type,
          })),
      );
      const replayed = await operator(
        service,
        'POST',
        `/admin/v1/services/framed/dead-letters/${list.data[0].id}/replay`,
      );
      expect(replayed.statusCode).toBe(200);
      expect(await effects(db)).toEqual(['Loja do Futuro']);
    } finally {
      await service.stop();
    }
  }, 60_000);
});
