// A consumer's linger on the real broker: after a small batch it waits before it fetches again, so the
// events published meanwhile come in one batch (one transaction for the consumer, one fetch for the
// broker); and it waits once per fetch, not after each partition's batch (the waits would add up).
import { integrationEnv, uniqueName, waitFor } from '@pgw/testing';
import type { BusMessage } from './bus';
import { KafkaBus } from './kafka-bus';

describe('KafkaBus consumer linger', () => {
  const env = integrationEnv();
  // Long enough that one linger and two are told apart by the clock on a loaded host: with 400 ms, one linger
  // and a busy CI worker's delays measured 633 ms, past the 600 ms (1.5 lingers) that tells one from two.
  const LINGER_MS = 1_000;
  const bus = new KafkaBus({
    brokers: env.kafkaBrokers,
    clientId: uniqueName('linger'),
    consumerLingerMs: LINGER_MS,
  });
  afterAll(() => bus.close());

  const publish = (topic: string, keys: string[]) =>
    bus.publish(keys.map((key) => ({ topic, key, value: Buffer.from(key), headers: {} })));
  /** Each batch handed to the consumer: its values, and when it came. */
  const subscribe = async (topic: string) => {
    const batches: Array<{ values: string[]; atMs: number }> = [];
    const subscription = await bus.subscribe({
      groupId: uniqueName('linger-group'),
      topics: [topic],
      handle: async (batch: BusMessage[]) =>
        void batches.push({ values: batch.map((m) => m.value.toString()), atMs: Date.now() }),
    });
    const read = (n: number) =>
      waitFor(
        () => (batches.flatMap((b) => b.values).length >= n ? true : undefined),
        30_000,
        `${n} messages read`,
      );
    return { batches, subscription, read };
  };

  it('reads the events published while it lingers after a batch in one batch', async () => {
    const topic = uniqueName('int.linger');
    const { batches, subscription, read } = await subscribe(topic);
    try {
      await publish(topic, ['seller-1']); // one key: one partition
      await read(1);
      // Three publishes, three produce requests, each within the linger that follows the first batch.
      for (const key of ['seller-1', 'seller-1', 'seller-1']) await publish(topic, [key]);
      await read(4);
      expect(batches.map((b) => b.values.length)).toEqual([1, 3]);
    } finally {
      await subscription.stop();
    }
  });

  it("lingers once per fetch, not after each partition's batch of it", async () => {
    const topic = uniqueName('int.linger');
    // Published before anyone reads: the first fetch brings a batch for each of the topic's three partitions.
    const keys = Array.from({ length: 30 }, (_, i) => `seller-${i}`);
    await publish(topic, keys);
    const { batches, subscription, read } = await subscribe(topic);
    try {
      await read(keys.length);
      expect(batches.length).toBe(3);
      // One linger between the first batch and the others (one after each batch would be two: 2 × LINGER_MS).
      expect(batches[2]!.atMs - batches[0]!.atMs).toBeLessThan(1.5 * LINGER_MS);
    } finally {
      await subscription.stop();
    }
  });
});
