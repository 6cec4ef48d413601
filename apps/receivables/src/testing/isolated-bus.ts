import type { Bus, BusMessage, SubscribeOptions } from '@pgw/platform-bus';

/**
 * Topics and consumer groups of one integration run only: the broker is shared with other suites, whose
 * events on the real topic names (and committed offsets) must not reach these services. Every topic is
 * prefixed with `prefix`, but `shared` topics with `shared.prefix`: two deployments of one run can read the
 * same stream of charges in groups of their own while each keeps its own receivables → ledger hop.
 */
export class IsolatedBus implements Bus {
  constructor(
    private readonly inner: Bus,
    private readonly prefix: string,
    private readonly shared: { prefix: string; topics: readonly string[] } = { prefix, topics: [] },
  ) {}

  private topic(name: string): string {
    return `${this.shared.topics.includes(name) ? this.shared.prefix : this.prefix}.${name}`;
  }

  publish(messages: BusMessage[]): Promise<void> {
    return this.inner.publish(messages.map((m) => ({ ...m, topic: this.topic(m.topic) })));
  }

  subscribe(options: SubscribeOptions) {
    const names = new Map(options.topics.map((t) => [this.topic(t), t]));
    return this.inner.subscribe({
      groupId: `${this.prefix}.${options.groupId}`,
      topics: [...names.keys()],
      handle: (batch) =>
        options.handle(batch.map((m) => ({ ...m, topic: names.get(m.topic) ?? m.topic }))),
    });
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
