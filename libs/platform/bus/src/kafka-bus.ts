import {
  Kafka,
  logLevel,
  Partitioners,
  type Consumer,
  type ICustomPartitioner,
  type Producer,
  type IHeaders,
} from 'kafkajs';
import { setTimeout as sleep } from 'node:timers/promises';
import { backoffMs, retry, type RetryPolicy } from '@pgw/platform-db';
import type { Bus, BusMessage, SubscribeOptions, Subscription } from './bus';
import { recordDelivered } from './bus-metrics';
import { publishWithSpans, withMessagingSystem } from './messaging-spans';
import { OffsetCommits } from './offset-commits';

export interface KafkaBusOptions {
  brokers: string[];
  clientId: string;
  /** Partitions of the topics this bus creates; keys spread over them. */
  partitions?: number;
  /** Replicas of the topics this bus creates: 1 on a single broker, 3 in production. An existing topic with fewer is refused. */
  replicationFactor?: number;
  /** `min.insync.replicas` of the topics this bus creates: 2 in production, so an acks=all write survives one broker lost. */
  minInsyncReplicas?: number;
  /**
   * Topics this bus creates with `cleanup.policy=compact`: state streams (the directory) whose last message
   * per key is all a new consumer needs, kept for as long as the topic lives instead of for a retention period.
   */
  compactedTopics?: readonly string[];
  log?: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
  /** How long one request to a broker may take, in ms (10 000); a test that pauses a broker shortens it. */
  requestTimeoutMs?: number;
  /** How many times the client retries a failed request before the call fails (5). */
  retries?: number;
  /** How long a consumer's applied offsets wait to be committed, in ms (1 000): a member that dies reads at most this much again. */
  commitIntervalMs?: number;
  /**
   * How long a consumer waits after a small batch before it fetches again, in ms (0: it fetches at once).
   * Under load, a fetch then brings the events of that many ms together: fewer fetches for the broker and
   * fewer transactions for the consumer (one per batch), for at most that much more lag per hop.
   */
  consumerLingerMs?: number;
}

// Every timeout and retry is set here, not taken on trust from the client's defaults: a publish fails
// within about 30 s at worst, and the outbox relay tries again later with its own back-off.
const CONNECTION_TIMEOUT_MS = 3_000;
const REQUEST_TIMEOUT_MS = 10_000;
const SEND_TIMEOUT_MS = 10_000;
const HEALTH_CACHE_MS = 5_000;
const RETRY = { initialRetryTime: 200, maxRetryTime: 5_000, retries: 5 };
/** A topic's creation, while the broker's metadata lags behind its controller (see ensureTopics). */
const TOPIC_RETRY: RetryPolicy = { attemptsMax: 10, baseMs: 200, capMs: 2_000, totalMs: 10_000 };
/** A consumer kafkajs gave up on is started again until it runs or the subscription stops: no bound, by design. */
const CONSUMER_RESTART: RetryPolicy = {
  attemptsMax: Infinity,
  baseMs: 400,
  capMs: RETRY.maxRetryTime,
  totalMs: Infinity,
};
const SESSION_TIMEOUT_MS = 10_000;
const HEARTBEAT_INTERVAL_MS = 1_000;
/** A batch this large says the consumer is behind: it fetches again at once, whatever the linger. */
const LINGER_BATCH_MAX = 32;
const STALE_METADATA = new Set(['UNKNOWN_TOPIC_OR_PARTITION', 'LEADER_NOT_AVAILABLE']);

/** A started consumer and the offsets it has yet to commit. */
interface Running {
  consumer: Consumer;
  commits: OffsetCommits;
}

function headersToStrings(headers: IHeaders | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value === undefined) continue;
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined)
      out[name] = Buffer.isBuffer(first) ? first.toString('utf8') : String(first);
  }
  return out;
}

/** One JSON line per warning on stderr (pino's shape), for the services that give the bus no logger. */
function stderrLog(service: string): NonNullable<KafkaBusOptions['log']> {
  const line = (level: number) => (obj: object, msg: string) => {
    const err = (obj as { err?: unknown }).err;
    const fields =
      err instanceof Error ? { ...obj, err: { type: err.name, message: err.message } } : obj;
    process.stderr.write(
      `${JSON.stringify({ level, time: Date.now(), service, ...fields, msg })}\n`,
    );
  };
  return { warn: line(40), error: line(50) };
}

