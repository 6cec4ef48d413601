import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { KafkaJSNonRetriableError } from 'kafkajs';
import { decodeEvent, outboxMessage } from '@pgw/contracts';
import { createPgDb, writeAtCommit, type Db } from '@pgw/platform-db';
import { integrationEnv, uniqueName } from '@pgw/testing';
import type { BusMessage } from './bus';
import { inboxHandler } from './inbox';
import { KafkaBus } from './kafka-bus';
import { enqueue, OutboxRelay } from './outbox';
import {
  appliedCount,
  consumerHandler,
  crashAfterPublish,
  prepare,
  relay,
  tenantEvent,
  tenantMessage,
  unsentCount,
  waitFor,
  writeEvent,
} from './outbox.scenarios';

const env = integrationEnv();
const KAFKA_TOOLS = join(__dirname, '..', '..', '..', '..', 'tools', 'kafka');

describe('outbox, relay and inbox on PostgreSQL with the real Kafka broker', () => {
  let producer: Db;
  let consumer: Db;
  let bus: KafkaBus;
  let consumerBus: KafkaBus;
  const deliveries: BusMessage[] = [];
  const topic = uniqueName('it.outbox');

  beforeAll(async () => {
    producer = createPgDb({ url: env.databaseUrl, schema: uniqueName('producer') });
    consumer = createPgDb({ url: env.databaseUrl, schema: uniqueName('consumer') });
    bus = new KafkaBus({ brokers: env.kafkaBrokers, clientId: 'it-producer' });
    consumerBus = new KafkaBus({ brokers: env.kafkaBrokers, clientId: 'it-consumer' });
    await prepare({ producer, consumer, bus, topicSuffix: '' });
    await bus.ensureTopics([topic]);
    await consumerBus.subscribe({
      groupId: uniqueName('it-group'),
      topics: [topic],
      handle: consumerHandler(consumer, deliveries),
    });
  });

  afterAll(async () => {
    await bus.close();
    await consumerBus.close();
    await producer.close();
    await consumer.close();
  });

  it('reports the broker healthy when it answers, and unhealthy when nothing listens', async () => {
    await expect(bus.checkHealth()).resolves.toBeUndefined();
    const nowhere = new KafkaBus({ brokers: ['127.0.0.1:1'], clientId: 'it-nowhere' });
    await expect(nowhere.checkHealth()).rejects.toThrow();
    await nowhere.close();
  });

  it('creates topics one after another on a KRaft broker whose metadata trails its controller', async () => {
    // Proves a service starts on a fresh broker: kafkajs alone failed about one topic creation in three
    // there ("This server does not host this topic-partition"), and the service with it.
    const fresh = new KafkaBus({ brokers: env.kafkaBrokers, clientId: 'it-topics' });
    try {
      for (let i = 0; i < 15; i++)
        await fresh.ensureTopics([uniqueName(`it.fresh${i}`), uniqueName(`it.fresh${i}b`)]);
    } finally {
      await fresh.close();
    }
  }, 120_000);

  it('replaces a consumer that kafkajs gave up on after a crash it does not restart, and applies the event', async () => {
    // Proves a crash without a retriable cause (as after a broker stop) does not leave the group without
    // its consumer for good: the first delivery fails with such an error, the replaced consumer applies it.
    const crashTopic = uniqueName('it.crash');
    const crashBus = new KafkaBus({
      brokers: env.kafkaBrokers,
      clientId: 'it-crash',
      log: { warn: () => undefined, error: () => undefined },
    });
    let failures = 0;
    const applied: string[] = [];
    try {
      await crashBus.subscribe({
        groupId: uniqueName('it-crash-group'),
        topics: [crashTopic],
        handle: async (batch) => {
          if (failures++ === 0) throw new KafkaJSNonRetriableError('poisoned once');
          applied.push(...batch.map((m) => m.key));
        },
      });
      await bus.publish([{ topic: crashTopic, key: 'k1', value: Buffer.from('v'), headers: {} }]);
      expect(
        await waitFor(
          () => (applied.includes('k1') ? applied.length : undefined),
          60_000,
          'the replaced consumer to apply k1',
        ),
      ).toBe(1);
      expect(failures).toBe(2);
    } finally {
      await crashBus.close();
    }
  }, 90_000);

  it('delivers an event committed in one service, Avro-encoded through Kafka, to another service that applies it once', async () => {
    const r = relay(producer, bus);
    r.start();
    await writeEvent(producer, tenantEvent('ten_k1', 'Acme'), topic);
    expect(await waitFor(() => appliedCount(consumer, 'ten_k1'), 30_000)).toBe(1);
    await r.stop();
    const delivered = deliveries.find((m) => m.key === 'ten_k1');
    expect(delivered?.headers['event-type']).toBe('gateway.tenant-changed.v1');
    expect(await unsentCount(producer)).toBe(0);
  });

  it('runs each round as one statement without BEGIN and COMMIT while its lease is held: the read, and with it the mark of the rows published the round before', async () => {
    const r = relay(producer, bus);
    const statements: string[] = [];
    const count = (q: { sql: string }) =>
      statements.push((/^\s*(\w+)/.exec(q.sql)?.[1] ?? '?').toLowerCase());
    const round = async () => {
      statements.length = 0;
      const published = await r.runOnce();
      return { published, statements: [...statements] };
    };
    producer.knex.on('query', count);
    try {
      expect((await round()).statements).toContain('begin'); // the first round claims the lease: a write
      expect(await round()).toEqual({ published: 0, statements: ['select'] });
      await writeEvent(producer, tenantEvent('ten_k0', 'Acme'), topic);
      expect(await round()).toEqual({ published: 1, statements: ['select'] });
      // The next round marks the published row sent and looks for more, in one statement.
      expect(await round()).toEqual({ published: 0, statements: ['with'] });
      expect(await unsentCount(producer)).toBe(0);
    } finally {
      producer.knex.off('query', count);
      await r.stop();
    }
  });

  it('loses nothing and applies nothing twice when the relay dies between publishing and marking sent', async () => {
    await writeEvent(producer, tenantEvent('ten_k2', 'Acme'), topic);
    const r = relay(producer, crashAfterPublish(bus));
    await expect(r.runOnce()).rejects.toThrow('relay crashed');
    expect(await r.runOnce()).toBe(1);
    await waitFor(
      () => (deliveries.filter((m) => m.key === 'ten_k2').length >= 2 ? true : undefined),
      30_000,
      'the second delivery',
    );
    expect(await appliedCount(consumer, 'ten_k2')).toBe(1);
    await r.stop();
  });

  it('publishes nothing for a rolled-back transaction', async () => {
    await expect(
      producer.tx(async (trx) => {
        await enqueue(producer, trx, [
          {
            ...outboxMessage('gateway.tenant-changed.v1', 'ten_k3', tenantEvent('ten_k3', 'x')),
            topic,
          },
        ]);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    const r = relay(producer, bus);
    expect(await r.runOnce()).toBe(0);
    await r.stop();
  });

  it('does not skip a transaction that commits after a later one (pg_snapshot_xmin)', async () => {
    const r = relay(producer, bus);
    // Transaction A writes first (its xid, lower) and stays open while B writes and commits. Its outbox row
    // is inserted at its commit (insertAtCommit), so its first write is another: what it did before emitting.
    let commitA!: () => void;
    const aOpen = new Promise<void>((resolve) => (commitA = resolve));
    let aWritten!: () => void;
    const aHasWritten = new Promise<void>((resolve) => (aWritten = resolve));
    const a = producer.tx(async (trx) => {
      await trx.raw('select pg_current_xact_id()');
      await enqueue(producer, trx, [
        {
          ...outboxMessage(
            'gateway.tenant-changed.v1',
            'ten_late',
            tenantEvent('ten_late', 'late'),
          ),
          topic,
        },
      ]);
      aWritten();
      await aOpen;
    });
    await aHasWritten;
    await writeEvent(producer, tenantEvent('ten_early', 'early'), topic);
    // While A is open, nothing from A's snapshot horizon on is published: B waits, A is not skipped.
    expect(await r.runOnce()).toBe(0);
    commitA();
    await a;
    expect(await r.runOnce()).toBe(2);
    expect(await waitFor(() => appliedCount(consumer, 'ten_late'), 30_000)).toBe(1);
    expect(await waitFor(() => appliedCount(consumer, 'ten_early'), 30_000)).toBe(1);
    await r.stop();
  });

  it('never publishes a row before a lower id that is not yet visible: two events of one key keep their order', async () => {
    // Proves issue 16 item 7. Transaction 1 takes its xid first but writes last (the higher id); transaction 3
    // takes its xid last and writes first (the lower id) and commits; transaction 2, between them, stays open.
    // Row H (xid 1 < xmin) is visible, row L (xid 3 >= xmin) is not: publishing H now would put the second
    // event of the key on Kafka before the first.
    const published: string[] = [];
    const observed = Object.create(bus) as KafkaBus;
    observed.publish = async (messages) => {
      published.push(
        ...messages
          .filter((m) => m.key === 'ten_order')
          .map((m) => decodeEvent('gateway.tenant-changed.v1', m.value).name),
      );
      return bus.publish(messages);
    };
    const r = relay(producer, observed);
    const gate = () => {
      let open!: () => void;
      const opened = new Promise<void>((resolve) => (open = resolve));
      return { open, opened };
    };
    const t1HasXid = gate();
    const t1Write = gate();
    const t2HasXid = gate();
    const t2End = gate();
    const t1 = producer.tx(async (trx) => {
      await trx.raw('select pg_current_xact_id()');
      t1HasXid.open();
      await t1Write.opened;
      await enqueue(producer, trx, [
        {
          ...outboxMessage(
            'gateway.tenant-changed.v1',
            'ten_order',
            tenantEvent('ten_order', 'second'),
          ),
          topic,
        },
      ]);
    });
    await t1HasXid.opened;
    const t2 = producer.tx(async (trx) => {
      await trx.raw('select pg_current_xact_id()');
      t2HasXid.open();
      await t2End.opened;
    });
    await t2HasXid.opened;
    await writeEvent(producer, tenantEvent('ten_order', 'first'), topic);
    t1Write.open();
    await t1;
    try {
      expect(await r.runOnce()).toBe(0);
      expect(published).toEqual([]);
    } finally {
      t2End.open();
      await t2;
    }
    expect(await r.runOnce()).toBe(2);
    expect(published).toEqual(['first', 'second']);
    await r.stop();
  });

  it('publishes a row held back by an older open transaction soon after that transaction ends, not at the next poll', async () => {
    // A poll interval far longer than the test: only the relay's own retry can publish in time.
    const r = new OutboxRelay({ db: producer, bus, pollIntervalMs: 60_000 });
    r.start();
    try {
      let endA!: () => void;
      const aOpen = new Promise<void>((resolve) => (endA = resolve));
      let aStarted!: () => void;
      const aHasXid = new Promise<void>((resolve) => (aStarted = resolve));
      const a = producer.tx(async (trx) => {
        await trx.raw('select pg_current_xact_id()'); // holds the snapshot horizon, writes nothing
        aStarted();
        await aOpen;
      });
      await aHasXid;
      await writeEvent(producer, tenantEvent('ten_horizon', 'held'), topic);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(await appliedCount(consumer, 'ten_horizon')).toBeUndefined();
      endA();
      await a;
      expect(await waitFor(() => appliedCount(consumer, 'ten_horizon'), 15_000)).toBe(1);
    } finally {
      await r.stop();
    }
  });

  it('loses nothing when the broker stops and starts while events are being written', async () => {
    const r = relay(producer, bus);
    r.start();
    try {
      const ids = Array.from({ length: 30 }, (_, i) => `ten_bounce_${i}`);
      for (const id of ids.slice(0, 10))
        await writeEvent(producer, tenantEvent(id, 'before'), topic);
      execFileSync(join(KAFKA_TOOLS, 'stop'), { stdio: 'inherit' });
      try {
        for (const id of ids.slice(10, 20))
          await writeEvent(producer, tenantEvent(id, 'while down'), topic);
      } finally {
        execFileSync(join(KAFKA_TOOLS, 'start'), {
          stdio: 'inherit',
          env: { ...process.env, KAFKA_KEEP_DATA: '1' },
        });
      }
      for (const id of ids.slice(20)) await writeEvent(producer, tenantEvent(id, 'after'), topic);
      for (const id of ids)
        expect(await waitFor(() => appliedCount(consumer, id), 90_000, `event of ${id}`)).toBe(1);
    } finally {
      await r.stop();
    }
    expect(await unsentCount(producer)).toBe(0);
  }, 180_000);

  it('applies a new batch of a consumer that only defers its writes as one statement, without BEGIN; a redelivery changes nothing', async () => {
    const handle = inboxHandler(
      consumer,
      'writes-only',
      async (trx, message) => {
        const event = decodeEvent('gateway.tenant-changed.v1', message.value);
        writeAtCommit(trx, (q) =>
          q('tenants')
            .insert({ tenant_id: event.tenant_id, name: event.name })
            .onConflict('tenant_id')
            .merge({ applied: q.raw('tenants.applied + 1') })
            .toSQL(),
        );
      },
      { writesOnly: true },
    );
    const batch = ['ten_wo_a', 'ten_wo_b'].map((tenantId) => tenantMessage(tenantId, 'W'));
    const sent: string[] = [];
    const listen = (q: { sql: string }) => sent.push(q.sql.trim());
    consumer.knex.on('query', listen);
    try {
      await handle(batch);
    } finally {
      consumer.knex.off('query', listen);
    }
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatch(/^with write_0 as \(insert into "inbox".*\) insert into "tenants"/s);
    await handle(batch);
    expect(
      await Promise.all(['ten_wo_a', 'ten_wo_b'].map((t) => appliedCount(consumer, t))),
    ).toEqual([1, 1]);
  });
});
