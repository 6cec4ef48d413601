import { relative } from 'node:path';
import { startAllInOne } from '../../apps/all-in-one/src/all-in-one';
import { SERVICES } from '../../apps/all-in-one/src/services';
import {
  COMPACTED_TOPICS,
  EVENT_TOPICS,
  eventTypeSchema,
  isEventType,
  listSchemaFiles,
  registeredSchemaText,
  subjectOf,
  TOPICS,
} from '@pgw/contracts';
import {
  DEAD_LETTER_HEADERS,
  deadLetterTopic,
  HEADER_EVENT_ID,
  HEADER_EVENT_TYPE,
} from '@pgw/platform-bus';
import type { ServiceDefinition } from '@pgw/platform-service';

// The AsyncAPI document is generated from what the code holds: every schema file (listSchemaFiles, so a new
// version is in the document as soon as its file is), the topic of each type (EVENT_TOPICS), the registered
// schema text and subject (wire.ts), and the consumers each service builds. Those are built inside
// startService, so, as for the OpenAPI document, each definition's build is wrapped to see them.

type Json = Record<string, unknown>;

/** A consumer as its service built it: the consumer group `<service>.<consumer>` and the topics it reads. */
export interface CapturedConsumer {
  service: string;
  name: string;
  topics: string[];
}

/** Starts the all-in-one (in memory, silent) with every service's consumers observed, runs `whileRunning`, then stops it. */
export async function captureConsumers(
  whileRunning?: (url: string) => Promise<void>,
): Promise<CapturedConsumer[]> {
  const captured: CapturedConsumer[] = [];
  const observed = SERVICES.map((definition): ServiceDefinition => ({
    ...definition,
    build: async (app, context) => {
      const parts = await definition.build(app, context);
      for (const consumer of parts.consumers ?? [])
        captured.push({
          service: definition.name,
          name: consumer.name,
          topics: [...consumer.topics],
        });
      return parts;
    },
  }));
  const system = await startAllInOne({
    dataDir: null,
    port: 0,
    demo: false,
    log: { level: 'silent' },
    services: observed,
  });
  try {
    await whileRunning?.(system.url);
  } finally {
    await system.stop();
  }
  return captured;
}

type Topic = (typeof TOPICS)[keyof typeof TOPICS];

/**
 * What the code says of each topic in comments and in the producers' calls, here as data. Keyed by topic, so a
 * topic added to TOPICS does not typecheck until it is described; the key patterns are those of the ids
 * (libs/domain ids) the producers pass to outboxMessage.
 */
const TOPIC_DOCS: {
  [T in Topic]: { description: string; key: { description: string; pattern: string } };
} = {
  'gateway.directory': {
    description:
      'The directory (tenants, sellers, pricing plans) that the other services keep local copies of. Each event carries the whole state and a version that grows with each change: keep the highest version seen. Compacted: read from the beginning, it holds the last event of each entity.',
    key: {
      description:
        "`<tenant id>/<entity id>` (directoryKey), or the tenant id alone for a tenant's own event: one tenant's directory stays in order on one partition, and compaction keeps the last event of each entity.",
      pattern: '^ten_[A-Za-z0-9]+(/(seller|plan|we)_[A-Za-z0-9]+)?$',
    },
  },
  'gateway.webhook-endpoints': {
    description:
      'Webhook endpoints with their signing secrets; only the webhooks service reads it, so no other service ever receives a secret. Compacted, like the directory.',
    key: {
      description: '`<tenant id>/<webhook endpoint id>` (directoryKey).',
      pattern: '^ten_[A-Za-z0-9]+/we_[A-Za-z0-9]+$',
    },
  },
  'charges.charges': {
    description:
      'Every event of a charge, its refunds and its chargebacks, in the order they happened.',
    key: {
      description: 'The charge id: the events of one charge stay in order on one partition.',
      pattern: '^ch_[A-Za-z0-9]+$',
    },
  },
  'receivables.sellers': {
    description: 'Every receivable, settlement and balance movement of a seller.',
    key: {
      description: 'The seller id: the events of one seller stay in order on one partition.',
      pattern: '^seller_[A-Za-z0-9]+$',
    },
  },
  'anticipation.sellers': {
    description: 'Every anticipation executed for a seller.',
    key: { description: 'The seller id.', pattern: '^seller_[A-Za-z0-9]+$' },
  },
};

