import { randomUUID } from 'node:crypto';
import { context, propagation } from '@opentelemetry/api';
import { afterCommit, type Db, type Migration, type Tx } from '@pgw/platform-db';
import { counter, histogram, observeGauge, OUTBOX_BACKLOG, OUTBOX_LAG, OUTBOX_PUBLISHED, OUTBOX_RELAY_FAILURES } from '@pgw/platform-metrics';
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
    await trx.raw('create table outbox_lease (id int primary key, holder text not null, expires_at timestamptz not null)');
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
  const headers = Object.fromEntries(Object.entries(carrier).map(([name, value]) => [`${ORIGIN_PREFIX}${name}`, value]));
  await trx('outbox').insert(
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

const BACKOFF_MAX_MS = 5_000;
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
 * the order; a relay that dies between publishing and marking rows sent publishes them again, and the
 * consumers' inboxes drop the repeats.
 */
export class OutboxRelay {
  private readonly holder = randomUUID();
  private readonly batchSizeMax: number;
  private readonly pollIntervalMs: number;
  private readonly leaseMs: number;
  /** Until this moment (performance.now()) the lease is surely ours: rounds before it skip renewing it. */
  private leaseHeldUntil = 0;
  private running = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private kicked = false;
  /** Unsent rows exist that a running transaction keeps from being published yet. */
  private waiting = false;
  /** Unsent rows at the last round (up to BACKLOG_COUNT_MAX), reported while this relay holds the lease. */
  private backlog = 0;
  private stopObservingBacklog: (() => void) | null = null;

  constructor(private readonly options: RelayOptions) {
    this.batchSizeMax = options.batchSizeMax ?? 500;
    this.pollIntervalMs = options.pollIntervalMs ?? 250;
    this.leaseMs = options.leaseMs ?? 10_000;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    kickers.set(this.options.db, () => this.kick());
    // Only the lease holder reports: a replica that lost the lease would otherwise go on reporting its last count.
    this.stopObservingBacklog = observeGauge(OUTBOX_BACKLOG, () => (performance.now() < this.leaseHeldUntil ? [{ value: this.backlog, attributes: { service: this.options.db.schema } }] : []));
    this.loop = this.run();
  }

  kick(): void {
    this.kicked = true;
    this.wake?.();
  }

  async stop(): Promise<void> {
    this.running = false;
    kickers.delete(this.options.db);
    this.stopObservingBacklog?.();
    this.stopObservingBacklog = null;
    this.wake?.();
    await this.loop;
    this.leaseHeldUntil = 0;
    // Hand the lease over at once rather than make the next relay wait for it to expire.
    await this.options.db
      .tx((trx) => trx('outbox_lease').where({ id: 1, holder: this.holder }).update({ expires_at: trx.raw('now()') }))
      .catch((error: unknown) => this.options.log?.warn({ err: error }, 'outbox relay could not release its lease'));
  }

  /** One round: take the lease, publish up to a batch, mark it sent. Returns how many were published. */
  async runOnce(): Promise<number> {
    const { db, bus } = this.options;
    let renewedAt: number | null = null;
    const rows = await db.tx(async (trx) => {
      // The lease is renewed at half its life, not every round: a renewal is a write (a WAL flush at commit),
      // and rounds run several times a second per service. The database's now() at renewal is not earlier
      // than `asked`, so the lease surely lasts until asked + leaseMs; we stop relying on it at half of that.
      if (performance.now() >= this.leaseHeldUntil) {
        const asked = performance.now();
        const lease = await trx.raw(
          `insert into outbox_lease (id, holder, expires_at) values (1, ?, now() + (? * interval '1 millisecond'))
           on conflict (id) do update set holder = excluded.holder, expires_at = excluded.expires_at
           where outbox_lease.holder = excluded.holder or outbox_lease.expires_at < now()
           returning holder`,
          [this.holder, this.leaseMs],
        );
        if (lease.rows.length === 0) {
          this.leaseHeldUntil = 0;
          return [];
        }
        renewedAt = asked;
      }
      const result = await trx.raw(
        `select id, topic, key, event_id, event_type, payload, headers, extract(epoch from (now() - created_at))::float8 as age_s,
                xid < pg_snapshot_xmin(pg_current_snapshot()) as visible
         from outbox where sent_at is null order by id limit ?`,
        [this.batchSizeMax],
      );
      const found = result.rows as OutboxRow[];
      if (found.length < this.batchSizeMax) this.backlog = found.length;
      else {
        const counted = await trx.raw('select count(*)::int as n from (select 1 from outbox where sent_at is null limit ?) unsent', [BACKLOG_COUNT_MAX]);
        this.backlog = Number(counted.rows[0].n);
      }
      return found;
    });
    // Only a committed renewal counts.
    if (renewedAt !== null) this.leaseHeldUntil = renewedAt + this.leaseMs / 2;
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
        ...(typeof row.headers === 'string' ? (JSON.parse(row.headers) as Record<string, string>) : row.headers),
        [HEADER_EVENT_ID]: row.event_id,
        [HEADER_EVENT_TYPE]: row.event_type,
      },
    }));
    await bus.publish(messages);
    await db.tx((trx) => trx('outbox').whereIn('id', visible.map((r) => r.id)).update({ sent_at: trx.fn.now() }));
    publishedMetric.add(visible.length, { service: db.schema });
    this.backlog = Math.max(0, this.backlog - visible.length);
    return visible.length;
  }

  private async run(): Promise<void> {
    let failures = 0;
    let horizonRetryMs = HORIZON_RETRY_MS;
    while (this.running) {
      this.kicked = false;
      let published = 0;
      try {
        published = await this.runOnce();
        failures = 0;
      } catch (error) {
        failures++;
        failuresMetric.add(1, { service: this.options.db.schema });
        this.options.log?.warn({ err: error, failures }, 'outbox relay round failed');
      }
      if (!this.running) break;
      if (published === this.batchSizeMax || (this.kicked && failures === 0)) continue;
      let delayMs = failures === 0 ? this.pollIntervalMs : Math.min(BACKOFF_MAX_MS, this.pollIntervalMs * 2 ** failures);
      if (failures === 0 && this.waiting) {
        delayMs = Math.min(delayMs, horizonRetryMs);
        horizonRetryMs = Math.min(horizonRetryMs * 2, this.pollIntervalMs);
      } else horizonRetryMs = HORIZON_RETRY_MS;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delayMs);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
    }
  }
}
