import { context, propagation, ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import type { Db, Tx } from '@pgw/platform-db';
import { HEADER_EVENT_ID, HEADER_EVENT_TYPE, type BatchHandler, type BusMessage } from './bus';
import type { DeadLetters } from './dead-letters';
import { ORIGIN_PREFIX } from './outbox';

// Reads the producer's trace context, which the outbox stored under `origin-` header names.
const originGetter = {
  keys: (carrier: Record<string, string>) => Object.keys(carrier).filter((k) => k.startsWith(ORIGIN_PREFIX)).map((k) => k.slice(ORIGIN_PREFIX.length)),
  get: (carrier: Record<string, string>, key: string) => carrier[`${ORIGIN_PREFIX}${key}`],
};

const tracer = trace.getTracer('@pgw/platform-bus');

/**
 * Applies a batch of messages in one transaction, each at most once: the event id goes into the inbox in
 * the same transaction as the effect, so a redelivered event finds its id there and changes nothing.
 * One transaction per batch also means a busy account is written once per batch, not once per event.
 * With `deadLetters`, a message the consumer cannot apply is parked instead (dead-letters.ts): an unknown
 * type at once, a poison message once it has failed often enough; the batch then goes on with the next.
 */
export function inboxHandler(
  db: Db,
  consumer: string,
  apply: (trx: Tx, message: BusMessage) => Promise<void>,
  /** Runs last in the batch's transaction: a consumer that accumulated per-batch work writes it here. */
  afterBatch?: (trx: Tx) => Promise<void>,
  deadLetters?: DeadLetters,
): BatchHandler {
  return async (batch) => {
    let current: string | undefined;
    try {
      await db.tx(async (trx) => {
        for (const message of batch) {
          const eventId = eventIdOf(message);
          current = eventId;
          const verdict = deadLetters?.verdict(message, eventId) ?? null;
          if (verdict !== null) {
            // Applied already (a replay, then a redelivery of the same offset): nothing to park.
            if ((await trx('inbox').where({ consumer, event_id: eventId }).first()) === undefined) await deadLetters?.park(trx, message, eventId, verdict.reason, verdict.error);
            continue;
          }
          await applyOnce(db, trx, consumer, apply, message, eventId);
        }
        current = undefined;
        await afterBatch?.(trx);
      });
    } catch (error) {
      if (deadLetters !== undefined && current !== undefined) await deadLetters.failed(current, error);
      throw error;
    }
    deadLetters?.applied(batch.map(eventIdOf));
  };
}

export function eventIdOf(message: BusMessage): string {
  const eventId = message.headers[HEADER_EVENT_ID];
  if (eventId === undefined) throw new Error(`message on ${message.topic} has no ${HEADER_EVENT_ID} header`);
  return eventId;
}

/** Applies one message unless the consumer's inbox has its id already; returns whether it applied it. */
export async function applyOnce(db: Db, trx: Tx, consumer: string, apply: (trx: Tx, message: BusMessage) => Promise<void>, message: BusMessage, eventId: string): Promise<boolean> {
  const inserted = await trx('inbox').insert({ consumer, event_id: eventId }).onConflict(['consumer', 'event_id']).ignore().returning('event_id');
  if (inserted.length === 0) return false;
  const parent = propagation.extract(ROOT_CONTEXT, message.headers, originGetter);
  const type = message.headers[HEADER_EVENT_TYPE] ?? message.topic;
  await context.with(parent, () =>
    tracer.startActiveSpan(`${db.schema}.${consumer} process ${type}`, { kind: SpanKind.CONSUMER, attributes: { 'messaging.destination.name': message.topic, 'messaging.message.id': eventId, 'messaging.consumer.group.name': `${db.schema}.${consumer}` } }, async (span) => {
      try {
        await apply(trx, message);
      } finally {
        span.end();
      }
    }),
  );
  return true;
}
