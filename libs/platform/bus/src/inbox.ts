import { isInvariantError } from '@pgw/domain';
import { haltProcess, type Db, type Tx } from '@pgw/platform-db';
import { HEADER_EVENT_ID, type BatchHandler, type BusMessage } from './bus';
import type { DeadLetters } from './dead-letters';
import { processSpan } from './messaging-spans';

/**
 * Applies a batch of messages in one transaction, each at most once: the event id goes into the inbox in
 * the same transaction as the effect, so a redelivered event finds its id there and changes nothing.
 * One transaction per batch also means a busy account is written once per batch, not once per event.
 * With `deadLetters`, a message the consumer cannot apply is parked instead (dead-letters.ts): an unknown
 * type at once, a poison message once it has failed often enough; the batch then goes on with the next.
 * A broken invariant (@pgw/domain's `assert`) in `apply` stops the process instead (platform-db halt.ts).
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
            if ((await trx('inbox').where({ consumer, event_id: eventId }).first()) === undefined)
              await deadLetters?.park(trx, message, eventId, verdict.reason, verdict.error);
            continue;
          }
          await applyOnce(db, trx, consumer, apply, message, eventId);
        }
        current = undefined;
        await afterBatch?.(trx);
      });
    } catch (error) {
      if (isInvariantError(error)) {
        // A broken invariant is not a poison message: the state it relies on is not to be trusted, so the
        // event is neither parked nor marked handled (the batch rolled back) and the process stops.
        haltProcess(error);
        throw error;
      }
      if (deadLetters !== undefined && current !== undefined)
        await deadLetters.failed(current, error);
      throw error;
    }
    deadLetters?.applied(batch.map(eventIdOf));
  };
}

export function eventIdOf(message: BusMessage): string {
  const eventId = message.headers[HEADER_EVENT_ID];
  if (eventId === undefined)
    throw new Error(`message on ${message.topic} has no ${HEADER_EVENT_ID} header`);
  return eventId;
}

/** Applies one message unless the consumer's inbox has its id already; returns whether it applied it. */
export async function applyOnce(
  db: Db,
  trx: Tx,
  consumer: string,
  apply: (trx: Tx, message: BusMessage) => Promise<void>,
  message: BusMessage,
  eventId: string,
): Promise<boolean> {
  const inserted = await trx('inbox')
    .insert({ consumer, event_id: eventId })
    .onConflict(['consumer', 'event_id'])
    .ignore()
    .returning('event_id');
  if (inserted.length === 0) return false;
  await processSpan(message, `${db.schema}.${consumer}`, () => apply(trx, message));
  return true;
}
