import { metrics } from '@opentelemetry/api';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { decodeEvent, outboxMessage } from '@pgw/contracts';
import { assert, observeBrokenInvariants } from '@pgw/domain';
import { createPgliteKnex, insertAtCommit, replaceHalt, sharedDb } from '@pgw/platform-db';
import { statementsDuring, uniqueName } from '@pgw/testing';
import { HEADER_EVENT_ID, HEADER_EVENT_TYPE, type Bus, type BusMessage } from './bus';
import { deadLetterMigration, DeadLetters } from './dead-letters';
import { InProcessBus } from './in-process-bus';
import { inboxHandler } from './inbox';
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

describe('outbox, relay and inbox on the embedded database with the in-process bus', () => {
  const knex = createPgliteKnex(null);
  afterAll(() => knex.destroy());

  async function setup() {
    const producer = sharedDb(knex, uniqueName('producer'));
    const consumer = sharedDb(knex, uniqueName('consumer'));
    const bus = new InProcessBus();
    await prepare({ producer, consumer, bus, topicSuffix: '' });
    const deliveries: BusMessage[] = [];
    const topic = uniqueName('topic');
    await bus.subscribe({
      groupId: 'tenants',
      topics: [topic],
      handle: consumerHandler(consumer, deliveries),
    });
    return { producer, consumer, bus, deliveries, topic };
  }

  it('delivers an event committed in one service to another service, which applies it exactly once', async () => {
    const { producer, consumer, bus, deliveries, topic } = await setup();
    const r = relay(producer, bus);
    r.start();
    await writeEvent(producer, tenantEvent('ten_1', 'Acme'), topic);
    expect(await waitFor(() => appliedCount(consumer, 'ten_1'))).toBe(1);
    await r.stop();
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]?.value).toBeInstanceOf(Buffer);
    expect(await unsentCount(producer)).toBe(0);
  });

  it('loses nothing and applies nothing twice when the relay dies between publishing and marking sent', async () => {
    const { producer, consumer, bus, deliveries, topic } = await setup();
    const crashing = crashAfterPublish(bus);
    await writeEvent(producer, tenantEvent('ten_2', 'Acme'), topic);
    const r = relay(producer, crashing);
    await expect(r.runOnce()).rejects.toThrow('relay crashed');
    expect(await unsentCount(producer)).toBe(1); // still unsent: it will go again
    expect(await r.runOnce()).toBe(1);
    expect(deliveries).toHaveLength(2); // delivered twice...
    expect(await appliedCount(consumer, 'ten_2')).toBe(1); // ...applied once
    await r.stop();
    expect(await unsentCount(producer)).toBe(0);
  });

  it('marks a round’s rows sent in the next round, or at stop, never publishing them twice', async () => {
    // Proves the relay's one transaction per round (issue 18): what a round published is marked by the next.
    const { producer, bus, deliveries, topic } = await setup();
    const r = relay(producer, bus);
    const sentFlags = async () =>
      (
        await producer.read((q) =>
          q('outbox').orderBy('id').select<{ sent_at: Date | null }[]>('sent_at'),
        )
      ).map((row) => row.sent_at !== null);
    await writeEvent(producer, tenantEvent('ten_fold_1', 'Acme'), topic);
    expect(await r.runOnce()).toBe(1);
    expect(await sentFlags()).toEqual([false]); // published, marked by the next round
    await writeEvent(producer, tenantEvent('ten_fold_2', 'Acme'), topic);
    expect(await r.runOnce()).toBe(1);
    expect(await sentFlags()).toEqual([true, false]);
    expect(await r.runOnce()).toBe(0);
    expect(await sentFlags()).toEqual([true, true]);
    await writeEvent(producer, tenantEvent('ten_fold_3', 'Acme'), topic);
    expect(await r.runOnce()).toBe(1);
    await r.stop();
    expect(await sentFlags()).toEqual([true, true, true]);
    expect(deliveries.map((m) => m.key)).toEqual(['ten_fold_1', 'ten_fold_2', 'ten_fold_3']);
  });

  it('lets one relay at a time publish, renews its lease without a write every round, and hands it over on stop', async () => {
    const { producer, consumer, bus, topic } = await setup();
    const a = new OutboxRelay({ db: producer, bus, leaseMs: 60_000 });
    const b = new OutboxRelay({ db: producer, bus, leaseMs: 60_000 });
    const leaseExpiry = async () =>
      String(
        (
          await producer.read((q) =>
            q('outbox_lease').where({ id: 1 }).first<{ expires_at: Date }>(),
          )
        )?.expires_at,
      );
    await writeEvent(producer, tenantEvent('ten_lease_1', 'Acme'), topic);
    expect(await a.runOnce()).toBe(1);
    const firstExpiry = await leaseExpiry();
    await writeEvent(producer, tenantEvent('ten_lease_2', 'Acme'), topic);
    expect(await b.runOnce()).toBe(0); // a holds the lease
    expect(await a.runOnce()).toBe(1);
    expect(await leaseExpiry()).toBe(firstExpiry); // a second round within half the lease did not renew it
    await a.stop();
    await writeEvent(producer, tenantEvent('ten_lease_3', 'Acme'), topic);
    expect(await b.runOnce()).toBe(1); // a's stop handed the lease over without waiting for it to expire
    await b.stop();
    for (const id of ['ten_lease_1', 'ten_lease_2', 'ten_lease_3'])
      expect(await appliedCount(consumer, id)).toBe(1);
  });

  it('reports the backlog of unsent rows from the relay holding the lease only, while the broker refuses them', async () => {
    // Proves outbox.backlog (docs/metrics.md): the rows waiting, counted by one replica, not by each.
    const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
    const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 600_000 });
    const provider = new MeterProvider({ readers: [reader] });
    metrics.setGlobalMeterProvider(provider);
    const { producer, topic } = await setup();
    const down: Bus = {
      publish: async () => {
        throw new Error('broker down');
      },
      subscribe: async () => ({ stop: async () => undefined }),
      close: async () => undefined,
    };
    const backlog = async () => {
      exporter.reset();
      await reader.forceFlush();
      const metric = exporter
        .getMetrics()
        .flatMap((rm) => rm.scopeMetrics.flatMap((sm) => sm.metrics))
        .find((m) => m.descriptor.name === 'outbox.backlog');
      return (metric?.dataPoints ?? [])
        .filter((p) => p.attributes.service === producer.schema)
        .map((p) => p.value);
    };
    const first = relay(producer, down);
    const second = relay(producer, down);
    try {
      for (const name of ['Acme', 'Beta', 'Gama'])
        await writeEvent(producer, tenantEvent(uniqueName('ten'), name), topic);
      first.start();
      await waitFor(async () => ((await backlog()).length > 0 ? true : undefined));
      second.start();
      // The second relay's rounds find the lease taken: one report, of all three rows.
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await backlog()).toEqual([3]);
    } finally {
      await first.stop();
      await second.stop();
      await provider.shutdown();
      metrics.disable();
    }
  });

  it('halts the process, and publishes no more, when a round meets a broken invariant', async () => {
    // Proves the relay follows the policy of docs/engineering.md: a broken invariant stops the process
    // (haltProcess) instead of being logged and tried again next round; the row stays unsent for the next one.
    const { producer, bus, topic } = await setup();
    const halted: unknown[] = [];
    const restoreHalt = replaceHalt((error) => halted.push(error));
    const restoreObserver = observeBrokenInvariants(() => undefined);
    let attempts = 0;
    const broken: Bus = {
      publish: async () => {
        attempts++;
        assert(false, 'test.relay-state');
      },
      subscribe: bus.subscribe.bind(bus),
      close: bus.close.bind(bus),
    };
    const r = relay(producer, broken);
    try {
      await writeEvent(producer, tenantEvent('ten_9', 'Acme'), topic);
      r.start();
      await waitFor(async () => (halted.length > 0 ? true : undefined));
      await new Promise((resolve) => setTimeout(resolve, 100)); // five poll intervals
      expect(halted).toEqual([expect.objectContaining({ invariant: 'test.relay-state' })]);
      expect(attempts).toBe(1);
      expect(await unsentCount(producer)).toBe(1);
    } finally {
      await r.stop();
      restoreObserver();
      restoreHalt();
    }
  });

  it('publishes, with lingerMs, what commits during the linger in one round: the consumer gets one batch, not one per commit', async () => {
    const { producer, consumer, bus, topic } = await setup();
    const batches: string[][] = [];
    await bus.subscribe({
      groupId: 'batches',
      topics: [topic],
      handle: async (batch) => void batches.push(batch.map((m) => m.key)),
    });
    const r = new OutboxRelay({ db: producer, bus, pollIntervalMs: 5_000, lingerMs: 300 });
    r.start();
    try {
      await writeEvent(producer, tenantEvent('ten_linger_1', 'One'), topic);
      await waitFor(() => appliedCount(consumer, 'ten_linger_1'));
      // Each commit wakes the relay; the round it wakes waits out the linger, then takes all three.
      for (const t of ['ten_linger_2', 'ten_linger_3', 'ten_linger_4'])
        await writeEvent(producer, tenantEvent(t, 'Later'), topic);
      await waitFor(() => appliedCount(consumer, 'ten_linger_4'));
    } finally {
      await r.stop();
    }
    expect(batches).toEqual([['ten_linger_1'], ['ten_linger_2', 'ten_linger_3', 'ten_linger_4']]);
  });

  it('publishes nothing for a transaction that rolled back', async () => {
    const { producer, bus, deliveries, topic } = await setup();
    await expect(
      producer.tx(async (trx) => {
        const event = tenantEvent('ten_3', 'Nope');
        await enqueue(producer, trx, [
          { ...outboxMessage('gateway.tenant-changed.v1', 'ten_3', event), topic },
        ]);
        throw new Error('business rule failed');
      }),
    ).rejects.toThrow('business rule failed');
    const r = relay(producer, bus);
    expect(await r.runOnce()).toBe(0);
    await r.stop();
    expect(deliveries).toHaveLength(0);
  });

  const message = (tenantId: string): BusMessage => tenantMessage(tenantId, 'Batch');

  it('applies every event of a batch once, with one inbox statement for the batch, when the batch repeats an event or holds one applied before', async () => {
    const { consumer } = await setup();
    const [a, b, c] = [message('ten_a'), message('ten_b'), message('ten_c')];
    const handle = consumerHandler(consumer, []);
    const inboxInserts: string[] = [];
    const count = (q: { sql: string }) => {
      if (/^insert into "inbox"/.test(q.sql)) inboxInserts.push(q.sql);
    };
    knex.on('query', count);
    try {
      await handle([a, b, a]);
      await handle([b, c]);
    } finally {
      knex.off('query', count);
    }
    expect(inboxInserts).toHaveLength(2);
    expect(
      await Promise.all(['ten_a', 'ten_b', 'ten_c'].map((t) => appliedCount(consumer, t))),
    ).toEqual([1, 1, 1]);
  });

  it('applies a batch of new events with no inbox round trip (the ids go in at commit); a redelivery rolls that back and changes nothing', async () => {
    const { consumer } = await setup();
    const handle = consumerHandler(consumer, []);
    const [a, b] = [message('ten_new_a'), message('ten_new_b')];
    const statementsOf = async (batch: BusMessage[]) =>
      (await statementsDuring(knex, () => handle(batch)))
        .map((sql) => sql.trim())
        .filter((sql) => !/^(begin|commit|rollback|set local)/i.test(sql));
    const inboxOf = async () => (await consumer.read((q) => q('inbox').pluck('event_id'))).sort();

    // New: the two effects, then one statement with the inbox's ids; no read of the inbox first.
    const fresh = await statementsOf([a, b]);
    expect(fresh).toHaveLength(3);
    expect(fresh[2]).toMatch(/^insert into "inbox"/);
    expect(fresh[2]).not.toMatch(/on conflict/);
    expect(await inboxOf()).toEqual([a, b].map((m) => m.headers[HEADER_EVENT_ID]).sort());

    // Redelivered with a new one: the first try fails at commit on the inbox's key and rolls back; the
    // batch is applied again reading the inbox first, and only c is new.
    const c = message('ten_new_c');
    const again = await statementsOf([a, b, c]);
    expect(again.filter((sql) => /^insert into "inbox".*on conflict/.test(sql))).toHaveLength(1);
    expect(
      await Promise.all(
        ['ten_new_a', 'ten_new_b', 'ten_new_c'].map((t) => appliedCount(consumer, t)),
      ),
    ).toEqual([1, 1, 1]);

    // An event the consumer cannot apply: both tries roll back, the handler fails, nothing is recorded.
    const bad = {
      ...message('ten_new_d'),
      headers: { ...c.headers, [HEADER_EVENT_ID]: 'ev_bad', [HEADER_EVENT_TYPE]: 'x.unknown.v1' },
    };
    await expect(handle([bad])).rejects.toThrow('unexpected type');
    expect(await inboxOf()).not.toContain('ev_bad');
  });

  it('prepares a writes-only batch with one read before its one write; the careful way, each new message alone, so that the one failing to prepare is the one parked', async () => {
    const { consumer, bus } = await setup();
    await consumer.migrate([deadLetterMigration]);
    const prepared: string[][] = [];
    const tenantOf = (m: BusMessage) => decodeEvent('gateway.tenant-changed.v1', m.value).tenant_id;
    const handle = inboxHandler(
      consumer,
      'prepared',
      () => Promise.reject(new Error('apply is replaced by the prepared one')),
      {
        writesOnly: true,
        deadLetters: new DeadLetters(consumer, 'prepared', {
          service: 'consumer',
          bus,
          knows: () => true,
          isTransient: () => false,
          poisonAttempts: 1,
          poisonAfterMs: 0,
        }),
        prepare: async (q, batch) => {
          const tenants = batch.map(tenantOf);
          prepared.push(tenants);
          if (tenants.includes('ten_prep_poison')) throw new Error('cannot prepare');
          const known = new Set(
            await q('tenants').whereIn('tenant_id', tenants).pluck('tenant_id'),
          );
          return async (unit, message) =>
            insertAtCommit(unit, 'tenants', [
              {
                tenant_id: tenantOf(message),
                name: known.has(tenantOf(message)) ? 'again' : 'new',
              },
            ]);
        },
      },
    );
    const [a, b, c, d, e, poison] = ['a', 'b', 'c', 'd', 'e', 'poison'].map((t) =>
      message(`ten_prep_${t}`),
    ) as [BusMessage, BusMessage, BusMessage, BusMessage, BusMessage, BusMessage];

    const sent = await statementsDuring(knex, () => handle([a, b, c]));
    expect(sent.filter((sql) => !sql.startsWith('set search_path'))).toEqual([
      expect.stringMatching(/^select .* from "tenants" where "tenant_id" in/),
      expect.stringMatching(/^with write_0 as \(insert into "inbox".*\) insert into "tenants"/s),
    ]);
    expect(prepared).toEqual([['ten_prep_a', 'ten_prep_b', 'ten_prep_c']]);

    // a again, with d: the batch fails on the inbox's key; then only d is new, prepared alone.
    prepared.length = 0;
    await handle([a, d]);
    expect(prepared).toEqual([['ten_prep_a', 'ten_prep_d'], ['ten_prep_d']]);

    // The poison message fails to prepare: its failure is counted, not e's; next time it is parked and e applied.
    prepared.length = 0;
    await expect(handle([e, poison])).rejects.toThrow('cannot prepare');
    await handle([e, poison]);
    expect(prepared).toEqual([
      ['ten_prep_e', 'ten_prep_poison'],
      ['ten_prep_e'],
      ['ten_prep_poison'],
      ['ten_prep_e'],
    ]);
    const names = await consumer.read((q) =>
      q('tenants')
        .where('tenant_id', 'like', 'ten_prep_%')
        .orderBy('tenant_id')
        .select('tenant_id', 'name'),
    );
    expect(names).toEqual(
      ['a', 'b', 'c', 'd', 'e'].map((t) => ({ tenant_id: `ten_prep_${t}`, name: 'new' })),
    );
    expect(
      await consumer.read((q) =>
        q('dead_letters').where({ consumer: 'prepared' }).pluck('event_id'),
      ),
    ).toEqual([poison.headers[HEADER_EVENT_ID]]);
  });
});
