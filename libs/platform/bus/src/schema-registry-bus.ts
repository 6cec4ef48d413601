import { isFramed, WireFormatError, type EventWire } from '@pgw/contracts';
import {
  HEADER_EVENT_TYPE,
  type Bus,
  type BusMessage,
  type SubscribeOptions,
  type Subscription,
} from './bus';

/**
 * A bus that speaks the Confluent wire format (see @pgw/contracts' wire.ts) over another bus, Kafka's or the
 * in-process one. Publishing frames each message's plain Avro body with the schema id of its `event-type`
 * (registered at the first publish of that type); a message of a type this build does not know is forwarded
 * only if it is framed already (a parked message a consumer could not read). Consuming reads each framed
 * message of a known event into this build's schema of its version (of the newest version this build has,
 * for one written by a producer deployed ahead), after fetching the writer's schema by id: handlers get a
 * plain body that `decodeEvent` reads, whichever schema the producer wrote. Messages of events this build
 * does not know reach the handler as they came, framed. So does a framed message
 * that no registry lookup can make readable (an id the registry does not know, a writer's schema this build
 * cannot read): `decodeEvent` refuses it, and the consumer parks it as any event it cannot apply, rather
 * than stop its partition. A message of a known type that is not framed was written before the wire format
 * (a rolling deploy's older producer, a topic's older messages): its plain body reaches the handler as it is.
 * A registry that does not answer fails the batch, which is tried again.
 */
export class SchemaRegistryBus implements Bus {
  constructor(
    private readonly inner: Bus,
    readonly wire: EventWire,
  ) {}

  async publish(messages: BusMessage[]): Promise<void> {
    const framed = await Promise.all(messages.map((m) => this.frame(m)));
    await this.inner.publish(framed);
  }

  subscribe(options: SubscribeOptions): Promise<Subscription> {
    return this.inner.subscribe({
      ...options,
      handle: async (batch) =>
        options.handle(await Promise.all(batch.map((m) => this.received(m)))),
    });
  }

  async checkHealth(): Promise<void> {
    await this.inner.checkHealth?.();
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  private async frame(message: BusMessage): Promise<BusMessage> {
    const type = message.headers[HEADER_EVENT_TYPE];
    if (this.wire.knows(type))
      return { ...message, value: await this.wire.frame(type, message.value) };
    if (isFramed(message.value)) return message;
    throw new Error(
      `cannot publish a message of event type ${type ?? '(none)'} to ${message.topic}: no schema for it in this build`,
    );
  }

  /**
   * The message as a handler gets it; also what a replay of a parked message, stored as it came, goes
   * through. A version this build does not have is read as the newest it has of the same event, and the
   * handler sees that type (the envelope keeps the type it was written as).
   */
  async received(message: BusMessage): Promise<BusMessage> {
    const written = message.headers[HEADER_EVENT_TYPE];
    const reader = this.wire.readerTypeOf(written);
    // A plain body can only be read with the schema of the type it was written as.
    if (reader === undefined || !isFramed(message.value)) return message;
    try {
      const value = await this.wire.readerBody(reader, message.value);
      return reader === written
        ? { ...message, value }
        : { ...message, value, headers: { ...message.headers, [HEADER_EVENT_TYPE]: reader } };
    } catch (error) {
      if (error instanceof WireFormatError) return message;
      throw error;
    }
  }
}
