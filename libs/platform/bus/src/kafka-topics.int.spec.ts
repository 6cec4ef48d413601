// Topic creation on the real broker: a topic this bus creates carries the configured min.insync.replicas,
// and a bus configured for more replicas than an existing topic has refuses it with one clear line; a state
// stream is compacted, and its `<tenant>/<entity>` keys keep one tenant on one partition.
import { ConfigResourceTypes, Kafka, logLevel } from 'kafkajs';
import { integrationEnv, uniqueName } from '@pgw/testing';
import { KafkaBus } from './kafka-bus';

describe('KafkaBus topics on the real broker', () => {
  const env = integrationEnv();
  const admin = new Kafka({
    clientId: 'topics-int',
    brokers: env.kafkaBrokers,
    logLevel: logLevel.NOTHING,
  }).admin();
  const buses: KafkaBus[] = [];
  const bus = (options: {
    replicationFactor: number;
    minInsyncReplicas?: number;
    compactedTopics?: string[];
  }) => {
    const b = new KafkaBus({
      brokers: env.kafkaBrokers,
      clientId: uniqueName('topics'),
      partitions: 2,
      ...options,
    });
    buses.push(b);
    return b;
  };
  beforeAll(() => admin.connect());
  afterAll(async () => {
    for (const b of buses) await b.close();
    await admin.disconnect();
  });

  it('creates a missing topic with the configured partitions and min.insync.replicas', async () => {
    // Proves the configuration reaches the broker, not only the manifests.
    const topic = uniqueName('int.topics');
    await bus({ replicationFactor: 1, minInsyncReplicas: 1 }).ensureTopics([topic]);
    const metadata = await admin.fetchTopicMetadata({ topics: [topic] });
    expect(metadata.topics[0]?.partitions).toHaveLength(2);
    const configs = await admin.describeConfigs({
      includeSynonyms: false,
      resources: [
        { type: ConfigResourceTypes.TOPIC, name: topic, configNames: ['min.insync.replicas'] },
      ],
    });
    expect(
      configs.resources[0]?.configEntries.find((e) => e.configName === 'min.insync.replicas')
        ?.configValue,
    ).toBe('1');
  });

  it('refuses an existing topic whose replication factor is below the configured one, naming it', async () => {
    // Proves a service configured for 3 replicas does not run on a topic kept on 1.
    const topic = uniqueName('int.topics');
    await bus({ replicationFactor: 1 }).ensureTopics([topic]);
    await expect(bus({ replicationFactor: 3 }).ensureTopics([topic])).rejects.toThrow(
      `topic ${topic} has replication factor 1, below the configured 3 (KAFKA_REPLICATION_FACTOR)`,
    );
  });

  it('creates a compacted topic as compacted, and every other topic with the broker default (delete)', async () => {
    // Proves a new consumer of the directory finds every entity however old, as the runbook promises.
    const compacted = uniqueName('int.topics');
    const plain = uniqueName('int.topics');
    await bus({ replicationFactor: 1, compactedTopics: [compacted] }).ensureTopics([
      compacted,
      plain,
    ]);
    const configs = await admin.describeConfigs({
      includeSynonyms: false,
      resources: [compacted, plain].map((name) => ({
        type: ConfigResourceTypes.TOPIC,
        name,
        configNames: ['cleanup.policy'],
      })),
    });
    const policy = (name: string) =>
      configs.resources
        .find((r) => r.resourceName === name)
        ?.configEntries.find((e) => e.configName === 'cleanup.policy')?.configValue;
    expect(policy(compacted)).toBe('compact');
    expect(policy(plain)).toBe('delete');
  });

  it('puts every `<tenant>/<entity>` key of one tenant on one partition, so that the changes of a tenant stay in order', async () => {
    const topic = uniqueName('int.topics');
    const b = new KafkaBus({
      brokers: env.kafkaBrokers,
      clientId: uniqueName('topics'),
      partitions: 8,
      replicationFactor: 1,
    });
    buses.push(b);
    // Twelve entities of tenant A over eight partitions: hashed by the whole key they would scatter.
    const tenantAKeys = ['ten_A', ...Array.from({ length: 12 }, (_, i) => `ten_A/seller_${i}`)];
    const keys = [...tenantAKeys, 'ten_B/seller_1', 'ten_C/seller_1', 'ten_D/seller_1'];
    await b.publish(keys.map((key) => ({ topic, key, value: Buffer.from(key), headers: {} })));
    const offsets = await admin.fetchTopicOffsets(topic);
    const partitionOf = new Map<string, number>();
    const consumer = new Kafka({
      clientId: 'topics-int',
      brokers: env.kafkaBrokers,
      logLevel: logLevel.NOTHING,
    }).consumer({ groupId: uniqueName('topics') });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      consumer
        .run({
          eachMessage: async ({ partition, message }) => {
            partitionOf.set(message.key!.toString(), partition);
            if (partitionOf.size === keys.length) resolve();
          },
        })
        .catch(reject);
    });
    await consumer.disconnect();
    expect(offsets.reduce((n, o) => n + Number(o.high), 0)).toBe(keys.length);
    const tenantA = new Set(tenantAKeys.map((k) => partitionOf.get(k)));
    expect(tenantA.size).toBe(1);
    // The four tenants do not all share one partition: the key prefix, not a constant, picks it.
    expect(
      new Set(
        ['ten_A', 'ten_B/seller_1', 'ten_C/seller_1', 'ten_D/seller_1'].map((k) =>
          partitionOf.get(k),
        ),
      ).size,
    ).toBeGreaterThan(1);
  });
});
