import { topicsBelowReplication } from './kafka-bus';

describe('topicsBelowReplication', () => {
  const topic = (name: string, ...replicaCounts: number[]) => ({
    name,
    partitions: replicaCounts.map((n) => ({ replicas: Array.from({ length: n }, (_, i) => i) })),
  });

  it('names each existing topic with fewer replicas than configured, judged by its least replicated partition', () => {
    // Proves a service refuses a topic that keeps fewer copies than the deployment asks for.
    expect(
      topicsBelowReplication([topic('a', 3, 3, 3), topic('b', 3, 1, 3), topic('c', 1)], 3),
    ).toEqual([
      'topic b has replication factor 1, below the configured 3 (KAFKA_REPLICATION_FACTOR)',
      'topic c has replication factor 1, below the configured 3 (KAFKA_REPLICATION_FACTOR)',
    ]);
  });

  it('accepts topics at or above the configured factor', () => {
    // Proves a topic with more replicas than asked (or a single broker's topics with factor 1) is used as is.
    expect(topicsBelowReplication([topic('a', 3, 3), topic('b', 1)], 1)).toEqual([]);
    expect(topicsBelowReplication([topic('a', 3, 3)], 2)).toEqual([]);
  });
});