/**
 * The part of a message key that chooses its partition: the text before the first `/`, or the whole key.
 * A key `ten_1/seller_2` keeps every message of tenant ten_1 on one partition, in order, while compaction
 * keeps the last message of each `ten_1/seller_2`; a key without `/` (a charge id) is its own partition key.
 */
export function partitionKeyOf(key: string): string {
  const slash = key.indexOf('/');
  return slash === -1 ? key : key.slice(0, slash);
}

/** Kafka's default (Java-compatible murmur2) partitioner over the partition key of `partitionKeyOf`. */
const partitionByKeyPrefix: ICustomPartitioner = () => {
  const byKey = Partitioners.DefaultPartitioner();
  return ({ topic, partitionMetadata, message }) => {
    const key =
      message.key === null || message.key === undefined
        ? message.key
        : partitionKeyOf(message.key.toString());
    return byKey({ topic, partitionMetadata, message: { ...message, key } });
  };
};

/**
 * The existing topics whose replication factor (the fewest replicas of any partition) is below the configured
 * one, as one line each: a service refuses to use them rather than run on fewer copies than it was told.
 */
export function topicsBelowReplication(
  existing: ReadonlyArray<{
    name: string;
    partitions: ReadonlyArray<{ replicas: readonly number[] }>;
  }>,
  wanted: number,
): string[] {
  const lines: string[] = [];
  for (const topic of existing) {
    const factor = Math.min(...topic.partitions.map((p) => p.replicas.length));
    if (topic.partitions.length > 0 && factor < wanted)
      lines.push(
        `topic ${topic.name} has replication factor ${factor}, below the configured ${wanted} (KAFKA_REPLICATION_FACTOR)`,
      );
  }
  return lines;
}

export class KafkaBus implements Bus {
  private readonly kafka: Kafka;
  private producer: Producer | null = null;
  private producerReady: Promise<Producer> | null = null;
  private readonly subscriptions = new Set<Subscription>();
  private readonly knownTopics = new Set<string>();
  private readonly log: NonNullable<KafkaBusOptions['log']>;
  private readonly retry: typeof RETRY;

  constructor(private readonly options: KafkaBusOptions) {
    this.log = options.log ?? stderrLog(options.clientId);
    this.retry = { ...RETRY, retries: options.retries ?? RETRY.retries };
    this.kafka = new Kafka({
      clientId: options.clientId,
      brokers: options.brokers,
      connectionTimeout: CONNECTION_TIMEOUT_MS,
      requestTimeout: options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS,
      retry: this.retry,
      logLevel: logLevel.NOTHING,
    });
  }