const KAFKA_BINDING_VERSION = '0.5.0';
const AVRO_SCHEMA_FORMAT = 'application/vnd.apache.avro+json;version=1.9.0';
const REPO_ROOT = `${__dirname}/../..`;

function topicDocs(topic: string): (typeof TOPIC_DOCS)[Topic] {
  const docs = (TOPIC_DOCS as Record<string, (typeof TOPIC_DOCS)[Topic] | undefined>)[topic];
  if (docs === undefined)
    throw new Error(
      `topic ${topic} is not in TOPICS: describe it in tools/asyncapi/build-document.ts`,
    );
  return docs;
}

/** The headers every event carries (the outbox relay's, and the producer's trace context: see enqueue). */
function headersOf(eventType: string): Json {
  return {
    type: 'object',
    description: 'Kafka headers, each value a UTF-8 string.',
    required: [HEADER_EVENT_ID, HEADER_EVENT_TYPE],
    properties: {
      [HEADER_EVENT_ID]: {
        type: 'string',
        pattern: '^evt_[A-Za-z0-9]+$',
        description:
          "The envelope's event_id. Delivery is at least once: a consumer drops an id it has already applied.",
      },
      [HEADER_EVENT_TYPE]: {
        type: 'string',
        const: eventType,
        description:
          '`<producer>.<event>.v<N>`: the record type of the body, so its reader schema and its registry subject.',
      },
      'origin-traceparent': {
        type: 'string',
        description:
          'W3C trace context of the work that produced the event; continue this trace, not `traceparent`. Absent when the producer had no trace.',
      },
      'origin-tracestate': {
        type: 'string',
        description: 'W3C trace state beside origin-traceparent, when the producer had one.',
      },
      traceparent: {
        type: 'string',
        description:
          "The relay's `send` span of this message (messaging semantic conventions); a consumer's `process` span links to it.",
      },
    },
  };
}

/**
 * Splits every named type's full name (`a.b.Name`) into `namespace` and `name`, recursively. An alias in the
 * type's own namespace becomes its simple name; one in another namespace (v2 of a record that was v1 under
 * another namespace) has no form the meta-schema accepts and moves to `x-aliases`, which Avro parsers ignore:
 * aliases only steer a reader reading an older writer, and the writer's schema is the registry's anyway.
 */
function withNamespaces(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withNamespaces);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema))
    out[key] = key === 'default' ? value : withNamespaces(value);
  const name = out.name;
  const named = out.type === 'record' || out.type === 'enum' || out.type === 'fixed';
  if (!named || typeof name !== 'string' || !name.includes('.')) return out;
  const namespace = name.slice(0, name.lastIndexOf('.'));
  const aliases = (out.aliases ?? []) as string[];
  const local = aliases
    .filter((a) => a.startsWith(`${namespace}.`) && !a.slice(namespace.length + 1).includes('.'))
    .map((a) => a.slice(namespace.length + 1));
  const foreign = aliases.filter((a) => a.includes('.') && !a.startsWith(`${namespace}.`));
  const { aliases: _aliases, ...rest } = out;
  return {
    ...rest,
    namespace,
    name: name.slice(namespace.length + 1),
    ...(local.length > 0 ? { aliases: local } : {}),
    ...(foreign.length > 0 ? { 'x-aliases': foreign } : {}),
  };
}

