import { assert } from '@pgw/domain';
import { retry, type RetryPolicy } from '@pgw/platform-db';
import type { Bus, BusMessage, SubscribeOptions, Subscription } from './bus';
import { recordDelivered } from './bus-metrics';
import { publishWithSpans, withMessagingSystem } from './messaging-spans';

interface Delivery {
  messages: BusMessage[];
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** A delivery whose handler throws is tried again, as a Kafka consumer would, then rejected to its publisher. */
const DELIVERY_RETRY: RetryPolicy = { attemptsMax: 3, baseMs: 50, capMs: 200, totalMs: 1_000 };
/** The `messaging.system` of its spans: not a broker of the conventions' list, and not to be taken for Kafka. */
const MESSAGING_SYSTEM = 'in-process';

class Group {
  private readonly queue: Delivery[] = [];
  private running = false;
  stopped = false;

  constructor(readonly options: SubscribeOptions) {}

  deliver(messages: BusMessage[]): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ messages, resolve, reject });
      void this.drain();
    });
  }

  // One delivery at a time per group, in publish order: the same ordering guarantee as one Kafka partition.
  private async drain(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      for (
        let delivery = this.queue.shift();
        delivery !== undefined;
        delivery = this.queue.shift()
      ) {
        if (this.stopped) {
          delivery.reject(new Error(`subscription ${this.options.groupId} stopped`));
          continue;
        }
        this.recordDelivered(delivery);
        await retry(
          DELIVERY_RETRY,
          () => withMessagingSystem(MESSAGING_SYSTEM, () => this.options.handle(delivery.messages)),
          { retryable: () => true },
        ).then(delivery.resolve, delivery.reject);
      }
    } finally {
      this.running = false;
    }
  }

  /** Its messages consumed, and the lag: what is still queued for this group on each of their topics. */
  private recordDelivered(delivery: Delivery): void {
    const sizes = new Map<string, number>();
    for (const m of delivery.messages) sizes.set(m.topic, (sizes.get(m.topic) ?? 0) + 1);
    for (const [topic, size] of sizes) {
      const lag = this.queue.reduce(
        (n, queued) => n + queued.messages.filter((m) => m.topic === topic).length,
        0,
      );
      recordDelivered({
        system: MESSAGING_SYSTEM,
        group: this.options.groupId,
        topic,
        partition: 0,
        size,
        lag,
      });
    }
  }
}

/**
 * The all-in-one mode's broker. `publish` resolves only after every subscribed group has applied the
 * messages, so the outbox relay marks a row sent only once its consumers committed their effect: the
 * outbox in the embedded database is then the only durable log needed, and a crash loses nothing.
 * A group that keeps failing makes `publish` reject; the relay tries again later and the inboxes of the
 * groups that had already applied the messages drop the repeats. A service's consumers park an event they
 * cannot apply (dead-letters.ts), so such an event holds the producer's relay until it is parked, not for good.
 */
export class InProcessBus implements Bus {
  private readonly groups = new Map<string, Group>();
  /** The next offset of each topic's one partition, as Kafka would number it. */
  private readonly offsets = new Map<string, number>();

  async publish(published: BusMessage[]): Promise<void> {
    await publishWithSpans(MESSAGING_SYSTEM, published, (traced) => this.deliver(traced));
  }

  private async deliver(published: BusMessage[]): Promise<void> {
    const messages = published.map((m) => {
      const offset = this.offsets.get(m.topic) ?? 0;
      this.offsets.set(m.topic, offset + 1);
      return { ...m, partition: 0, offset: String(offset) };
    });
    const byGroup = new Map<Group, BusMessage[]>();
    for (const message of messages) {
      for (const group of this.groups.values()) {
        if (!group.options.topics.includes(message.topic)) continue;
        const list = byGroup.get(group) ?? [];
        list.push(message);
        byGroup.set(group, list);
      }
    }
    await Promise.all([...byGroup].map(([group, list]) => group.deliver(list)));
  }

  async subscribe(options: SubscribeOptions): Promise<Subscription> {
    assert(!this.groups.has(options.groupId), 'in-process-bus.group-subscribed-once', {
      group: options.groupId,
    });
    const group = new Group(options);
    this.groups.set(options.groupId, group);
    return {
      stop: async () => {
        group.stopped = true;
        this.groups.delete(options.groupId);
      },
    };
  }

  async close(): Promise<void> {
    for (const group of this.groups.values()) group.stopped = true;
    this.groups.clear();
  }
}
