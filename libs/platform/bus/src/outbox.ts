import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Knex } from 'knex';
import { context, propagation } from '@opentelemetry/api';
import {
  afterCommit,
  claimLease,
  inOneStatement,
  insertAtCommit,
  releaseLease,
  startLoop,
  type Db,
  type Lease,
  type Loop,
  type Migration,
  type Tx,
} from '@pgw/platform-db';
import {
  counter,
  histogram,
  observeGauge,
  OUTBOX_BACKLOG,
  OUTBOX_LAG,
  OUTBOX_PUBLISHED,
  OUTBOX_RELAY_FAILURES,
} from '@pgw/platform-metrics';
import { HEADER_EVENT_ID, HEADER_EVENT_TYPE, type Bus, type BusMessage } from './bus';

/** The tables every service with events needs: its outbox, the relay's lease, and its inbox. */
export const busMigration: Migration = {
  name: '0000_bus',
  async up(trx) {
    // One statement per call: the embedded database's protocol takes one at a time.
    await trx.raw(`
      create table outbox (
        id bigserial primary key,
        xid xid8 not null default pg_current_xact_id(),
        topic text not null,
        key text not null,
        event_id text not null unique,
        event_type text not null,
        payload bytea not null,
        headers jsonb not null default '{}',
        created_at timestamptz not null default now(),
        sent_at timestamptz
      )`);
    await trx.raw('create index outbox_unsent on outbox (id) where sent_at is null');
    await trx.raw(
      'create table outbox_lease (id int primary key, holder text not null, expires_at timestamptz not null)',
    );
    await trx.raw(`
      create table inbox (
        consumer text not null,
        event_id text not null,
        received_at timestamptz not null default now(),
        primary key (consumer, event_id)
      )`);
  },
};

export interface OutboxMessage {
  topic: string;
  key: string;
  eventId: string;
  eventType: string;
  payload: Buffer;
}

export const ORIGIN_PREFIX = 'origin-';

const kickers = new WeakMap<Db, () => void>();

/**
 * Writes events in the caller's transaction: they exist if and only if the state change commits. The
 * active trace context travels with them, so the consumer's work joins the producer's trace.
 */
export async function enqueue(db: Db, trx: Tx, messages: OutboxMessage[]): Promise<void> {
  if (messages.length === 0) return;
  // The producer's trace context travels as `origin-traceparent`: the bus writes its own `traceparent` (the
  // relay's send span) on publish, and the send and process spans are children of this one (messaging-spans.ts).
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  const headers = Object.fromEntries(
    Object.entries(carrier).map(([name, value]) => [`${ORIGIN_PREFIX}${name}`, value]),
  );
  // Nothing reads the rows back in this transaction: they go with its other deferred inserts, at commit, in
  // the order enqueued (the relay publishes by id).
  insertAtCommit(
    trx,
    'outbox',
    messages.map((m) => ({
      topic: m.topic,
      key: m.key,
      event_id: m.eventId,
      event_type: m.eventType,
      payload: m.payload,
      headers: JSON.stringify(headers),
    })),
  );
  // Wake the relay as soon as the rows are visible, rather than at its next poll.
  afterCommit(trx, () => kickers.get(db)?.());
}

export interface RelayOptions {
  db: Db;
  bus: Bus;
  batchSizeMax?: number;
  pollIntervalMs?: number;
  /**
   * A round starts no sooner than this after the last one began (0 by default): under load, one round then
   * carries every event committed meanwhile, and each consumer applies them as one batch, for at most this
   * much more lag. A relay woken after a quiet spell publishes at once.
   */
  lingerMs?: number;
  leaseMs?: number;
  log?: { warn(obj: object, msg: string): void };
}

interface OutboxRow {
  id: string;
  topic: string;
  key: string;
  event_id: string;
  event_type: string;
  payload: Buffer | Uint8Array;
  headers: Record<string, string> | string;
  age_s: number | string;
  /** Committed before every running transaction began: safe to publish in id order. */
  visible: boolean;
}

/** After failed rounds: waits that grow from twice the poll interval up to 5 s, jittered; rounds go on for good. */
const FAILED_ROUND_BACKOFF_CAP_MS = 5_000;
/** First wait after a round that found rows not yet visible; doubles up to the poll interval. */
const HORIZON_RETRY_MS = 5;

const lagMetric = histogram(OUTBOX_LAG);
const publishedMetric = counter(OUTBOX_PUBLISHED);
const failuresMetric = counter(OUTBOX_RELAY_FAILURES);
/**
 * The backlog is counted up to this many rows: enough to tell a slow relay from a stalled one at a glance,
 * while a count over a backlog of millions stays a short index-only scan.
 */
const BACKLOG_COUNT_MAX = 100_000;

