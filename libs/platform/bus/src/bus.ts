// The Bus port: what services need from a message broker, and nothing more. Two adapters stand behind
// it: Kafka (distributed mode) and an in-process bus (all-in-one mode and fast tests). Both carry the
// same bytes: the Avro encoding of an event, with its type, id and trace context in headers.

export interface BusMessage {
  topic: string;
  /**
   * The aggregate id (charge, seller): messages with one key keep their order. A key `<partition key>/<id>`
   * (directory events: `ten_…/seller_…`) is ordered by its partition key and compacted per whole key.
   */
  key: string;
  value: Buffer;
  headers: Record<string, string>;
  /** Where a consumer read it (Kafka's partition and offset; the in-process bus numbers one partition 0). */
  partition?: number;
  offset?: string;
}

export type BatchHandler = (batch: BusMessage[]) => Promise<void>;

export interface SubscribeOptions {
  /** Replicas of one consumer share a group; each group sees every message once. */
  groupId: string;
  topics: string[];
  handle: BatchHandler;
}

export interface Subscription {
  stop(): Promise<void>;
}

export interface Bus {
  /** Resolves once every message is durably accepted (Kafka: acked by all in-sync replicas). */
  publish(messages: BusMessage[]): Promise<void>;
  subscribe(options: SubscribeOptions): Promise<Subscription>;
  /**
   * A bus that changes messages on their way to a handler (SchemaRegistryBus: a framed body becomes this
   * build's plain body) does it here too: a replay of a parked message as it came off the wire goes through it.
   */
  received?(message: BusMessage): Promise<BusMessage>;
  /** Throws when the broker cannot be reached: the readiness probes' check. */
  checkHealth?(): Promise<void>;
  close(): Promise<void>;
}

export const HEADER_EVENT_ID = 'event-id';
export const HEADER_EVENT_TYPE = 'event-type';
