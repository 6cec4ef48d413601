// A consumer's offsets on the real broker: committed once per interval (not after every batch), at stop before
// the member leaves, and where a new member of the group resumes.
import { Kafka, logLevel } from 'kafkajs';
import { integrationEnv, uniqueName, waitFor } from '@pgw/testing';
import type { BusMessage } from './bus';
import { KafkaBus } from './kafka-bus';

describe('KafkaBus offsets', () => {
  const env = integrationEnv();
  const kafka = new Kafka({
    clientId: uniqueName('offsets-admin'),
    brokers: env.kafkaBrokers,
    logLevel: logLevel.NOTHING,
  });
  const admin = kafka.admin();
  const bus = new KafkaBus({ brokers: env.kafkaBrokers, clientId: uniqueName('offsets') });
  beforeAll(() => admin.connect());
  afterAll(async () => {
    await bus.close();
    await admin.disconnect();
  });

  /** The group's committed offsets summed over the topic's partitions: messages it will not read again. */
  const committed = async (groupId: string, topic: string) =>
    (await admin.fetchOffsets({ groupId, topics: [topic] }))[0]!.partitions.reduce(
      (n, p) => n + Math.max(0, Number(p.offset)),
      0,
    );
  const publish = (topic: string, keys: string[]) =>
    bus.publish(keys.map((key) => ({ topic, key, value: Buffer.from(key), headers: {} })));

  const subscribe = (bus: KafkaBus, groupId: string, topic: string, into: BusMessage[]) =>
    bus.subscribe({ groupId, topics: [topic], handle: async (batch) => void into.push(...batch) });
  const read = (from: BusMessage[], n: number) =>
    waitFor(() => (from.length >= n ? true : undefined), 30_000, `${n} messages read`);

  it('commits once per interval, not after every batch, and what is applied when it stops; a new member resumes after it', async () => {
    const slow = new KafkaBus({
      brokers: env.kafkaBrokers,
      clientId: uniqueName('offsets'),
      commitIntervalMs: 60_000,
    });
    const topic = uniqueName('int.offsets');
    const groupId = uniqueName('offsets-group');
    try {
      const received: BusMessage[] = [];
      const subscription = await subscribe(slow, groupId, topic, received);
      // Five batches of one message each (each published once the last was read).
      for (let i = 0; i < 5; i++) {
        await publish(topic, [`k${i}`]);
        await read(received, i + 1);
      }
      expect(await committed(groupId, topic)).toBe(0); // the interval has not passed
      await subscription.stop();
      expect(await committed(groupId, topic)).toBe(5);

      await publish(topic, ['k5']);
      const again: BusMessage[] = [];
      const next = await subscribe(slow, groupId, topic, again);
      try {
        await read(again, 1);
        await new Promise((r) => setTimeout(r, 500));
        expect(again.map((m) => m.key)).toEqual(['k5']);
      } finally {
        await next.stop();
      }
    } finally {
      await slow.close();
    }
  });

  it('commits what was applied within its interval (one second) while the member keeps running', async () => {
    const topic = uniqueName('int.offsets');
    const groupId = uniqueName('offsets-group');
    const received: BusMessage[] = [];
    const subscription = await subscribe(bus, groupId, topic, received);
    try {
      await publish(topic, ['a', 'b', 'c']);
      await read(received, 3);
      await waitFor(
        async () => ((await committed(groupId, topic)) === 3 ? true : undefined),
        5_000,
        'the offsets committed',
      );
    } finally {
      await subscription.stop();
    }
  });
});