/**
 * Publishes a service's outbox in id order, in bounded batches. Only rows whose transaction is older
 * than the oldest running one (`pg_snapshot_xmin`) are published, and only up to the first row that is not,
 * so a transaction that commits late, with a lower id than rows already visible, is never skipped nor
 * overtaken. One replica at a time holds the lease, which keeps
 * the order. Rows are marked sent by the next round, in the statement that reads the rows after them (or by
 * stop), not by a transaction of their own. A relay that dies between publishing and marking rows sent
 * publishes them again, and the consumers' inboxes drop the repeats.
 */
export class OutboxRelay {
  private readonly batchSizeMax: number;
  private readonly pollIntervalMs: number;
  private readonly lingerMs: number;
  /** When (performance.now()) the last round began. */
  private lastRoundAt = -Infinity;
  /** The relay's lease row (one per service), claimed and given back with the job leases' primitive. */
  private readonly lease: Lease;
  /** Until this moment (performance.now()) the lease is surely ours: rounds before it skip renewing it. */
  private leaseHeldUntil = 0;
  private loop: Loop | null = null;
  /** The wait after a round that found rows not yet visible; doubles up to the poll interval. */
  private horizonRetryMs = HORIZON_RETRY_MS;
  /** Unsent rows exist that a running transaction keeps from being published yet. */
  private waiting = false;
  /** Unsent rows at the last round (up to BACKLOG_COUNT_MAX), reported while this relay holds the lease. */
  private backlog = 0;
  private stopObservingBacklog: (() => void) | null = null;
  /** Ids published by the last round and not marked sent yet: the next round marks them. */
  private publishedIds: string[] = [];

  constructor(private readonly options: RelayOptions) {
    this.batchSizeMax = options.batchSizeMax ?? 500;
    this.pollIntervalMs = options.pollIntervalMs ?? 250;
    this.lingerMs = options.lingerMs ?? 0;
    this.lease = {
      table: 'outbox_lease',
      key: { column: 'id', value: 1 },
      holder: randomUUID(),
      leaseMs: options.leaseMs ?? 10_000,
    };
  }

  start(): void {
    if (this.loop !== null) return;
    kickers.set(this.options.db, () => this.kick());
    // Only the lease holder reports: a replica that lost the lease would otherwise go on reporting its last count.
    this.stopObservingBacklog = observeGauge(OUTBOX_BACKLOG, () =>
      performance.now() < this.leaseHeldUntil
        ? [{ value: this.backlog, attributes: { service: this.options.db.schema } }]
        : [],
    );
    this.loop = startLoop({
      name: 'outbox relay',
      intervalMs: this.pollIntervalMs,
      runAtStart: true,
      ref: true,
      round: () => this.round(),
      failureBackoff: { baseMs: this.pollIntervalMs * 2, capMs: FAILED_ROUND_BACKOFF_CAP_MS },
      onFailure: () => {
        failuresMetric.add(1, { service: this.options.db.schema });
        this.horizonRetryMs = HORIZON_RETRY_MS;
      },
      log: this.options.log ?? { warn: () => undefined },
    });
  }

  /** Publishes at once: ends the relay's wait, or has it run again as soon as its round ends. */
  kick(): void {
    this.loop?.kick();
  }

  async stop(): Promise<void> {
    const loop = this.loop;
    this.loop = null;
    kickers.delete(this.options.db);
    this.stopObservingBacklog?.();
    this.stopObservingBacklog = null;
    await loop?.stop();
    this.leaseHeldUntil = 0;
    // Mark the last round's rows, and hand the lease over at once rather than make the next relay wait for it.
    await this.options.db
      .tx(async (trx) => {
        await this.markSent(trx);
        await releaseLease(trx, this.lease);
      })
      .then(() => {
        this.publishedIds = [];
      })
      .catch((error: unknown) =>
        this.options.log?.warn({ err: error }, 'outbox relay could not release its lease'),
      );
  }

  /** Marks the last round's rows sent, in the caller's transaction. */
  private async markSent(trx: Tx): Promise<void> {
    await inOneStatement(trx, this.marking(trx, this.publishedIds));
  }

  /**
   * The update that marks `ids` sent: none when there are none. The ids go as one array, so that the text is
   * the same whatever their number (one named statement, not one per batch size).
   */
  private marking(q: Knex | Tx, ids: string[]): Knex.Sql[] {
    return ids.length === 0
      ? []
      : [
          q('outbox')
            .whereRaw('id = any(?::bigint[])', [ids])
            .update({ sent_at: q.fn.now() })
            .toSQL(),
        ];
  }

