import { isInvariantError } from '@pgw/domain';
import type { Knex } from 'knex';
import { haltProcess, insertAtCommit, type Db, type Tx } from '@pgw/platform-db';
import { HEADER_EVENT_ID, type BatchHandler, type BusMessage } from './bus';
import type { DeadLetters } from './dead-letters';
import { processSpan } from './messaging-spans';

/** Applies one message of a batch, in the batch's unit of work. */
export type Apply = (trx: Tx, message: BusMessage) => Promise<void>;

/**
 * Reads, with `q`, what applying `batch` needs (one statement for the whole batch, rather than one per
 * message) and answers the apply that uses it.
 */
export type Prepare = (q: Knex | Tx, batch: readonly BusMessage[]) => Promise<Apply>;

export interface InboxOptions {
  deadLetters?: DeadLetters;
  /**
   * `apply` reads nothing and only defers its writes (insertAtCommit, writeAtCommit): a batch
   * applied as new is then one statement with the inbox's ids, and no transaction (`Db.writeTogether`).
   */
  writesOnly?: boolean;
  /**
   * Replaces `apply` with the apply it answers for each batch. A batch applied as new is prepared whole,
   * before its unit with `writesOnly` (a read of its own: `Db.readThenWriteTogether`), else in its
   * transaction; applied the careful way, each message is prepared alone, in the transaction,
   * so that a message that fails to prepare is the one counted, or parked, as if its apply had failed.
   */
  prepare?: Prepare;
}

/**
 * Applies a batch of messages in one transaction, each at most once: the event ids go into the inbox in
 * the same transaction as the effect (one statement for the batch), so a redelivered event finds its id
 * there and changes nothing. A batch is first applied as new (`appliedAsNew`: the ids go in at commit);
 * one with an id already there rolls back and is applied again, reading the inbox first.
 * One transaction per batch also means a busy account is written once per batch, not once per event.
 * With `deadLetters`, a message the consumer cannot apply is parked instead (dead-letters.ts): an unknown
 * type at once, a poison message once it has failed often enough; the batch then goes on with the next.
 * A broken invariant (@pgw/domain's `assert`) in `apply` stops the process instead (platform-db halt.ts).
 */
export function inboxHandler(
  db: Db,
  consumer: string,
  apply: Apply,
  options: InboxOptions = {},
): BatchHandler {
  const { deadLetters, writesOnly = false } = options;
  const prepare: Prepare = options.prepare ?? (() => Promise.resolve(apply));
  return async (batch) => {
    const ids = batch.map(eventIdOf);
    const verdicts = batch.map((m, i) => deadLetters?.verdict(m, ids[i] as string) ?? null);
    const plain =
      batch.length <= INBOX_INSERT_ROWS &&
      verdicts.every((v) => v === null) &&
      new Set(ids).size === ids.length;
    if (plain && (await appliedAsNew(db, consumer, batch, ids, prepare, writesOnly))) {
      deadLetters?.applied(ids);
      return;
    }
    let current: string | undefined;
    try {
      await db.tx(async (trx) => {
        // One statement records the whole batch's ids; the ones it did not insert were applied before.
        const fresh = await recordInInbox(
          trx,
          consumer,
          ids.filter((_, i) => verdicts[i] === null),
        );
        for (const [i, message] of batch.entries()) {
          const eventId = ids[i] as string;
          current = eventId;
          const verdict = verdicts[i] ?? null;
          if (verdict !== null) {
            // Applied already (a replay, then a redelivery of the same offset): nothing to park.
            if ((await trx('inbox').where({ consumer, event_id: eventId }).first()) === undefined)
              await deadLetters?.park(trx, message, eventId, verdict.reason, verdict.error);
            continue;
          }
          // Taken from the set: an id twice in one batch is applied once.
          if (fresh.delete(eventId))
            await processSpan(message, `${db.schema}.${consumer}`, async () =>
              (await prepare(trx, [message]))(trx, message),
            );
        }
        current = undefined;
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
    deadLetters?.applied(ids);
  };
}

/**
 * Applies the batch as if none of its events was applied before, which holds for every delivery but a
 * redelivery: the ids go into the inbox at commit, in the one statement of the transaction's other deferred
 * writes (its outbox rows), one round trip fewer than reading the inbox first (with `writesOnly`, that
 * statement is the whole batch: no BEGIN, no COMMIT). An id already there fails that statement on the
 * inbox's key, and the whole transaction rolls back; so does any other error. Then it answers false, and
 * the batch is applied again the careful way, which also parks, halts and counts failures.
 */
async function appliedAsNew(
  db: Db,
  consumer: string,
  batch: BusMessage[],
  ids: string[],
  prepare: Prepare,
  writesOnly: boolean,
): Promise<boolean> {
  const work = async (trx: Tx, apply: Apply) => {
    insertAtCommit(
      trx,
      'inbox',
      ids.map((eventId) => ({ consumer, event_id: eventId })),
    );
    for (const message of batch)
      await processSpan(message, `${db.schema}.${consumer}`, () => apply(trx, message));
  };
  try {
    await (writesOnly
      ? db.readThenWriteTogether((q) => prepare(q, batch), work)
      : db.tx(async (trx) => work(trx, await prepare(trx, batch))));
    return true;
  } catch {
    return false;
  }
}

export function eventIdOf(message: BusMessage): string {
  const eventId = message.headers[HEADER_EVENT_ID];
  if (eventId === undefined)
    throw new Error(`message on ${message.topic} has no ${HEADER_EVENT_ID} header`);
  return eventId;
}

/** Ids per statement: far below PostgreSQL's 65,535 parameters whatever a fetch returns. */
const INBOX_INSERT_ROWS = 1_000;

/** Inserts the ids into the consumer's inbox, one statement per 1,000; returns those not there yet. */
async function recordInInbox(trx: Tx, consumer: string, eventIds: string[]): Promise<Set<string>> {
  const fresh = new Set<string>();
  for (let i = 0; i < eventIds.length; i += INBOX_INSERT_ROWS) {
    const inserted: Array<{ event_id: string }> = await trx('inbox')
      .insert(
        eventIds
          .slice(i, i + INBOX_INSERT_ROWS)
          .map((eventId) => ({ consumer, event_id: eventId })),
      )
      .onConflict(['consumer', 'event_id'])
      .ignore()
      .returning('event_id');
    for (const r of inserted) fresh.add(r.event_id);
  }
  return fresh;
}

/** Applies one message unless the consumer's inbox has its id already. */
export async function applyOnce(
  db: Db,
  trx: Tx,
  consumer: string,
  apply: Apply,
  message: BusMessage,
  eventId: string,
): Promise<void> {
  if ((await recordInInbox(trx, consumer, [eventId])).has(eventId))
    await processSpan(message, `${db.schema}.${consumer}`, () => apply(trx, message));
}
