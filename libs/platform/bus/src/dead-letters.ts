// Events a consumer cannot apply are parked, never skipped (issue 17 item 3). An event of a type this
// consumer's build does not know (a producer deployed a new type or version first) is parked at once; an
// event whose apply keeps throwing (a poison message) is parked after several attempts over a minimum
// time, and only while the database answers: a database outage is retried, never parked. A parked event
// is not in the inbox, so a replay (after the deploy that teaches the consumer its type) applies it once,
// through the inbox, in the transaction that marks it replayed.
import { randomUUID } from 'node:crypto';
import { afterCommit, type Db, type Migration, type Tx } from '@pgw/platform-db';
import { CONSUMER_DEAD_LETTERS, counter } from '@pgw/platform-metrics';
import { HEADER_EVENT_TYPE, type Bus, type BusMessage } from './bus';

const deadLettersMetric = counter(CONSUMER_DEAD_LETTERS);

/** The table of parked events: the operator routes list and replay from it without scanning Kafka. */
export const deadLetterMigration: Migration = {
  name: '0000_dead_letters',
  async up(trx) {
    await trx.raw(`
      create table dead_letters (
        id text primary key,
        consumer text not null,
        event_id text not null,
        event_type text,
        topic text not null,
        partition int,
        "offset" text,
        key text not null,
        payload bytea not null,
        headers jsonb not null,
        reason text not null,
        error text,
        parked_at timestamptz not null default now(),
        replayed_at timestamptz,
        unique (consumer, event_id)
      )`);
    await trx.raw('create index dead_letters_parked on dead_letters (parked_at, id)');
  },
};

/** `unknown_type`: no handler in this build; `handler_failed`: apply kept throwing with the database up. */
export type DeadLetterReason = 'unknown_type' | 'handler_failed';

/** Headers a dead-letter topic's message carries besides the original ones. */
export const DEAD_LETTER_HEADERS = {
  reason: 'dead-letter-reason',
  consumer: 'dead-letter-consumer',
  topic: 'dead-letter-topic',
  partition: 'dead-letter-partition',
  offset: 'dead-letter-offset',
  error: 'dead-letter-error',
} as const;

/** The dead-letter topic of a service: one per service, whatever its consumers. */
export const deadLetterTopic = (service: string): string => `${service}.dead-letter`;

export const POISON_ATTEMPTS_DEFAULT = 5;
export const POISON_AFTER_MS_DEFAULT = 30_000;
const ERROR_TEXT_MAX = 500;

export interface DeadLetterOptions {
  /** The service (its schema and its dead-letter topic). */
  service: string;
  /** Where the parked event is copied: `<service>.dead-letter`. */
  bus: Bus;
  /** Whether this consumer's build knows the event type (absent or unknown types are parked at once). */
  knows(type: string | undefined): boolean;
  /** Errors that say the database cannot be reached: retried, never counted towards parking. */
  isTransient(error: unknown): boolean;
  /** Failed attempts before an event is parked as poison, at least `poisonAfterMs` after the first. */
  poisonAttempts?: number;
  poisonAfterMs?: number;
  log?: { warn(obj: object, msg: string): void };
}

interface Failures {
  count: number;
  firstAtMs: number;
  error: string;
}

/** One consumer's parking: it counts the failed attempts of each event and parks what must be parked. */
export class DeadLetters {
  private readonly failures = new Map<string, Failures>();
  private readonly poisonAttempts: number;
  private readonly poisonAfterMs: number;

  constructor(
    private readonly db: Db,
    private readonly consumer: string,
    private readonly options: DeadLetterOptions,
  ) {
    this.poisonAttempts = options.poisonAttempts ?? POISON_ATTEMPTS_DEFAULT;
    this.poisonAfterMs = options.poisonAfterMs ?? POISON_AFTER_MS_DEFAULT;
  }

  /** Why this message must be parked instead of applied now, or null to apply it. */
  verdict(
    message: BusMessage,
    eventId: string,
  ): { reason: DeadLetterReason; error: string | null } | null {
    if (!this.options.knows(message.headers[HEADER_EVENT_TYPE]))
      return { reason: 'unknown_type', error: null };
    const failed = this.failures.get(eventId);
    if (
      failed !== undefined &&
      failed.count >= this.poisonAttempts &&
      Date.now() - failed.firstAtMs >= this.poisonAfterMs
    ) {
      return { reason: 'handler_failed', error: failed.error };
    }
    return null;
  }

  /**
   * Counts a failed attempt of the event whose apply threw (the batch's transaction has rolled back). A
   * database outage is not the event's fault: neither its error nor a failure while the database does not
   * answer counts.
   */
  async failed(eventId: string, error: unknown): Promise<void> {
    if (this.options.isTransient(error)) return;
    try {
      await this.db.read((q) => q.raw('select 1'));
    } catch {
      return;
    }
    const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    const previous = this.failures.get(eventId);
    this.failures.set(eventId, {
      count: (previous?.count ?? 0) + 1,
      firstAtMs: previous?.firstAtMs ?? Date.now(),
      error: text.slice(0, ERROR_TEXT_MAX),
    });
  }

  /**
   * Parks the message in the batch's transaction: its copy goes to the dead-letter topic first (at least
   * once: a rolled-back batch copies it again, under the same event id), then its row (once per consumer
   * and event). The inbox does not record it: a replay applies it.
   */
  async park(
    trx: Tx,
    message: BusMessage,
    eventId: string,
    reason: DeadLetterReason,
    error: string | null,
  ): Promise<void> {
    const { service, bus, log } = this.options;
    const where = {
      [DEAD_LETTER_HEADERS.reason]: reason,
      [DEAD_LETTER_HEADERS.consumer]: this.consumer,
      [DEAD_LETTER_HEADERS.topic]: message.topic,
      ...(message.partition !== undefined
        ? { [DEAD_LETTER_HEADERS.partition]: String(message.partition) }
        : {}),
      ...(message.offset !== undefined ? { [DEAD_LETTER_HEADERS.offset]: message.offset } : {}),
      ...(error !== null ? { [DEAD_LETTER_HEADERS.error]: error } : {}),
    };
    await bus.publish([
      {
        topic: deadLetterTopic(service),
        key: message.key,
        value: message.value,
        headers: { ...message.headers, ...where },
      },
    ]);
    const inserted = await trx('dead_letters')
      .insert({
        id: `dlq_${randomUUID().replaceAll('-', '')}`,
        consumer: this.consumer,
        event_id: eventId,
        event_type: message.headers[HEADER_EVENT_TYPE] ?? null,
        topic: message.topic,
        partition: message.partition ?? null,
        offset: message.offset ?? null,
        key: message.key,
        payload: message.value,
        headers: JSON.stringify(message.headers),
        reason,
        error,
      })
      .onConflict(['consumer', 'event_id'])
      .ignore()
      .returning('id');
    afterCommit(trx, () => {
      this.failures.delete(eventId);
      if (inserted.length === 0) return;
      deadLettersMetric.add(1, { service, consumer: this.consumer, reason });
      log?.warn(
        {
          event_id: eventId,
          event_type: message.headers[HEADER_EVENT_TYPE] ?? null,
          reason,
          error,
          consumer: this.consumer,
          topic: message.topic,
          partition: message.partition ?? null,
          offset: message.offset ?? null,
        },
        'event parked in the dead-letter topic',
      );
    });
  }

  /** Forgets the failures of events a committed batch applied. */
  applied(eventIds: readonly string[]): void {
    if (this.failures.size === 0) return;
    for (const id of eventIds) this.failures.delete(id);
  }
}