  /** Creates the topics that do not exist yet, with the configured partitions, and waits for their leaders. */
  async ensureTopics(topics: string[]): Promise<void> {
    const missing = topics.filter((t) => !this.knownTopics.has(t));
    if (missing.length === 0) return;
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      await retry(
        TOPIC_RETRY,
        async () => {
          const existing = new Set(await admin.listTopics());
          const present = missing.filter((t) => existing.has(t));
          if (present.length > 0) {
            const below = topicsBelowReplication(
              (await admin.fetchTopicMetadata({ topics: present })).topics,
              this.options.replicationFactor ?? 1,
            );
            if (below.length > 0)
              throw new Error(
                `${below.join('; ')}: raise it (kafka-reassign-partitions) or lower the setting`,
              );
          }
          const create = missing.filter((t) => !existing.has(t));
          if (create.length > 0) {
            await admin.createTopics({
              waitForLeaders: true,
              topics: create.map((topic) => ({
                topic,
                numPartitions: this.options.partitions ?? 3,
                replicationFactor: this.options.replicationFactor ?? 1,
                configEntries: [
                  {
                    name: 'min.insync.replicas',
                    value: String(this.options.minInsyncReplicas ?? 1),
                  },
                  ...((this.options.compactedTopics ?? []).includes(topic)
                    ? [{ name: 'cleanup.policy', value: 'compact' }]
                    : []),
                ],
              })),
            });
          }
        },
        // On a KRaft broker the controller acknowledges a new topic before the broker's metadata has it:
        // kafkajs's wait for the leaders then gets "does not host this topic-partition" and gives up.
        { retryable: (error) => STALE_METADATA.has((error as { type?: string }).type ?? '') },
      );
      for (const t of missing) this.knownTopics.add(t);
    } finally {
      await admin.disconnect();
    }
  }

  private getProducer(): Promise<Producer> {
    if (this.producerReady === null) {
      const producer = this.kafka.producer({
        idempotent: true, // the broker drops the retried duplicates of one producer session
        createPartitioner: partitionByKeyPrefix,
        maxInFlightRequests: 1,
        allowAutoTopicCreation: false,
        retry: this.retry,
      });
      this.producerReady = producer.connect().then(
        () => {
          this.producer = producer;
          return producer;
        },
        (error: unknown) => {
          this.producerReady = null;
          throw error;
        },
      );
    }
    return this.producerReady;
  }

  private lastHealthyAtMs = 0;

  /**
   * Asks the cluster for its brokers, at most once per HEALTH_CACHE_MS: probes every few seconds from
   * every replica must not turn into a stream of admin connections.
   */
  async checkHealth(): Promise<void> {
    if (Date.now() - this.lastHealthyAtMs < HEALTH_CACHE_MS) return;
    const admin = this.kafka.admin({ retry: { retries: 0 } });
    try {
      await admin.connect();
      await admin.describeCluster();
      this.lastHealthyAtMs = Date.now();
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  }

  async publish(messages: BusMessage[]): Promise<void> {
    if (messages.length === 0) return;
    await this.ensureTopics([...new Set(messages.map((m) => m.topic))]);
    const producer = await this.getProducer();
    try {
      await publishWithSpans('kafka', messages, async (traced) => {
        const byTopic = new Map<string, BusMessage[]>();
        for (const m of traced) byTopic.set(m.topic, [...(byTopic.get(m.topic) ?? []), m]);
        await producer.sendBatch({
          acks: -1,
          timeout: SEND_TIMEOUT_MS,
          topicMessages: [...byTopic].map(([topic, list]) => ({
            topic,
            messages: list.map((m) => ({ key: m.key, value: m.value, headers: m.headers })),
          })),
        });
      });
    } catch (error) {
      this.dropProducer(producer);
      throw error;
    }
  }

  /**
   * A failed send ends the producer's session: the next publish starts one with a new producer id. kafkajs
   * gives a failed batch's sequence numbers back even when the broker wrote it (a send that timed out, the
   * broker paused or stopping): the session's next batch then starts below the broker's last sequence and
   * is refused with OUT_OF_ORDER_SEQUENCE_NUMBER, as is every one after it, and kafkajs never renews the
   * id (nor after UNKNOWN_PRODUCER_ID). The outbox relay sends the failed batch again in the new session;
   * what the broker had written of it arrives twice and the consumers' inboxes drop the repeat.
   */
  private dropProducer(producer: Producer): void {
    if (this.producer !== producer) return; // a concurrent failure dropped it already
    this.producer = null;
    this.producerReady = null;
    void producer.disconnect().catch(() => undefined);
  }

  async subscribe(options: SubscribeOptions): Promise<Subscription> {
    await this.ensureTopics(options.topics);
    let stopped = false;
    let current = await this.startConsumer(options, () => stopped);
    let restarting: Promise<void> | null = null;
    // kafkajs restarts a crashed consumer only when the cause is retriable; a crash it does not restart
    // (a non-retriable error, or one without cause, after a broker stop) leaves the group without this
    // member for good, and its events unread. This consumer is then replaced, until it starts again.
    const supervise = ({ consumer, commits }: Running) => {
      consumer.on(
        consumer.events.CRASH,
        (event: { payload: { error: Error; restart: boolean } }) => {
          const { error, restart } = event.payload;
          this.log.warn(
            { err: error, group: options.groupId, restart },
            restart
              ? 'kafka consumer crashed, kafkajs restarts it'
              : 'kafka consumer crashed, replacing it',
          );
          if (restart || stopped || restarting !== null) return;
          restarting = (async () => {
            // Its uncommitted offsets are read again by the consumer that replaces it; the inbox drops them.
            commits.stop();
            await consumer.disconnect().catch(() => undefined);
            await sleep(backoffMs(CONSUMER_RESTART, 0));
            if (stopped) return;
            await retry(
              CONSUMER_RESTART,
              async () => {
                current = await this.startConsumer(options, () => stopped);
                supervise(current);
                if (stopped) await current.consumer.disconnect();
              },
              {
                retryable: () => !stopped,
                stopped: () => stopped,
                onRetry: (err, attempt) =>
                  this.log.warn(
                    { err, group: options.groupId, attempt },
                    'kafka consumer could not start again, retrying',
                  ),
              },
              // It ends in an error only once the subscription stopped: nothing is left to start.
            ).catch(() => undefined);
          })().finally(() => {
            restarting = null;
          });
        },
      );
    };
    supervise(current);
    const subscription: Subscription = {
      stop: async () => {
        stopped = true;
        this.subscriptions.delete(subscription);
        await restarting;
        // What was applied is committed while this member still holds its partitions; a batch that ends
        // after this commits itself (see eachBatch).
        await current.commits.flush();
        await current.consumer.disconnect();
        current.commits.stop();
      },
    };
    this.subscriptions.add(subscription);
    return subscription;
  }

  private async startConsumer(
    options: SubscribeOptions,
    stopping: () => boolean,
  ): Promise<Running> {
    const consumer = this.kafka.consumer({
      groupId: options.groupId,
      // A member that died (kill -9) holds its partitions until its session expires: the replica that
      // replaces it waits that long to join. Heartbeats go out between batches, at most every second.
      sessionTimeout: SESSION_TIMEOUT_MS,
      heartbeatInterval: HEARTBEAT_INTERVAL_MS,
      rebalanceTimeout: 30_000,
      // A fetch returns as soon as one message arrives (minBytes 1): the wait bounds only idle polling, which
      // at 50 ms cost every consumer 20 fetches a second (a third of the services' idle CPU).
      maxWaitTimeInMs: 500,
      allowAutoTopicCreation: false,
      // A consumer that crashed (broker gone, handler failing) restarts after the back-off above; the
      // offsets it did not commit are read again and the inbox drops what was already applied.
      retry: this.retry,
    });
    const commits = new OffsetCommits(
      (offsets) => consumer.commitOffsets(offsets),
      this.options.commitIntervalMs ?? 1_000,
      (err, offsets) =>
        this.log.warn(
          { err, group: options.groupId, offsets },
          'kafka offsets not committed, trying again',
        ),
    );
    // A rebalance may hand this member's partitions to another: commit first (best effort, the request
    // goes ahead of the re-join), then forget the partitions it lost.
    consumer.on(consumer.events.REBALANCING, () => void commits.flush());
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) =>
      commits.assign(payload.memberAssignment),
    );
    // One fetch brings a batch per partition; the consumer lingers once per fetch, after its first batch
    // (the others are in memory already: a linger after each would add up).
    const lingerMs = this.options.consumerLingerMs ?? 0;
    let fetches = 0;
    let lingered = 0;
    consumer.on(consumer.events.FETCH_START, () => {
      fetches += 1;
    });
    try {
      await consumer.connect();
      await consumer.subscribe({ topics: options.topics, fromBeginning: true });
      await consumer.run({
        // kafkajs's auto-commit sends a commit after every batch; OffsetCommits sends one per interval.
        autoCommit: false,
        eachBatchAutoResolve: false,
        eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale }) => {
          if (!isRunning() || isStale() || batch.messages.length === 0) return;
          const messages: BusMessage[] = batch.messages.map((m) => ({
            topic: batch.topic,
            key: m.key?.toString('utf8') ?? '',
            value: m.value ?? Buffer.alloc(0),
            headers: headersToStrings(m.headers),
            partition: batch.partition,
            offset: m.offset,
          }));
          // Growing lag means the group cannot keep up, or is stuck on a failing event.
          recordDelivered({
            system: 'kafka',
            group: options.groupId,
            topic: batch.topic,
            partition: batch.partition,
            size: messages.length,
            lag: Number(batch.offsetLag()),
          });
          await withMessagingSystem('kafka', () => options.handle(messages));
          const last = batch.messages[batch.messages.length - 1];
          if (last !== undefined) {
            resolveOffset(last.offset);
            commits.applied(batch.topic, batch.partition, last.offset);
          }
          // Stopping: commit before the member leaves the group, or the next member applies this again.
          if (!isRunning() || stopping()) await commits.flush();
          else if (lingerMs > 0 && lingered !== fetches && messages.length < LINGER_BATCH_MAX) {
            lingered = fetches;
            await sleep(lingerMs);
          }
          await heartbeat();
        },
      });
    } catch (error) {
      commits.stop();
      await consumer.disconnect().catch(() => undefined);
      throw error;
    }
    return { consumer, commits };
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.subscriptions].map((s) => s.stop()));
    if (this.producer !== null) await this.producer.disconnect().catch(() => undefined);
    this.producer = null;
    this.producerReady = null;
  }
}
