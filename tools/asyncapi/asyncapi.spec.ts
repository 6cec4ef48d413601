// Proves docs/asyncapi.json is exactly what the schema files, the topics and the services' consumers generate
// today (so CI fails when a schema version or a consumer is added without the document), that AsyncAPI's own
// parser accepts it with its Avro payloads, that each payload is the schema the producer registers, and that
// the gateway serves it without an API key.
import { readFileSync } from 'node:fs';
import { AvroSchemaParser } from '@asyncapi/avro-schema-parser';
import { Parser, DiagnosticSeverity } from '@asyncapi/parser';
import * as avro from 'avsc';
import {
  COMPACTED_TOPICS,
  EVENT_TOPICS,
  eventTypeSchema,
  listSchemaFiles,
  subjectOf,
  type EventType,
} from '@pgw/contracts';
import {
  buildDocument,
  captureConsumers,
  serialize,
  type CapturedConsumer,
} from './build-document';
import { DOCUMENT_PATH } from './generate';

interface Message {
  name: string;
  'x-schema-registry-subject': string;
  headers: { required: string[]; properties: Record<string, { const?: string }> };
  payload: { schemaFormat: string; schema: avro.Schema };
  bindings: {
    kafka: {
      key: { type: string; pattern: string };
      schemaIdLocation: string;
      schemaIdPayloadEncoding: string;
      schemaLookupStrategy: string;
    };
  };
}
interface Document {
  asyncapi: string;
  channels: Record<
    string,
    {
      address: string;
      messages: Record<string, { $ref: string }>;
      bindings: { kafka: { topicConfiguration?: { 'cleanup.policy': string[] } } };
    }
  >;
  operations: Record<
    string,
    {
      action: 'send' | 'receive';
      channel: { $ref: string };
      bindings?: { kafka: { groupId: { enum: string[] } } };
    }
  >;
  components: { messages: Record<string, Message> };
}

let consumers: CapturedConsumer[];
let generated: string;
let served: { status: number; body: unknown };

beforeAll(async () => {
  consumers = await captureConsumers(async (url) => {
    const res = await fetch(`${url}/api/v1/asyncapi.json`);
    served = { status: res.status, body: await res.json() };
  });
  generated = serialize(buildDocument(consumers));
}, 120_000);

const document = () => JSON.parse(generated) as Document;

async function diagnosticsOf(text: string) {
  const parser = new Parser({ schemaParsers: [AvroSchemaParser()] });
  const { document: parsed, diagnostics } = await parser.parse(text);
  return {
    parsed,
    errors: diagnostics
      .filter((d) => d.severity === DiagnosticSeverity.Error)
      .map((d) => `${d.path.join('.')}: ${d.message}`),
  };
}

describe('docs/asyncapi.json', () => {
  it('is what tools/asyncapi/generate.ts writes from the current schemas, topics and consumers', () => {
    // Proves the committed document matches the code; run `npm run docs:asyncapi` when this fails.
    expect(readFileSync(DOCUMENT_PATH, 'utf8')).toBe(generated);
  });

  it("parses with AsyncAPI's parser and its Avro schema parser with no error", async () => {
    // Proves the document is valid AsyncAPI 3, bindings and Avro payloads included.
    const { parsed, errors } = await diagnosticsOf(generated);
    expect(errors).toEqual([]);
    expect(
      parsed
        ?.messages()
        .all()
        .map((m) => m.id()),
    ).toEqual(expect.arrayContaining(listSchemaFiles().map((f) => f.eventType)));
  }, 60_000);

  it('is refused by that parser when a payload is not Avro, so the check above is not vacuous', async () => {
    // Proves the parser validates the Avro payloads: a record without fields is an error.
    const broken = document();
    const first = Object.values(broken.components.messages)[0]!;
    first.payload.schema = { type: 'record', name: 'Broken' } as unknown as avro.Schema;
    expect((await diagnosticsOf(JSON.stringify(broken))).errors).not.toEqual([]);
  }, 60_000);

  it('has one message per schema file, on its topic, whose payload is the schema its producer registers', () => {
    // Proves a reader of the document decodes what producers write: same Avro schema (canonical form), subject and framing.
    const doc = document();
    const files = listSchemaFiles();
    expect(Object.keys(doc.components.messages).sort()).toEqual(
      files.map((f) => f.eventType).sort(),
    );
    for (const { eventType } of files) {
      const type = eventType as EventType;
      const message = doc.components.messages[type]!;
      const topic = EVENT_TOPICS[type];
      expect([type, doc.channels[topic]?.messages[type]]).toEqual([
        type,
        { $ref: `#/components/messages/${type}` },
      ]);
      expect([
        type,
        avro.Type.forSchema(message.payload.schema).fingerprint('sha256').toString('hex'),
      ]).toEqual([type, eventTypeSchema(type).fingerprint('sha256').toString('hex')]);
      expect(message['x-schema-registry-subject']).toBe(subjectOf(type));
      expect(message.headers.required).toEqual(['event-id', 'event-type']);
      expect(message.headers.properties['event-type']?.const).toBe(type);
      expect(message.bindings.kafka).toMatchObject({
        schemaIdLocation: 'payload',
        schemaIdPayloadEncoding: 'confluent',
        schemaLookupStrategy: 'TopicRecordNameStrategy',
      });
    }
  });

  it('marks exactly the compacted topics compact', () => {
    // Proves the channel bindings say which topics keep only the last message of each key.
    const doc = document();
    for (const [topic, channel] of Object.entries(doc.channels)) {
      expect([topic, channel.bindings.kafka.topicConfiguration?.['cleanup.policy'] ?? []]).toEqual([
        topic,
        COMPACTED_TOPICS.includes(topic) ? ['compact'] : [],
      ]);
    }
  });

  it("has a receive operation, with its consumer group, for every topic every service's consumers read, and a send for each producer", () => {
    // Proves the document names who reads each topic, from the consumers the services actually build.
    const doc = document();
    const receives = Object.values(doc.operations).filter((o) => o.action === 'receive');
    const expected = consumers
      .flatMap((c) => c.topics.map((topic) => `${c.service}.${c.name} ${topic}`))
      .sort();
    expect(expected.length).toBeGreaterThan(0);
    expect(
      receives
        .map(
          (o) =>
            `${o.bindings?.kafka.groupId.enum[0]} ${o.channel.$ref.replace('#/channels/', '')}`,
        )
        .sort(),
    ).toEqual(expected);
    const sent = new Set(
      Object.values(doc.operations)
        .filter((o) => o.action === 'send')
        .map((o) => o.channel.$ref.replace('#/channels/', '')),
    );
    expect([...sent].sort()).toEqual(Object.keys(doc.channels).sort());
    // Each service that consumes parks in its own dead-letter topic, which carries the messages of what it reads.
    for (const service of new Set(consumers.map((c) => c.service))) {
      const parked = Object.keys(doc.channels[`${service}.dead-letter`]?.messages ?? {});
      const read = consumers.filter((c) => c.service === service).flatMap((c) => c.topics);
      expect([service, parked.sort()]).toEqual([
        service,
        Object.keys(EVENT_TOPICS)
          .filter((t) => read.includes(EVENT_TOPICS[t as EventType]))
          .sort(),
      ]);
    }
  });

  it('is served at GET /api/v1/asyncapi.json without an API key', () => {
    // Proves the public route answers the committed document as it is.
    expect(served.status).toBe(200);
    expect(served.body).toEqual(JSON.parse(readFileSync(DOCUMENT_PATH, 'utf8')));
  });
});
