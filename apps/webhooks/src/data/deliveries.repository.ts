import { assert } from '@pgw/domain';
import type { Knex } from 'knex';
import { insertAtCommit, pagedQuery, type Db, type Tx } from '@pgw/platform-db';
import { newDeliveryId } from '@pgw/webhooks-domain/ids';
import { signingSecrets } from './endpoints.repository';

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface Delivery {
  id: string;
  seq: number;
  endpointId: string;
  tenantId: string;
  livemode: boolean;
  eventId: string;
  eventType: string;
  resourceKey: string;
  status: DeliveryStatus;
  attemptCount: number;
  nextAttemptAt: Date | null;
  giveUpAt: Date;
  lastStatusCode: number | null;
  lastError: string | null;
  deliveredAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface Attempt {
  deliveryId: string;
  number: number;
  startedAt: Date;
  latencyMs: number;
  statusCode: number | null;
  responseExcerpt: string | null;
  error: string | null;
  succeeded: boolean;
}

export interface NewEvent {
  eventId: string;
  tenantId: string;
  livemode: boolean;
  kind: string;
  sourceType: string;
  resourceKey: string;
  body: string;
}

/** A delivery taken by a worker for one attempt: everything the POST needs. */
export interface ClaimedDelivery {
  id: string;
  /** The endpoint (`we_…`): failures by endpoint tell one integrator's outage from ours. */
  endpointId: string;
  attemptNumber: number;
  /** Failed attempts since the delivery was created or redelivered, this one included: the back-off's n. */
  roundAttempts: number;
  giveUpAt: Date;
  url: string;
  secrets: string[];
  body: string;
}

const DELIVERIES = 'webhook_deliveries';
const ATTEMPTS = 'webhook_attempts';
const EVENTS = 'webhook_events';

function toStatus(value: unknown): DeliveryStatus {
  const status = DELIVERY_STATUSES.find((s) => s === value);
  assert(status !== undefined, 'delivery.status-known', { value: String(value) });
  return status;
}

function toDelivery(row: Record<string, unknown>): Delivery {
  return {
    id: String(row.id),
    seq: row.seq as number,
    endpointId: String(row.endpoint_id),
    tenantId: String(row.tenant_id),
    livemode: row.livemode === true,
    eventId: String(row.event_id),
    eventType: String(row.event_type),
    resourceKey: String(row.resource_key),
    status: toStatus(row.status),
    attemptCount: row.attempt_count as number,
    nextAttemptAt: row.next_attempt_at as Date | null,
    giveUpAt: row.give_up_at as Date,
    lastStatusCode: row.last_status_code === null ? null : (row.last_status_code as number),
    lastError: row.last_error === null ? null : String(row.last_error),
    deliveredAt: row.delivered_at as Date | null,
    createdAt: row.created_at as Date,
    updatedAt: row.updated_at as Date,
  };
}

function toAttempt(row: Record<string, unknown>): Attempt {
  return {
    deliveryId: String(row.delivery_id),
    number: row.number as number,
    startedAt: row.started_at as Date,
    latencyMs: row.latency_ms as number,
    statusCode: row.status_code === null ? null : (row.status_code as number),
    responseExcerpt: row.response_excerpt === null ? null : String(row.response_excerpt),
    error: row.error === null ? null : String(row.error),
    succeeded: row.succeeded === true,
  };
}

/**
 * Stores the event's body once and a pending delivery per endpoint, due now, with the unit's other writes at
 * its end (insertAtCommit: one insert per table, so that `seq` follows the order of the events recorded).
 * An event recorded before (its inbox id long pruned, then replayed) changes nothing.
 */
export function recordEvent(
  unit: Tx,
  event: NewEvent,
  endpointIds: readonly string[],
  now: Date,
  giveUpAt: Date,
): void {
  if (endpointIds.length === 0) return;
  insertAtCommit(
    unit,
    EVENTS,
    [
      {
        event_id: event.eventId,
        tenant_id: event.tenantId,
        livemode: event.livemode,
        type: event.kind,
        source_type: event.sourceType,
        resource_key: event.resourceKey,
        body: event.body,
        created_at: now,
      },
    ],
    { ignoreConflictsOn: ['event_id'] },
  );
  insertAtCommit(
    unit,
    DELIVERIES,
    endpointIds.map((endpointId) => ({
      id: newDeliveryId(),
      endpoint_id: endpointId,
      tenant_id: event.tenantId,
      livemode: event.livemode,
      event_id: event.eventId,
      event_type: event.kind,
      resource_key: event.resourceKey,
      status: 'pending',
      next_attempt_at: now,
      give_up_at: giveUpAt,
      created_at: now,
      updated_at: now,
    })),
    { ignoreConflictsOn: ['endpoint_id', 'event_id'] },
  );
}

/**
 * Takes up to `limit` due deliveries for one attempt each, leased until `leaseUntil` so that no other
 * worker (another replica) takes them meanwhile; a worker that dies mid-attempt loses the lease and the
 * delivery is taken again. A delivery is not due while an earlier delivery of the same endpoint and
 * resource is pending: events of one resource reach an endpoint in order.
 */
export async function claimDueDeliveries(
  db: Db,
  now: Date,
  limit: number,
  leaseUntil: Date,
): Promise<ClaimedDelivery[]> {
  return db.tx(async (trx) => {
    const due: Array<{ id: string }> = await trx(`${DELIVERIES} as d`)
      .select('d.id')
      .where('d.status', 'pending')
      .andWhere('d.next_attempt_at', '<=', now)
      .andWhere((q) => q.whereNull('d.lease_until').orWhere('d.lease_until', '<=', now))
      .whereNotExists((q) =>
        q
          .select(trx.raw('1'))
          .from(`${DELIVERIES} as e`)
          .whereRaw(
            'e.endpoint_id = d.endpoint_id and e.resource_key = d.resource_key and e.seq < d.seq',
          )
          .andWhere('e.status', 'pending'),
      )
      .orderBy([{ column: 'd.next_attempt_at' }, { column: 'd.seq' }])
      .limit(limit)
      .forUpdate('d')
      .skipLocked();
    if (due.length === 0) return [];
    const ids = due.map((r) => r.id);
    await trx(DELIVERIES)
      .whereIn('id', ids)
      .update({
        lease_until: leaseUntil,
        attempt_count: trx.raw('attempt_count + 1'),
        round_attempts: trx.raw('round_attempts + 1'),
        updated_at: now,
      });
    const rows: Record<string, unknown>[] = await trx(`${DELIVERIES} as d`)
      .join('webhook_endpoints as w', 'w.id', 'd.endpoint_id')
      .join(`${EVENTS} as ev`, 'ev.event_id', 'd.event_id')
      .whereIn('d.id', ids)
      .orderBy('d.seq')
      .select(
        'd.id',
        'd.endpoint_id',
        'd.attempt_count',
        'd.round_attempts',
        'd.give_up_at',
        'w.url',
        'w.secret',
        'w.previous_secret',
        'w.previous_secret_expires_at',
        'ev.body',
      );
    return rows.map((row) => ({
      id: String(row.id),
      endpointId: String(row.endpoint_id),
      attemptNumber: row.attempt_count as number,
      roundAttempts: row.round_attempts as number,
      giveUpAt: row.give_up_at as Date,
      url: String(row.url),
      secrets: signingSecrets(
        {
          secret: String(row.secret),
          previousSecret: row.previous_secret === null ? null : String(row.previous_secret),
          previousSecretExpiresAt: row.previous_secret_expires_at as Date | null,
        },
        now,
      ),
      body: String(row.body),
    }));
  });
}

export interface AttemptRecord extends Attempt {
  /** What the delivery becomes: succeeded, failed for good, or pending again at `nextAttemptAt`. */
  next: { status: DeliveryStatus; nextAttemptAt: Date | null };
}

/** Logs the attempt and moves the delivery on, releasing its lease. */
export async function recordAttempt(trx: Tx, attempt: AttemptRecord, now: Date): Promise<void> {
  await trx(ATTEMPTS).insert({
    delivery_id: attempt.deliveryId,
    number: attempt.number,
    started_at: attempt.startedAt,
    latency_ms: attempt.latencyMs,
    status_code: attempt.statusCode,
    response_excerpt: attempt.responseExcerpt,
    error: attempt.error,
    succeeded: attempt.succeeded,
  });
  await trx(DELIVERIES)
    .where({ id: attempt.deliveryId })
    .update({
      status: attempt.next.status,
      next_attempt_at: attempt.next.nextAttemptAt,
      lease_until: null,
      last_status_code: attempt.statusCode,
      last_error: attempt.error,
      ...(attempt.succeeded ? { delivered_at: now } : {}),
      updated_at: now,
    });
}

/** An operator's redelivery: pending and due now, with a fresh back-off and retry window. */
export async function scheduleRedelivery(
  trx: Tx,
  id: string,
  now: Date,
  giveUpAt: Date,
): Promise<Delivery | undefined> {
  const [row] = await trx(DELIVERIES)
    .where({ id })
    .update({
      status: 'pending',
      next_attempt_at: now,
      give_up_at: giveUpAt,
      round_attempts: 0,
      updated_at: now,
    })
    .returning('*');
  return row === undefined ? undefined : toDelivery(row);
}

export async function findDelivery(
  q: Knex | Tx,
  id: string,
): Promise<(Delivery & { body: string }) | undefined> {
  const row: Record<string, unknown> | undefined = await q(`${DELIVERIES} as d`)
    .join(`${EVENTS} as ev`, 'ev.event_id', 'd.event_id')
    .where('d.id', id)
    .first('d.*', 'ev.body');
  return row === undefined ? undefined : { ...toDelivery(row), body: String(row.body) };
}

export async function attemptsOf(q: Knex | Tx, deliveryId: string): Promise<Attempt[]> {
  const rows: Record<string, unknown>[] = await q(ATTEMPTS)
    .where({ delivery_id: deliveryId })
    .orderBy('number');
  return rows.map(toAttempt);
}

/** One page of an endpoint's deliveries, newest first. */
export async function listDeliveries(
  q: Knex | Tx,
  endpointId: string,
  filter: { status?: DeliveryStatus },
  page: number,
  limit: number,
): Promise<{ data: Delivery[]; total: number }> {
  const query = q(DELIVERIES).where({ endpoint_id: endpointId });
  if (filter.status !== undefined) query.andWhere({ status: filter.status });
  const { rows, total } = await pagedQuery<Record<string, unknown>>(query, ['seq'], page, limit);
  return { data: rows.map(toDelivery), total };
}

/** Gives back deliveries claimed but not attempted (the worker is stopping), as if never claimed. */
export async function releaseClaims(db: Db, ids: readonly string[], now: Date): Promise<void> {
  if (ids.length === 0) return;
  await db.tx((trx) =>
    trx(DELIVERIES)
      .whereIn('id', ids)
      .update({
        lease_until: null,
        attempt_count: trx.raw('attempt_count - 1'),
        round_attempts: trx.raw('round_attempts - 1'),
        updated_at: now,
      }),
  );
}