function messageOf(eventType: string, schemaPath: string): Json {
  if (!isEventType(eventType))
    throw new Error(
      `${schemaPath}: event type ${eventType} has no topic in EVENT_TOPICS (libs/contracts/src/events.ts)`,
    );
  const topic = EVENT_TOPICS[eventType];
  const schema = eventTypeSchema(eventType);
  return {
    name: eventType,
    title: schema.name ?? eventType,
    summary: `${eventType} on ${topic}`,
    contentType: 'application/octet-stream',
    'x-event-type': eventType,
    'x-schema-file': relative(REPO_ROOT, schemaPath),
    'x-schema-registry-subject': subjectOf(eventType),
    headers: headersOf(eventType),
    // The schema the producer registers under the subject (self-contained, the envelope inlined), with each
    // full name written as namespace and name: the same schema by Avro's rules, in the form AsyncAPI's Avro
    // meta-schema accepts (its `name` has no dot).
    payload: {
      schemaFormat: AVRO_SCHEMA_FORMAT,
      schema: withNamespaces(JSON.parse(registeredSchemaText(schema)) as unknown),
    },
    bindings: {
      kafka: {
        key: { type: 'string', ...topicDocs(topic).key },
        schemaIdLocation: 'payload',
        schemaIdPayloadEncoding: 'confluent',
        schemaLookupStrategy: 'TopicRecordNameStrategy',
        bindingVersion: KAFKA_BINDING_VERSION,
      },
    },
  };
}

const ref = (...path: string[]) => ({ $ref: `#/${path.join('/')}` });

