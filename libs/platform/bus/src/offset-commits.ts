/** Where a consumer group resumes on one partition: the offset after the last message applied. */
export interface PartitionOffset {
  topic: string;
  partition: number;
  offset: string;
}

const keyOf = (topic: string, partition: number) => `${topic}\u0000${partition}`;

/**
 * A consumer's offsets, committed at most once per interval rather than after every batch. Each commit is a
 * request and a replicated write on the broker; one per batch was more of the broker's work per charge than
 * the messages themselves. Nothing is lost by waiting: a batch is applied (its inbox transaction committed)
 * before its offset is noted here, so a member that dies before the commit leaves its successor to read
 * that second's messages again, and their inbox drops them.
 *
 * Commits run one at a time, so a failed one never overtakes a later one. A failed commit's offsets stay
 * pending (unless newer ones arrived) for the next try, but only for partitions this member still holds: an
 * offset committed for a partition another member now reads would move that member back.
 */
export class OffsetCommits {
  private pending = new Map<string, PartitionOffset>();
  /** The partitions the group last gave this member; null until it has joined. */
  private assigned: Set<string> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private chain: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly commit: (offsets: PartitionOffset[]) => Promise<void>,
    private readonly intervalMs: number,
    private readonly onError: (error: unknown, offsets: PartitionOffset[]) => void,
  ) {}

  /** The batch that ended at `lastOffset` is applied: the group may resume after it. */
  applied(topic: string, partition: number, lastOffset: string): void {
    this.pending.set(keyOf(topic, partition), {
      topic,
      partition,
      offset: (BigInt(lastOffset) + 1n).toString(),
    });
    this.schedule();
  }

  /** The group's assignment to this member, at every join: what it lost is no longer its to commit. */
  assign(assignment: Record<string, number[]>): void {
    this.assigned = new Set(
      Object.entries(assignment).flatMap(([topic, partitions]) =>
        partitions.map((p) => keyOf(topic, p)),
      ),
    );
    for (const key of this.pending.keys()) if (!this.assigned.has(key)) this.pending.delete(key);
  }

  /** Commits what is pending now, after any commit already under way. */
  flush(): Promise<void> {
    this.chain = this.chain.then(() => this.commitPending());
    return this.chain;
  }

  /** No more timed commits; what is pending stays uncommitted (call flush first to keep it). */
  stop(): void {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(): void {
    if (this.timer !== null || this.stopped || this.pending.size === 0) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, this.intervalMs);
    this.timer.unref();
  }

  private async commitPending(): Promise<void> {
    if (this.pending.size === 0) return;
    const offsets = [...this.pending.values()];
    this.pending.clear();
    try {
      await this.commit(offsets);
    } catch (error) {
      for (const o of offsets) {
        const key = keyOf(o.topic, o.partition);
        if (!this.pending.has(key) && (this.assigned === null || this.assigned.has(key)))
          this.pending.set(key, o);
      }
      this.onError(error, offsets);
      this.schedule();
    }
  }
}