  /**
   * The unsent rows at the head of the outbox, up to a batch, each with whether it may be published yet; in
   * the same statement, `marking` (the last round's rows) marked sent. The read sees the outbox as it was
   * before that mark, so it leaves those rows out itself.
   */
  private async unsent(q: Knex | Tx, marking: string[]): Promise<OutboxRow[]> {
    const found = await inOneStatement<OutboxRow>(q, [
      ...this.marking(q, marking),
      q
        .raw(
          `select id, topic, key, event_id, event_type, payload, headers, extract(epoch from (now() - created_at))::float8 as age_s,
                  xid < pg_snapshot_xmin(pg_current_snapshot()) as visible
           from outbox where sent_at is null and not (id = any(?::bigint[])) order by id limit ?`,
          [marking, this.batchSizeMax],
        )
        .toSQL(),
    ]);
    if (found.length < this.batchSizeMax) this.backlog = found.length;
    else {
      const counted = await q.raw(
        'select count(*)::int as n from (select 1 from outbox where sent_at is null limit ?) unsent',
        [BACKLOG_COUNT_MAX],
      );
      this.backlog = Number(counted.rows[0].n);
    }
    return found;
  }

  /**
   * One round: mark the last round's rows sent, take the lease, publish up to a batch. Returns how many were
   * published; they are marked sent by the next round (or stop).
   */
  async runOnce(): Promise<number> {
    const { db, bus } = this.options;
    let renewedAt: number | null = null;
    // While the lease is surely held, a round is one statement on its own (no BEGIN, no COMMIT): it marks the
    // last round's rows sent and reads the next ones. Every few seconds the lease is renewed, in a transaction.
    const rows =
      performance.now() < this.leaseHeldUntil
        ? await db.read((q) => this.unsent(q, this.publishedIds))
        : await db.tx(async (trx) => {
            // The lease is renewed at half its life, not every round: a renewal is a write (a WAL flush at
            // commit), and rounds run several times a second per service. The database's now() at renewal
            // is not earlier than `asked`, so the lease surely lasts until asked + leaseMs; we stop relying
            // on it at half of that.
            const asked = performance.now();
            if (!(await claimLease(trx, this.lease))) {
              this.leaseHeldUntil = 0;
              await this.markSent(trx);
              return [];
            }
            renewedAt = asked;
            return this.unsent(trx, this.publishedIds);
          });
    this.publishedIds = [];
    // Only a committed renewal counts.
    if (renewedAt !== null) this.leaseHeldUntil = renewedAt + this.lease.leaseMs / 2;
    // A row committed while an older transaction (of any session) is still running waits for it: the relay
    // comes back within milliseconds rather than after the poll interval (see run()).
    // Only the unbroken run at the head: a row after one not yet visible waits with it, or a later event of
    // the same key could reach Kafka before an earlier one (a lower xid that commits after a higher one).
    const firstHidden = rows.findIndex((r) => !r.visible);
    const visible = firstHidden === -1 ? rows : rows.slice(0, firstHidden);
    this.waiting = visible.length < rows.length;
    if (visible.length === 0) return 0;
    lagMetric.record(Number(rows[0]?.age_s ?? 0), { service: db.schema });
    const messages: BusMessage[] = visible.map((row) => ({
      topic: row.topic,
      key: row.key,
      value: Buffer.from(row.payload),
      headers: {
        ...(typeof row.headers === 'string'
          ? (JSON.parse(row.headers) as Record<string, string>)
          : row.headers),
        [HEADER_EVENT_ID]: row.event_id,
        [HEADER_EVENT_TYPE]: row.event_type,
      },
    }));
    await bus.publish(messages);
    this.publishedIds = visible.map((r) => r.id);
    publishedMetric.add(visible.length, { service: db.schema });
    this.backlog = Math.max(0, this.backlog - visible.length);
    return visible.length;
  }

  /**
   * One round of the loop (begun no sooner than `lingerMs` after the last), and how long to wait before the
   * next: none after a full batch; a short and growing wait while unsent rows wait for an older transaction
   * (pg_snapshot_xmin); else the poll interval.
   * A round that throws is the loop's to log, count (outbox.relay.failures) and back off from.
   */
  private async round(): Promise<number> {
    const lingerLeftMs = this.lastRoundAt + this.lingerMs - performance.now();
    if (lingerLeftMs > 0) await sleep(lingerLeftMs);
    this.lastRoundAt = performance.now();
    const published = await this.runOnce();
    if (published === this.batchSizeMax) return 0;
    if (!this.waiting) {
      this.horizonRetryMs = HORIZON_RETRY_MS;
      return this.pollIntervalMs;
    }
    const delayMs = Math.min(this.pollIntervalMs, this.horizonRetryMs);
    this.horizonRetryMs = Math.min(this.horizonRetryMs * 2, this.pollIntervalMs);
    return delayMs;
  }
}
