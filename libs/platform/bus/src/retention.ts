// Outbox and inbox rows are bookkeeping, not records: a sent event's payload (buyer data included) is in
// Kafka and in its consumers' own tables, and an inbox row only has to outlive every redelivery of its event.
// This prunes both after a retention period, in bounded batches, so that neither grows forever nor keeps
// personal data past its use (issue 16 item 10). Idempotent: a run repeated or killed midway deletes nothing
// it should keep.
import type { Db, Migration } from '@pgw/platform-db';

export interface RetentionOptions {
  /** Sent outbox rows older than this go (their events are in Kafka). */
  outboxRetentionMs: number;
  /**
   * Inbox rows older than this go. It must exceed the longest time an event can be delivered again: the
   * topics' retention (Kafka's default 7 days) plus a consumer group's longest outage. Below it, an event
   * replayed after its row went would be applied twice.
   */
  inboxRetentionMs: number;
  /** Rows per delete statement: short transactions, no long lock on a busy table. */
  batchSizeMax?: number;
}

export const OUTBOX_RETENTION_MS_DEFAULT = 7 * 24 * 3_600_000;
export const INBOX_RETENTION_MS_DEFAULT = 30 * 24 * 3_600_000;
/** A bound on one run: 1,000 batches of 1,000 rows is far above a day's events of one service. */
const BATCHES_MAX = 1_000;

/** The index that lets the outbox pruning find sent rows by age without reading the whole table. */
export const busRetentionMigration: Migration = {
  name: '0000_bus_retention',
  async up(trx) {
    await trx.raw('create index outbox_sent_at on outbox (sent_at) where sent_at is not null');
    await trx.raw('create index inbox_received_at on inbox (received_at)');
  },
};

/**
 * Deletes sent outbox rows and inbox rows past their retention, and dead letters replayed as long ago as a
 * sent outbox row (their events are applied; a parked one stays until an operator replays it). Returns how
 * many of each went.
 */
export async function pruneBusTables(
  db: Db,
  options: RetentionOptions,
): Promise<{ outbox: number; inbox: number; deadLetters: number }> {
  const batch = options.batchSizeMax ?? 1_000;
  // The rows of `table` (keyed by `key`) whose `at` is set and older than `retentionMs`, a batch at a time.
  const prune = (table: string, key: string, at: string, retentionMs: number) =>
    deleteInBatches(
      db,
      `delete from ${table} where (${key}) in (
         select ${key} from ${table} where ${at} is not null and ${at} < now() - (? * interval '1 millisecond') order by ${at} limit ?)`,
      [retentionMs, batch],
      batch,
    );
  const outbox = await prune('outbox', 'id', 'sent_at', options.outboxRetentionMs);
  const inbox = await prune('inbox', 'consumer, event_id', 'received_at', options.inboxRetentionMs);
  const deadLetters = await prune('dead_letters', 'id', 'replayed_at', options.outboxRetentionMs);
  return { outbox, inbox, deadLetters };
}

async function deleteInBatches(
  db: Db,
  sql: string,
  bindings: readonly (string | number)[],
  batch: number,
): Promise<number> {
  let deleted = 0;
  for (let round = 0; round < BATCHES_MAX; round++) {
    const result = await db.tx((trx) => trx.raw(sql, bindings));
    const count = Number(
      (result as { rowCount?: number; affectedRows?: number }).rowCount ??
        (result as { affectedRows?: number }).affectedRows ??
        0,
    );
    deleted += count;
    if (count < batch) break;
  }
  return deleted;
}
