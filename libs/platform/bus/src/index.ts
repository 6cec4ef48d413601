export { HEADER_EVENT_ID, HEADER_EVENT_TYPE } from './bus';
export type { BatchHandler, Bus, BusMessage, SubscribeOptions, Subscription } from './bus';
export { InProcessBus } from './in-process-bus';
export { KafkaBus } from './kafka-bus';
export { SchemaRegistryBus } from './schema-registry-bus';
export type { KafkaBusOptions } from './kafka-bus';
export { busMigration, enqueue, OutboxRelay } from './outbox';
export type { OutboxMessage, RelayOptions } from './outbox';
export { emit, outboxMessageOf } from './emit';
export type { Emitted } from './emit';
export { applyOnce, eventIdOf, inboxHandler } from './inbox';
export type { Apply, InboxOptions, Prepare } from './inbox';
export {
  DEAD_LETTER_HEADERS,
  deadLetterMigration,
  DeadLetters,
  deadLetterTopic,
  POISON_AFTER_MS_DEFAULT,
  POISON_ATTEMPTS_DEFAULT,
} from './dead-letters';
export type { DeadLetterOptions, DeadLetterReason } from './dead-letters';
export {
  busRetentionMigration,
  INBOX_RETENTION_MS_DEFAULT,
  OUTBOX_RETENTION_MS_DEFAULT,
  pruneBusTables,
} from './retention';
export type { RetentionOptions } from './retention';
