// Topic creation on the real broker: a topic this bus creates carries the configured min.insync.replicas,
// and a bus configured for more replicas than an existing topic has refuses it with one clear line.
import { ConfigResourceTypes, Kafka, logLevel } from 'kafkajs';
import { integrationEnv, uniqueName } from '@pgw/testing';
import { KafkaBus } from './kafka-bus';

describe('KafkaBus topics on the real broker', () => {
  const env = integrationEnv();
  const admin = new Kafka({ clientId: 'topics-int', brokers: env.kafkaBrokers, logLevel: logLevel.NOTHING }).admin();
  const buses: KafkaBus[] = [];
  const bus = (options: { replicationFactor: number; minInsyncReplicas?: number }) => {
    const b = new KafkaBus({ brokers: env.kafkaBrokers, clientId: uniqueName('topics'), partitions: 2, ...options });
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
    const configs = await admin.describeConfigs({ includeSynonyms: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configNames: ['min.insync.replicas'] }] });
    expect(configs.resources[0]?.configEntries.find((e) => e.configName === 'min.insync.replicas')?.configValue).toBe('1');
  });

  it('refuses an existing topic whose replication factor is below the configured one, naming it', async () => {
    // Proves a service configured for 3 replicas does not run on a topic kept on 1.
    const topic = uniqueName('int.topics');
    await bus({ replicationFactor: 1 }).ensureTopics([topic]);
    await expect(bus({ replicationFactor: 3 }).ensureTopics([topic])).rejects.toThrow(`topic ${topic} has replication factor 1, below the configured 3 (KAFKA_REPLICATION_FACTOR)`);
  });
});
