export { HEADER_EVENT_ID, HEADER_EVENT_TYPE } from './bus';
export type { BatchHandler, Bus, BusMessage, SubscribeOptions, Subscription } from './bus';
export { InProcessBus } from './in-process-bus';
export { KafkaBus } from './kafka-bus';
export type { KafkaBusOptions } from './kafka-bus';
export { busMigration, enqueue, OutboxRelay } from './outbox';
export type { OutboxMessage, RelayOptions } from './outbox';
export { inboxHandler } from './inbox';
