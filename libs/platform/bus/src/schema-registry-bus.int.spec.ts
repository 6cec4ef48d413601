import * as avro from 'avsc';
import {
  COMPACTED_TOPICS,
  EventWire,
  eventTypeSchema,
  HttpSchemaRegistry,
  newEventId,
  outboxMessage,
  subjectOf,
  TOPICS,
  type EventMap,
  type EventType,
} from '@pgw/contracts';
import { createPgDb, type Db } from '@pgw/platform-db';
import { integrationEnv, schemaRegistryUrl, uniqueName, waitFor } from '@pgw/testing';
import { HEADER_EVENT_ID, HEADER_EVENT_TYPE, type BusMessage } from './bus';
import { KafkaBus } from './kafka-bus';
import { busMigration, enqueue, OutboxRelay } from './outbox';
import { SchemaRegistryBus } from './schema-registry-bus';

// The wire format on the real broker and the real registry (tools/registry/start; SCHEMA_REGISTRY_URL): what
// the outbox relay publishes is framed (magic byte 0, schema id, Avro body), and a reader in any language
// needs only the registry's REST API and an Avro library to read every topic.
// The events go to a copy of each topic of this run's own (`<topic>.<run>`), with the bytes the real topic would
// get (the subject is the real topic's): the services of other runs on the same broker read the real topics,
// and must not meet test events there.

const env = integrationEnv();
const REGISTRY_URL = schemaRegistryUrl();

/**
 * Another team's reader: plain fetch against the Confluent REST API and avsc, nothing of this project.
 * Magic byte 0, a 4-byte big-endian schema id, then the Avro body written with that schema.
 */
async function foreignDecode(registryUrl: string, value: Buffer): Promise<unknown> {
  if (value.length < 5 || value[0] !== 0) throw new Error('not a Confluent-framed message');
  const id = value.readUInt32BE(1);
  const response = await fetch(`${registryUrl}/schemas/ids/${id}`);
  if (response.status !== 200)
    throw new Error(`GET /schemas/ids/${id} answered ${response.status}`);
  const { schema } = (await response.json()) as { schema: string };
  return avro.Type.forSchema(JSON.parse(schema) as avro.Schema).fromBuffer(value.subarray(5));
}

/** One event type of each topic. */
const ONE_PER_TOPIC: Record<string, EventType> = {
  [TOPICS.directory]: 'gateway.tenant-changed.v1',
  [TOPICS.webhookEndpoints]: 'gateway.webhook-endpoint-changed.v2',
  [TOPICS.charges]: 'charges.charge-paid.v2',
  [TOPICS.receivables]: 'receivables.balance-moved.v1',
  [TOPICS.anticipation]: 'anticipation.anticipation-executed.v1',
};

/** A valid event of a type (avsc's random value of its schema), with a real envelope id and type. */
function sampleEvent<K extends EventType>(type: K): EventMap[K] {
  const event = eventTypeSchema(type).random() as unknown as EventMap[K];
  event.envelope = { ...event.envelope, event_id: newEventId(), event_type: type };
  return event;
}

describe('the Confluent wire format on Kafka with the schema registry', () => {
  let db: Db;
  let kafka: KafkaBus;
  let reader: KafkaBus;
  const received: BusMessage[] = [];
  const run = uniqueName('it');
  const copyOf = (topic: string) => `${topic}.${run}`;

  beforeAll(async () => {
    db = createPgDb({ url: env.databaseUrl, schema: uniqueName('wire') });
    await db.migrate([busMigration]);
    const compacted = COMPACTED_TOPICS.map(copyOf);
    kafka = new KafkaBus({
      brokers: env.kafkaBrokers,
      clientId: 'it-wire-producer',
      compactedTopics: compacted,
    });
    reader = new KafkaBus({
      brokers: env.kafkaBrokers,
      clientId: 'it-wire-reader',
      compactedTopics: compacted,
    });
    // The raw bytes on the topics, as any Kafka client sees them.
    await reader.subscribe({
      groupId: uniqueName('it-wire'),
      topics: Object.values(TOPICS).map(copyOf),
      handle: async (batch) => void received.push(...batch),
    });
  });

  afterAll(async () => {
    await reader.close();
    await kafka.close();
    await db.close();
  });

  it('publishes from the outbox framed with registered schema ids, which a decoder with only the REST API and avsc reads on every topic', async () => {
    const bus = new SchemaRegistryBus(kafka, new EventWire(new HttpSchemaRegistry(REGISTRY_URL)));
    const events = Object.values(TOPICS).map((topic) => {
      const type = ONE_PER_TOPIC[topic]!;
      return { topic, type, event: sampleEvent(type) };
    });
    await db.tx((trx) =>
      enqueue(
        db,
        trx,
        events.map(({ topic, type, event }) => ({
          ...outboxMessage(type, uniqueName('key'), event as never),
          topic: copyOf(topic),
        })),
      ),
    );
    // The outbox keeps the plain body: the schema id is the relay's business, at publish time.
    const stored = await db.tx((trx) => trx('outbox').select('event_type', 'payload'));
    for (const row of stored as Array<{ event_type: EventType; payload: Buffer }>)
      expect(eventTypeSchema(row.event_type).fromBuffer(Buffer.from(row.payload))).toBeDefined();

    expect(await new OutboxRelay({ db, bus }).runOnce()).toBe(events.length);

    const ours = new Set(events.map((e) => e.event.envelope.event_id));
    const messages = await waitFor(
      () => {
        const found = received.filter((m) => ours.has(m.headers[HEADER_EVENT_ID] ?? ''));
        return found.length === events.length ? found : undefined;
      },
      30_000,
      'the published events on every topic',
    );

    for (const { topic, type, event } of events) {
      const message = messages.find((m) => m.headers[HEADER_EVENT_ID] === event.envelope.event_id)!;
      expect(message.topic).toBe(copyOf(topic));
      expect(message.headers[HEADER_EVENT_TYPE]).toBe(type);
      expect(message.value[0]).toBe(0);
      const id = message.value.readUInt32BE(1);
      // The id is the one registered under the TopicRecordNameStrategy subject `<topic>-<record full name>`.
      // The id is one of its subject's versions (not necessarily the latest: another suite may have registered
      // an older version of the event since).
      const subject = `${REGISTRY_URL}/subjects/${encodeURIComponent(subjectOf(type))}/versions`;
      expect(subjectOf(type)).toBe(`${topic}-${eventTypeSchema(type).name}`);
      const versions = (await (await fetch(subject)).json()) as number[];
      const ids = await Promise.all(
        versions.map(
          async (v) => ((await (await fetch(`${subject}/${v}`)).json()) as { id: number }).id,
        ),
      );
      expect(ids).toContain(id);
      expect(await foreignDecode(REGISTRY_URL, message.value)).toEqual(event);
      // A consumer of another process finds the writer's schema by id and reads it with its own schema.
      expect(
        await new EventWire(new HttpSchemaRegistry(REGISTRY_URL)).decode(type, message.value),
      ).toEqual(event);
    }
  }, 90_000);

  it('gives a consumer a clear error for a schema id the registry does not know', async () => {
    const wire = new EventWire(new HttpSchemaRegistry(REGISTRY_URL));
    const framed = Buffer.concat([Buffer.from([0, 0x7f, 0xff, 0xff, 0xf0]), Buffer.from('x')]);
    await expect(wire.decode('gateway.tenant-changed.v1', framed)).rejects.toThrow(
      `schema id ${0x7ffffff0} is not in the schema registry at ${REGISTRY_URL}`,
    );
  });
});