/** The AsyncAPI 3 document of every event type (schema file), its topic, its producer and the consumers that read it. */
export function buildDocument(consumers: readonly CapturedConsumer[]): Json {
  const messages: Record<string, Json> = {};
  const channelMessages = new Map<string, Record<string, Json>>();
  const senders = new Map<string, { producer: string; topic: string; eventTypes: string[] }>();
  for (const file of listSchemaFiles()) {
    const message = messageOf(file.eventType, file.path);
    messages[file.eventType] = message;
    const topic = EVENT_TOPICS[file.eventType as keyof typeof EVENT_TOPICS];
    const onChannel = channelMessages.get(topic) ?? {};
    onChannel[file.eventType] = ref('components', 'messages', file.eventType);
    channelMessages.set(topic, onChannel);
    // The schema's folder is its producer (registry.ts), which is also the producing service's name.
    const producer = file.eventType.split('.')[0]!;
    const sender = senders.get(`${producer} ${topic}`) ?? { producer, topic, eventTypes: [] };
    sender.eventTypes.push(file.eventType);
    senders.set(`${producer} ${topic}`, sender);
  }

  const channels: Record<string, Json> = {};
  for (const topic of [...channelMessages.keys()].sort()) {
    const compacted = COMPACTED_TOPICS.includes(topic);
    channels[topic] = {
      address: topic,
      title: topic,
      description: topicDocs(topic).description,
      messages: channelMessages.get(topic),
      bindings: {
        kafka: {
          topic,
          // Compacted topics are created so (KafkaBus.ensureTopics); the others keep the broker's default.
          ...(compacted ? { topicConfiguration: { 'cleanup.policy': ['compact'] } } : {}),
          bindingVersion: KAFKA_BINDING_VERSION,
        },
      },
    };
  }

  const operations: Record<string, Json> = {};
  for (const { producer, topic, eventTypes } of [...senders.values()].sort((a, b) =>
    `${a.producer} ${a.topic}`.localeCompare(`${b.producer} ${b.topic}`),
  )) {
    operations[`${producer}.send.${topic}`] = {
      action: 'send',
      title: `${producer} publishes to ${topic}`,
      description: `Written to the ${producer} service's outbox in the transaction of the change it announces; the relay publishes it (idempotent producer, acks from every in-sync replica).`,
      channel: ref('channels', topic),
      messages: eventTypes.map((eventType) => ref('channels', topic, 'messages', eventType)),
      tags: [{ name: producer }],
    };
  }
  const sortedConsumers = [...consumers].sort((a, b) =>
    `${a.service}.${a.name}`.localeCompare(`${b.service}.${b.name}`),
  );
  for (const consumer of sortedConsumers) {
    // startService subscribes each consumer in the group `<service>.<consumer>`.
    const groupId = `${consumer.service}.${consumer.name}`;
    for (const topic of [...consumer.topics].sort()) {
      if (!channels[topic])
        throw new Error(
          `consumer ${groupId} reads ${topic}, which no schema file's type is published to`,
        );
      operations[`${groupId}.receive.${topic}`] = {
        action: 'receive',
        title: `${consumer.service} reads ${topic}`,
        description: `Consumer group ${groupId}: each event is applied once (inbox) in the transaction of its effect. A version of an event newer than this build's is read as the newest version it has (FULL_TRANSITIVE); an event it has no version of is parked in ${deadLetterTopic(consumer.service)}, not skipped.`,
        // No message list: a consumer reads every message of the topic and skips the types that are not its business.
        channel: ref('channels', topic),
        bindings: {
          kafka: {
            groupId: { type: 'string', enum: [groupId] },
            bindingVersion: KAFKA_BINDING_VERSION,
          },
        },
        tags: [{ name: consumer.service }],
      };
    }
  }

  // Each service with consumers parks what they cannot apply in a topic of its own, as it came (bytes, key and
  // headers) plus where it came from and why: any of the messages of the topics it reads.
  for (const service of [...new Set(sortedConsumers.map((c) => c.service))]) {
    const topic = deadLetterTopic(service);
    const read = new Set(
      sortedConsumers.filter((c) => c.service === service).flatMap((c) => c.topics),
    );
    const parked: Record<string, Json> = {};
    for (const source of [...read].sort())
      for (const eventType of Object.keys(channelMessages.get(source) ?? {}))
        parked[eventType] = ref('components', 'messages', eventType);
    channels[topic] = {
      address: topic,
      title: topic,
      description: `Events the ${service} service's consumers parked: the original bytes, key and headers, plus ${Object.values(
        DEAD_LETTER_HEADERS,
      )
        .map((h) => `\`${h}\``)
        .join(
          ', ',
        )} (why, which consumer, and the source topic, partition and offset). The operator routes /admin/v1/services/${service}/dead-letters list and replay them.`,
      messages: parked,
      bindings: { kafka: { topic, bindingVersion: KAFKA_BINDING_VERSION } },
    };
    operations[`${service}.send.${topic}`] = {
      action: 'send',
      title: `${service} parks events in ${topic}`,
      channel: ref('channels', topic),
      messages: Object.keys(parked).map((eventType) =>
        ref('channels', topic, 'messages', eventType),
      ),
      tags: [{ name: service }],
    };
  }

  return {
    asyncapi: '3.1.0',
    info: {
      title: 'Payment gateway events',
      version: 'v1',
      description: [
        'Generated by tools/asyncapi/generate.ts from the Avro schema files, the topics and the consumers of the services; do not edit by hand.',
        "Every message is in the Confluent wire format: byte 0 is the magic byte 0, bytes 1-4 the writer's schema id (big-endian), the rest the Avro binary body.",
        "Any Confluent Avro deserializer reads it with the registry URL alone; the payload below is the schema as registered under the message's subject (TopicRecordNameStrategy, FULL_TRANSITIVE).",
      ].join(' '),
    },
    defaultContentType: 'application/octet-stream',
    servers: {
      local: {
        host: '127.0.0.1:9092',
        protocol: 'kafka',
        description:
          "docker compose (KAFKA_BROKERS); the schema registry is Apicurio's Confluent-compatible API (SCHEMA_REGISTRY_URL).",
        bindings: {
          kafka: {
            schemaRegistryUrl: 'http://127.0.0.1:8081/apis/ccompat/v7',
            schemaRegistryVendor: 'confluent',
            bindingVersion: KAFKA_BINDING_VERSION,
          },
        },
      },
    },
    channels,
    operations,
    components: { messages },
  };
}

/** The document as committed: two-space JSON and a final newline. */
export const serialize = (document: Json): string => `${JSON.stringify(document, null, 2)}\n`;
