// A send the broker wrote but never answered, on a broker of its own (paused with SIGSTOP, as a broker that
// stalls or is stopping): the outbox relay's next round, which sends that batch again with the rows that came
// after it, must reach Kafka. kafkajs gives the unanswered batch's sequence numbers back, so in the same
// idempotent session the broker refuses that next batch, and every later one, with OUT_OF_ORDER_SEQUENCE_NUMBER:
// in CI (27 Nov 2026) the fault run's charges relay stopped this way after a 10 s broker stop, 866 events unsent.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { KafkaBus } from '@pgw/platform-bus';
import { uniqueName } from '@pgw/testing';
import { privateKafka, type PrivateKafka } from './infra';

const PORT = 19392;

describe('KafkaBus after a send the broker wrote but never answered', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pgw-producer-session-'));
  let kafka: PrivateKafka;
  let admin: Admin;
  let bus: KafkaBus;

  beforeAll(async () => {
    kafka = privateKafka(dir, PORT);
    await kafka.start(false);
    admin = new Kafka({
      clientId: 'producer-session',
      brokers: [kafka.brokers],
      logLevel: logLevel.NOTHING,
    }).admin();
    await admin.connect();
    // Short client timeouts, so the paused send fails in seconds rather than after the default minute.
    bus = new KafkaBus({
      brokers: [kafka.brokers],
      clientId: uniqueName('producer-session'),
      partitions: 1,
      requestTimeoutMs: 1_500,
      retries: 1,
      log: { warn: () => undefined, error: () => undefined },
    });
  }, 120_000);

  afterAll(async () => {
    await bus?.close();
    await admin?.disconnect();
    await kafka?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('sends the next batch in a new producer session: every message reaches the topic', async () => {
    const topic = uniqueName('int.producer-session');
    const message = (value: string) => ({
      topic,
      key: 'k',
      value: Buffer.from(value),
      headers: {},
    });
    await bus.publish([message('m1'), message('m2')]);

    await kafka.pause();
    try {
      await expect(bus.publish([message('m3')])).rejects.toThrow();
    } finally {
      kafka.resume();
    }
    // The relay's next round: the unsent m3 again, and m4 written since.
    await bus.publish([message('m3'), message('m4')]);

    const consumer = new Kafka({
      clientId: 'producer-session-reader',
      brokers: [kafka.brokers],
      logLevel: logLevel.NOTHING,
    }).consumer({ groupId: uniqueName('producer-session') });
    const values: string[] = [];
    await consumer.connect();
    try {
      await consumer.subscribe({ topics: [topic], fromBeginning: true });
      const high = Number((await admin.fetchTopicOffsets(topic))[0]?.high ?? 0);
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`read ${values.join(',')}`)), 30_000);
        void consumer.run({
          eachMessage: async ({ message: m }) => {
            values.push(m.value?.toString() ?? '');
            if (values.length === high) {
              clearTimeout(timer);
              resolve();
            }
          },
        });
      });
    } finally {
      await consumer.disconnect();
    }
    // Every message in order; m3 twice when the broker wrote the paused send after all (the case that stopped
    // the relay), and the consumers' inboxes drop the repeat.
    expect(values.filter((v) => v !== 'm3')).toEqual(['m1', 'm2', 'm4']);
    expect(values.indexOf('m3')).toBe(2);
  }, 120_000);
});
