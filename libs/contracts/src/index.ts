export {
  COMPACTED_TOPICS,
  decodeEvent,
  directoryKey,
  encodeEvent,
  EVENT_TOPICS,
  isEventType,
  newEnvelope,
  newEventId,
  outboxMessage,
  TOPICS,
} from './events';
export type {
  ChargebackEvent,
  ChargebackSnapshot,
  ChargeEvent,
  ChargePaidV2,
  ChargeSnapshot,
  RefundEvent,
  RefundSnapshot,
  SplitAllocation,
  EnvelopeInput,
  EventEnvelope,
  EventMap,
  EventType,
  KycStatus,
  PricingPlanChanged,
  SellerChanged,
  TenantChanged,
} from './events';
export {
  compatibilityProblems,
  EventCatalog,
  eventTypeSchema,
  eventVersion,
  fingerprintProblems,
  FINGERPRINTS_FILE,
  knownEventTypes,
  listSchemaFiles,
  parseSchema,
  recordedFingerprints,
  schemaFingerprints,
  SCHEMAS_DIR,
} from './registry';
export type { SchemaFile } from './registry';
export { EVERY_WEBHOOK_KIND, WEBHOOK_EVENT_FILTERS, WEBHOOK_KINDS } from './webhook-kinds';
export type { WebhookKind } from './webhook-kinds';
export {
  EmbeddedSchemaRegistry,
  EventWire,
  frameWire,
  HttpSchemaRegistry,
  isFramed,
  registeredSchemaText,
  subjectOf,
  unframeWire,
  WIRE_HEADER_BYTES,
  WIRE_MAGIC_BYTE,
  WireFormatError,
} from './wire';
export type { SchemaRegistryClient } from './wire';
