// The messaging metrics of docs/metrics.md on the real broker: what the all-in-one's run proves for the
// in-process bus, here for Kafka — sends, messages consumed and the lag left, per group and partition.
import { metrics } from '@opentelemetry/api';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
  type DataPoint,
} from '@opentelemetry/sdk-metrics';
import { integrationEnv, uniqueName, waitFor } from '@pgw/testing';
import type { BusMessage } from './bus';
import { KafkaBus } from './kafka-bus';

describe('messaging metrics on Kafka', () => {
  const env = integrationEnv();
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 600_000 });
  const provider = new MeterProvider({ readers: [reader] });
  const bus = new KafkaBus({
    brokers: env.kafkaBrokers,
    clientId: uniqueName('metrics'),
    partitions: 2,
  });

  beforeAll(() => metrics.setGlobalMeterProvider(provider));
  afterAll(async () => {
    await bus.close();
    await provider.shutdown();
    metrics.disable();
  });

  async function points(name: string): Promise<Array<DataPoint<unknown>>> {
    exporter.reset();
    await reader.forceFlush();
    return (exporter
      .getMetrics()
      .flatMap((rm) => rm.scopeMetrics.flatMap((sm) => sm.metrics))
      .find((m) => m.descriptor.name === name)?.dataPoints ?? []) as Array<DataPoint<unknown>>;
  }

  it('counts the messages sent and consumed, and records the lag per group and partition', async () => {
    // Proves the catalog's Kafka attributes: messaging.system kafka, the topic, the group and the partition id.
    const topic = uniqueName('int.metrics');
    const group = uniqueName('metrics-group');
    const received: BusMessage[] = [];
    const subscription = await bus.subscribe({
      groupId: group,
      topics: [topic],
      handle: async (batch) => void received.push(...batch),
    });
    try {
      await bus.publish(
        ['a', 'b', 'c'].map((key) => ({ topic, key, value: Buffer.from(key), headers: {} })),
      );
      await waitFor(
        () => (received.length === 3 ? true : undefined),
        30_000,
        'three messages consumed',
      );

      const sent = (await points('messaging.client.sent.messages')).filter(
        (p) => p.attributes['messaging.destination.name'] === topic,
      );
      expect(sent.map((p) => [p.attributes, p.value])).toEqual([
        [
          {
            'messaging.system': 'kafka',
            'messaging.destination.name': topic,
            'messaging.operation.name': 'send',
          },
          3,
        ],
      ]);
      const consumed = (await points('messaging.client.consumed.messages')).filter(
        (p) => p.attributes['messaging.destination.name'] === topic,
      );
      expect(consumed.reduce((n, p) => n + (p.value as number), 0)).toBe(3);
      const partitions = new Set(received.map((m) => String(m.partition)));
      expect(
        new Set(consumed.map((p) => p.attributes['messaging.destination.partition.id'])),
      ).toEqual(partitions);
      for (const p of consumed)
        expect(p.attributes).toMatchObject({
          'messaging.system': 'kafka',
          'messaging.consumer.group.name': group,
          'messaging.operation.name': 'process',
        });
      const lag = (await points('consumer.lag')).filter(
        (p) => p.attributes['messaging.consumer.group.name'] === group,
      );
      expect(new Set(lag.map((p) => p.attributes['messaging.destination.partition.id']))).toEqual(
        partitions,
      );
      // Every message read: nothing left on any partition after its last batch.
      expect(lag.map((p) => p.value)).toEqual(lag.map(() => 0));
    } finally {
      await subscription.stop();
    }
  }, 60_000);
});
