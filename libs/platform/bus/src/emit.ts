import {
  newEnvelope,
  outboxMessage,
  type EnvelopeInput,
  type EventEnvelope,
  type EventMap,
  type EventType,
} from '@pgw/contracts';
import type { Db, Tx } from '@pgw/platform-db';
import { enqueue, type OutboxMessage } from './outbox';

/**
 * One event to announce: its type, its ordering key (events of one key reach consumers in order), what its
 * envelope says (producer, tenant, livemode, request, when it happened) and its body without the envelope.
 * A union over the event types, so that each body is checked against its own type.
 */
export type Emitted = {
  [K in EventType]: EnvelopeInput & { type: K; key: string; body: Omit<EventMap[K], 'envelope'> };
}[EventType];

/** The outbox row of an event: its envelope made (a new event id, the active trace), its body Avro-encoded. */
export function outboxMessageOf(event: Emitted): OutboxMessage & { envelope: EventEnvelope } {
  const { type, key, body, ...input } = event;
  const envelope = newEnvelope(type, input);
  return { ...outboxMessage(type, key, { envelope, ...body } as EventMap[typeof type]), envelope };
}

/**
 * Announces events in the caller's transaction, through its outbox: they exist if and only if the state
 * change commits, and the relay publishes them in order of their key. Returns their envelopes (ids, trace).
 */
export async function emit<T extends Emitted[]>(
  db: Db,
  trx: Tx,
  ...events: T
): Promise<{ [I in keyof T]: EventEnvelope }> {
  const messages = events.map(outboxMessageOf);
  await enqueue(db, trx, messages);
  return messages.map((m) => m.envelope) as { [I in keyof T]: EventEnvelope };
}
