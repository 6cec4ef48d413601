import { COMPATIBILITY, SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import type * as avro from 'avsc';
import { EVENT_TOPICS, type EventMap, type EventType } from './events';
import { EventCatalog, eventTypeSchema, resolveOptions } from './registry';

// The wire format of every event on the bus, Kafka's or the all-in-one's: Confluent's framing of an Avro
// body, so any Confluent-compatible deserializer (Java, Python, Go, Kafka Connect, ksqlDB) reads the topics.
//
//   byte 0      magic byte 0
//   bytes 1-4   the writer's schema id in the registry, big-endian
//   bytes 5-    the Avro binary body, written with that schema
//
// Subjects follow TopicRecordNameStrategy, `<topic>-<record full name>`: one topic carries several record
// types (every event of a charge shares its topic). The outbox stores the plain body and the event type; the
// bus frames it when it publishes (see SchemaRegistryBus in @pgw/platform-bus), so the outbox never holds a
// schema id and a registry rebuilt from scratch only changes the ids of what is published afterwards.

export const WIRE_MAGIC_BYTE = 0;
export const WIRE_HEADER_BYTES = 5;

/**
 * A message that no registry lookup will ever make readable: not framed, a schema id the registry does not
 * know (framed against another registry), or a writer's schema this build's type cannot read. Unlike a
 * registry that does not answer, trying again changes nothing.
 */
export class WireFormatError extends Error {}

/** What the codec needs from a registry: register a writer's schema under a subject, find one by its id. */
export interface SchemaRegistryClient {
  /** The id of `schema` under `subject`, registering it if new; one schema has one id whatever its subject. */
  register(subject: string, schema: avro.Type): Promise<number>;
  /** The writer's schema of `id`; throws when the registry does not know it. */
  schemaById(id: number): Promise<avro.Type>;
}

/** The registry subject of an event type: `<topic>-<record full name>` (TopicRecordNameStrategy). */
export function subjectOf(
  eventType: EventType,
  schema: avro.Type = eventTypeSchema(eventType),
): string {
  return `${EVENT_TOPICS[eventType]}-${schema.name ?? eventType}`;
}

/** The schema text a registry stores for an event type: self-contained (the envelope inlined), with its docs. */
export function registeredSchemaText(type: avro.Type): string {
  return JSON.stringify(type.schema({ exportAttrs: true }));
}

export function frameWire(schemaId: number, body: Buffer): Buffer {
  const header = Buffer.alloc(WIRE_HEADER_BYTES);
  header.writeUInt8(WIRE_MAGIC_BYTE, 0);
  header.writeUInt32BE(schemaId, 1);
  return Buffer.concat([header, body]);
}

export function isFramed(value: Buffer): boolean {
  return value.length >= WIRE_HEADER_BYTES && value[0] === WIRE_MAGIC_BYTE;
}

/** Splits a framed message into its writer's schema id and its Avro body; anything else is refused. */
export function unframeWire(value: Buffer): { schemaId: number; body: Buffer } {
  if (!isFramed(value)) {
    throw new WireFormatError(
      `not in the Confluent wire format: expected magic byte ${WIRE_MAGIC_BYTE} and a 4-byte schema id, got ${value.length} bytes starting ${value.subarray(0, 5).toString('hex') || '(empty)'}`,
    );
  }
  return { schemaId: value.readUInt32BE(1), body: value.subarray(WIRE_HEADER_BYTES) };
}

/**
 * The all-in-one's registry, in the process: the same semantics as the real one (one id per distinct
 * schema across subjects, ids from 1, a subject's versions in order), so the in-process bus carries the
 * bytes Kafka would.
 */
export class EmbeddedSchemaRegistry implements SchemaRegistryClient {
  private readonly ids = new Map<string, number>();
  private readonly schemas: avro.Type[] = [];
  private readonly subjects = new Map<string, number[]>();

  register(subject: string, schema: avro.Type): Promise<number> {
    const text = registeredSchemaText(schema);
    let id = this.ids.get(text);
    if (id === undefined) {
      this.schemas.push(schema);
      id = this.schemas.length;
      this.ids.set(text, id);
    }
    const versions = this.subjects.get(subject) ?? [];
    if (!versions.includes(id)) versions.push(id);
    this.subjects.set(subject, versions);
    return Promise.resolve(id);
  }

  schemaById(id: number): Promise<avro.Type> {
    const schema = this.schemas[id - 1];
    if (schema === undefined)
      return Promise.reject(
        new WireFormatError(`schema id ${id} is not in the embedded schema registry`),
      );
    return Promise.resolve(schema);
  }

  /** The ids registered under a subject, oldest first (GET /subjects/{subject}/versions). */
  versions(subject: string): number[] {
    return [...(this.subjects.get(subject) ?? [])];
  }
}

/**
 * A Confluent-compatible registry over HTTP (`SCHEMA_REGISTRY_URL`: Confluent's, or Apicurio's
 * `/apis/ccompat/v7`). New subjects are set to FULL_TRANSITIVE as they get their first version.
 */
export class HttpSchemaRegistry implements SchemaRegistryClient {
  private readonly client: SchemaRegistry;

  constructor(readonly url: string) {
    this.client = new SchemaRegistry({ host: url, retry: { retries: 2 } });
  }

  async register(subject: string, schema: avro.Type): Promise<number> {
    const { id } = await this.client.register(
      { type: SchemaType.AVRO, schema: registeredSchemaText(schema) },
      { subject, compatibility: COMPATIBILITY.FULL_TRANSITIVE },
    );
    return id;
  }

  async schemaById(id: number): Promise<avro.Type> {
    try {
      return (await this.client.getSchema(id)) as unknown as avro.Type;
    } catch (error) {
      const status =
        typeof error === 'object' && error !== null && 'status' in error
          ? (error as { status: unknown }).status
          : undefined;
      if (status === 404)
        throw new WireFormatError(`schema id ${id} is not in the schema registry at ${this.url}`);
      throw error;
    }
  }
}

/**
 * Writes and reads events in the wire format for one service, with the schemas of its build (`catalog`). A
 * producer registers the schema of an event type at its first publish (cached: one request per type and
 * process); a consumer fetches a writer's schema by id once (cached) and reads the body into its own reader
 * schema, so a field added with a default by a newer producer, or dropped by an older one, resolves as
 * Avro's rules say. A version this build does not have is read as the newest version of the same event it
 * has (`readerTypeOf`): a producer may be deployed first.
 */
export class EventWire {
  private readonly ids = new Map<EventType, Promise<number>>();
  private readonly readers = new Map<string, Promise<{ resolver: avro.Resolver | null }>>();

  constructor(
    readonly registry: SchemaRegistryClient,
    readonly catalog: EventCatalog = EventCatalog.current(),
  ) {}

  /** Whether this build writes `eventType` (has its schema). */
  knows(eventType: string | undefined): eventType is EventType {
    return this.catalog.knows(eventType);
  }

  /** The event type a message written as `eventType` is read as by this build; undefined when it knows no version of that event. */
  readerTypeOf(eventType: string | undefined): EventType | undefined {
    return this.catalog.readerTypeOf(eventType) as EventType | undefined;
  }

  /** The schema id of an event type, registered under its subject on first use. */
  schemaId(eventType: EventType): Promise<number> {
    let id = this.ids.get(eventType);
    if (id === undefined) {
      const schema = this.catalog.schema(eventType);
      id = this.registry.register(subjectOf(eventType, schema), schema);
      // A failed registration (registry down) is tried again at the next publish, not cached.
      id.catch(() => this.ids.delete(eventType));
      this.ids.set(eventType, id);
    }
    return id;
  }

  /** Frames the plain Avro body of an event (written with this build's schema of its type). */
  async frame(eventType: EventType, body: Buffer): Promise<Buffer> {
    return frameWire(await this.schemaId(eventType), body);
  }

  async encode<K extends EventType>(type: K, event: EventMap[K]): Promise<Buffer> {
    return this.frame(type, this.catalog.schema(type).toBuffer(event));
  }

  /** Reads a framed message as `type` (this build's schema of it is the reader schema). */
  async decode<K extends EventType>(type: K, value: Buffer): Promise<EventMap[K]> {
    const { schemaId, body } = unframeWire(value);
    const reader = this.catalog.schema(type);
    const { resolver } = await this.resolverFor(type, schemaId);
    return (
      resolver === null ? reader.fromBuffer(body) : reader.fromBuffer(body, resolver)
    ) as EventMap[K];
  }

  /**
   * The plain Avro body of a framed message in this build's schema of `type`: the message's own body when
   * the writer used that very schema, else the body resolved from the writer's schema and written again.
   */
  async readerBody(type: EventType, value: Buffer): Promise<Buffer> {
    const { schemaId, body } = unframeWire(value);
    const { resolver } = await this.resolverFor(type, schemaId);
    if (resolver === null) return body;
    const reader = this.catalog.schema(type);
    return reader.toBuffer(reader.fromBuffer(body, resolver));
  }

  private resolverFor(
    type: EventType,
    schemaId: number,
  ): Promise<{ resolver: avro.Resolver | null }> {
    const key = `${type}:${schemaId}`;
    let entry = this.readers.get(key);
    if (entry === undefined) {
      entry = this.registry.schemaById(schemaId).then((writer) => {
        const reader = this.catalog.schema(type);
        // The same canonical form reads directly; anything else through a resolver, which refuses at once a
        // writer's schema that cannot be read as this type.
        if (writer.equals(reader)) return { resolver: null };
        try {
          return { resolver: reader.createResolver(writer, resolveOptions()) };
        } catch (error) {
          throw new WireFormatError(
            `schema id ${schemaId} cannot be read as ${type}: ${error instanceof Error ? error.message : String(error)}`,
          );
        }
      });
      entry.catch(() => this.readers.delete(key));
      this.readers.set(key, entry);
    }
    return entry;
  }
}
