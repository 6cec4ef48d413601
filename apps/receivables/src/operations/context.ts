import type { EventMap, EventType } from '@pgw/contracts';
import { enqueue, outboxMessageOf, type Emitted, type OutboxMessage } from '@pgw/platform-bus';
import type { Db, Tx } from '@pgw/platform-db';
import type { Clock } from '@pgw/platform-service';

export const PRODUCER = 'receivables';

/** One unit of work: a transaction, its clock reading, and the events it will announce when it commits. */
export class Work {
  private readonly messages: OutboxMessage[] = [];
  readonly now: Date;

  constructor(
    readonly db: Db,
    readonly trx: Tx,
    clock: Clock,
    readonly requestId: string | null,
  ) {
    this.now = clock.now();
  }

  /** Queues an event of a seller's stream (keyed by seller id) for the outbox of this transaction. */
  emit<K extends EventType>(
    type: K,
    tenantId: string,
    livemode: boolean,
    sellerId: string,
    body: Omit<EventMap[K], 'envelope'>,
  ): void {
    // Made now (its envelope reads the active trace), written at flush.
    this.messages.push(
      outboxMessageOf({
        type,
        key: sellerId,
        producer: PRODUCER,
        tenantId,
        livemode,
        requestId: this.requestId,
        occurredAtMs: this.now.getTime(),
        body,
      } as Emitted),
    );
  }

  /** Writes the queued events in the transaction: they exist if and only if the changes commit. */
  async flush(): Promise<void> {
    await enqueue(this.db, this.trx, this.messages.splice(0, this.messages.length));
  }
}
