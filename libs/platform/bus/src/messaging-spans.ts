import {
  context,
  createContextKey,
  isSpanContextValid,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
} from '@opentelemetry/api';
import {
  counter,
  histogram,
  MESSAGING_CLIENT_OPERATION_DURATION,
  MESSAGING_CLIENT_SENT_MESSAGES,
  MESSAGING_PROCESS_DURATION,
  secondsSince,
} from '@pgw/platform-metrics';
import { HEADER_EVENT_ID, HEADER_EVENT_TYPE, type BusMessage } from './bus';
import { ORIGIN_PREFIX } from './outbox';

// The messaging spans of the OpenTelemetry semantic conventions, for both buses. One payment is one trace:
// - `send <topic>` (PRODUCER), one per message, by the bus that publishes it: a child of the request that
//   wrote the event (its context travels in the outbox as `origin-traceparent`), ending with the broker's
//   ack; the message carries it as `traceparent`, its creation context;
// - `process <topic>` (CONSUMER), one per message a consumer applies (inbox.ts): a child of that same request,
//   so each hop hangs under the work that caused it, with a link to the `send` span, which shows when the
//   relay got it out.
// Reading a batch opens no trace of its own: the OpenTelemetry kafkajs instrumentation, which made a
// `poll <topic>` root span per batch (and a send span per message, the root of another trace), is not
// registered (libs/platform/telemetry). What it recorded that matters is here: partition, offset and key on
// each span; the batch's size and the group's lag are metrics (recordDelivered, docs/metrics.md).

const tracer = trace.getTracer('@pgw/platform-bus');
const sentMetric = counter(MESSAGING_CLIENT_SENT_MESSAGES);
const sendDurationMetric = histogram(MESSAGING_CLIENT_OPERATION_DURATION);
const processDurationMetric = histogram(MESSAGING_PROCESS_DURATION);

const errorType = (error: unknown) => (error instanceof Error ? error.name : 'unknown');

/** The sends' metrics: one send of the batch per topic, as the producer sends a batch in one request. */
function recordSent(system: string, messages: BusMessage[], startMs: number, error: unknown): void {
  const seconds = secondsSince(startMs);
  const sizes = new Map<string, number>();
  for (const m of messages) sizes.set(m.topic, (sizes.get(m.topic) ?? 0) + 1);
  for (const [topic, size] of sizes) {
    const attributes = {
      'messaging.system': system,
      'messaging.destination.name': topic,
      'messaging.operation.name': 'send',
      ...(error !== undefined ? { 'error.type': errorType(error) } : {}),
    };
    sentMetric.add(size, attributes);
    sendDurationMetric.record(seconds, attributes);
  }
}

/** The `messaging.system` of the bus that delivers a batch, set around its handler (withMessagingSystem). */
const MESSAGING_SYSTEM = createContextKey('@pgw/platform-bus messaging.system');

// Reads the producer's trace context, which the outbox stored under `origin-` header names.
const originGetter = {
  keys: (carrier: Record<string, string>) =>
    Object.keys(carrier)
      .filter((k) => k.startsWith(ORIGIN_PREFIX))
      .map((k) => k.slice(ORIGIN_PREFIX.length)),
  get: (carrier: Record<string, string>, key: string) => carrier[`${ORIGIN_PREFIX}${key}`],
};

/** The context of the request that wrote the event: the parent of its send and process spans. */
function originContext(message: BusMessage): Context {
  return propagation.extract(ROOT_CONTEXT, message.headers, originGetter);
}

function messageAttributes(
  system: string | undefined,
  message: BusMessage,
  operation: 'send' | 'process',
): Attributes {
  const eventId = message.headers[HEADER_EVENT_ID];
  const eventType = message.headers[HEADER_EVENT_TYPE];
  return {
    ...(system !== undefined ? { 'messaging.system': system } : {}),
    'messaging.destination.name': message.topic,
    'messaging.operation.type': operation,
    'messaging.operation.name': operation,
    ...(eventId !== undefined ? { 'messaging.message.id': eventId } : {}),
    ...(system === 'kafka' ? { 'messaging.kafka.message.key': message.key } : {}),
    ...(message.partition !== undefined
      ? { 'messaging.destination.partition.id': String(message.partition) }
      : {}),
    ...(system === 'kafka' && message.offset !== undefined
      ? { 'messaging.kafka.offset': Number(message.offset) }
      : {}),
    // Not a convention: the versioned event type, which says more than the topic to whoever reads the trace.
    ...(eventType !== undefined ? { 'pgw.event.type': eventType } : {}),
  };
}

/**
 * Publishes `messages` with a `send <topic>` span each: the returned messages carry the span as `traceparent`
 * for `publish` to put on the wire. The spans end when `publish` settles, in error if it failed.
 */
export async function publishWithSpans(
  system: string,
  messages: BusMessage[],
  publish: (messages: BusMessage[]) => Promise<void>,
): Promise<void> {
  const spans: Span[] = [];
  const traced = messages.map((message) => {
    const span = tracer.startSpan(
      `send ${message.topic}`,
      { kind: SpanKind.PRODUCER, attributes: messageAttributes(system, message, 'send') },
      originContext(message),
    );
    spans.push(span);
    const headers = { ...message.headers };
    propagation.inject(trace.setSpan(ROOT_CONTEXT, span), headers);
    return { ...message, headers };
  });
  const startMs = performance.now();
  try {
    await publish(traced);
    recordSent(system, messages, startMs, undefined);
  } catch (error) {
    recordSent(system, messages, startMs, error);
    for (const span of spans) {
      span.setAttribute('error.type', errorType(error));
      span.setStatus({
        code: SpanStatusCode.ERROR,
        message: error instanceof Error ? error.message : String(error),
      });
    }
    throw error;
  } finally {
    for (const span of spans) span.end();
  }
}

/** Runs a bus's batch handler knowing which system delivered the batch, for the process spans' attributes. */
export function withMessagingSystem<T>(system: string, handle: () => Promise<T>): Promise<T> {
  return context.with(context.active().setValue(MESSAGING_SYSTEM, system), handle);
}

/** Runs `apply` in a `process <topic>` span: a child of the request that wrote the event, linked to its send span. */
export function processSpan<T>(
  message: BusMessage,
  consumerGroup: string,
  apply: () => Promise<T>,
): Promise<T> {
  const system = context.active().getValue(MESSAGING_SYSTEM) as string | undefined;
  const sent = trace.getSpanContext(propagation.extract(ROOT_CONTEXT, message.headers));
  const links: Link[] = sent !== undefined && isSpanContextValid(sent) ? [{ context: sent }] : [];
  const attributes = {
    ...messageAttributes(system, message, 'process'),
    'messaging.consumer.group.name': consumerGroup,
  };
  const measured = {
    'messaging.system': system ?? 'unknown',
    'messaging.destination.name': message.topic,
    'messaging.consumer.group.name': consumerGroup,
    'messaging.operation.name': 'process',
  };
  return tracer.startActiveSpan(
    `process ${message.topic}`,
    { kind: SpanKind.CONSUMER, attributes, links },
    originContext(message),
    async (span) => {
      const startMs = performance.now();
      try {
        const result = await apply();
        processDurationMetric.record(secondsSince(startMs), measured);
        return result;
      } catch (error) {
        processDurationMetric.record(secondsSince(startMs), {
          ...measured,
          'error.type': errorType(error),
        });
        // The type only: a database error's message can quote the event's data.
        span.setAttribute('error.type', errorType(error));
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}
