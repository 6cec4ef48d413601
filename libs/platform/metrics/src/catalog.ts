// Every metric the services emit, in one place: the instruments are made from these definitions
// (instruments.ts), docs/metrics.md is generated from them (render.ts), and specs fail when the code makes
// an instrument that is not here or when an end-to-end run does not emit one that is. Units are UCUM, in the
// metadata and never in the name; durations are seconds, as the OpenTelemetry semantic conventions ask.

export type MetricKind = 'counter' | 'histogram' | 'gauge' | 'observable_gauge';

/** Which table of docs/metrics.md a metric is listed in. */
export type MetricGroup =
  'http' | 'messaging' | 'bus' | 'webhooks' | 'gateway' | 'invariants' | 'business';

export interface MetricDefinition<A extends string = string, C extends string = never> {
  name: string;
  kind: MetricKind;
  /** UCUM: `s`, `1`, or an annotation in braces for a count of things (`{message}`). */
  unit: string;
  description: string;
  /** The instrumentation scope (meter name) it is recorded under. */
  meter: string;
  /** Other scopes that record the same metric, for calls this code does not make itself. */
  otherMeters?: readonly string[];
  /** Who records it, for whoever reads the catalog looking for the code. */
  recordedBy: string;
  group: MetricGroup;
  /** Attributes on every data point, with what they hold. */
  attributes: Record<A, string>;
  /** Attributes on some data points only (say when in the text). */
  conditionalAttributes?: Record<C, string>;
  /** Histogram bucket boundaries, in the metric's unit. */
  buckets?: readonly number[];
}

/** The semantic conventions' advice for HTTP and messaging durations, in seconds. */
export const DURATION_BUCKETS_S = [
  0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10,
] as const;
/** An outbox row's wait reaches minutes when the broker is down: the buckets go to 10 minutes. */
const OUTBOX_LAG_BUCKETS_S = [
  0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600,
] as const;

const define = <A extends string, C extends string = never>(
  definition: MetricDefinition<A, C>,
): MetricDefinition<A, C> => definition;

const LIVEMODE =
  '`true` for live traffic, `false` for test mode (keep test traffic out of business dashboards)';
const PAYMENT_METHOD = '`credit_card`, `debit_card`, `pix` or `boleto`';
const SERVICE_SCHEMA =
  "the service, by its database schema (`charges`, `ledger`, …; `gateway` for the gateway's own outbox)";

// --- The OpenTelemetry semantic conventions ------------------------------------------------------------

export const HTTP_SERVER_REQUEST_DURATION = define({
  name: 'http.server.request.duration',
  kind: 'histogram',
  unit: 's',
  description:
    'Time to answer each HTTP request a server received: the rate, errors and latency of every route (RED).',
  meter: '@opentelemetry/instrumentation-http',
  recordedBy: '@opentelemetry/instrumentation-http, in every service (telemetry.ts)',
  group: 'http',
  attributes: {
    'http.request.method': '`GET`, `POST`, …',
    'http.response.status_code': 'the status answered',
    'url.scheme': '`http` (TLS ends before the pods)',
    'network.protocol.version': '`1.1`',
  },
  conditionalAttributes: {
    'http.route':
      'the route template (`/api/v1/charges/:id`), never the raw path; absent when no route matched (a 404)',
    'error.type': 'the status on a 5xx answer, or the error when the request failed without one',
  },
  buckets: DURATION_BUCKETS_S,
});

export const HTTP_CLIENT_REQUEST_DURATION = define({
  name: 'http.client.request.duration',
  kind: 'histogram',
  unit: 's',
  description:
    "Time of each outgoing HTTP request until its answer's headers: the gateway's calls to the services, the services' calls to each other and to the acquirer (distributed mode), and webhook deliveries.",
  meter: '@pgw/platform-http',
  otherMeters: ['@opentelemetry/instrumentation-http'],
  recordedBy:
    "libs/platform/http client-metrics.ts for undici's calls (the gateway's proxy, HttpPeers), and @opentelemetry/instrumentation-http for node:http's (webhook deliveries)",
  group: 'http',
  attributes: {
    'http.request.method': '`GET`, `POST`, …',
    'server.address': 'the host called',
    'server.port': 'its port',
  },
  conditionalAttributes: {
    'http.response.status_code': 'when an answer came',
    'error.type': 'when none came: a timeout, a refused connection',
    'url.scheme': '`http` or `https`, on the calls through undici',
    'network.protocol.version': '`1.1`, on the calls through node:http',
  },
  buckets: DURATION_BUCKETS_S,
});

export const MESSAGING_CLIENT_SENT_MESSAGES = define({
  name: 'messaging.client.sent.messages',
  kind: 'counter',
  unit: '{message}',
  description:
    'Messages the outbox relays handed to the broker (counted once the broker acknowledged them, or failed).',
  meter: '@pgw/platform-bus',
  recordedBy: 'libs/platform/bus messaging-spans.ts, for both buses',
  group: 'messaging',
  attributes: {
    'messaging.system': '`kafka`, or `in-process` in the all-in-one',
    'messaging.destination.name': 'the topic',
    'messaging.operation.name': '`send`',
  },
  conditionalAttributes: { 'error.type': 'when the send failed' },
});

export const MESSAGING_CLIENT_OPERATION_DURATION = define({
  name: 'messaging.client.operation.duration',
  kind: 'histogram',
  unit: 's',
  description:
    "Time of each send to the broker, until its acknowledgement (acks=all): the relay's view of the broker's health.",
  meter: '@pgw/platform-bus',
  recordedBy: 'libs/platform/bus messaging-spans.ts, for both buses',
  group: 'messaging',
  attributes: {
    'messaging.system': '`kafka` or `in-process`',
    'messaging.destination.name': 'the topic',
    'messaging.operation.name': '`send`',
  },
  conditionalAttributes: { 'error.type': 'when the send failed' },
  buckets: DURATION_BUCKETS_S,
});

export const MESSAGING_CLIENT_CONSUMED_MESSAGES = define({
  name: 'messaging.client.consumed.messages',
  kind: 'counter',
  unit: '{message}',
  description:
    'Messages delivered to a consumer group (a redelivery counts again; the inbox makes it harmless).',
  meter: '@pgw/platform-bus',
  recordedBy: 'libs/platform/bus kafka-bus.ts and in-process-bus.ts',
  group: 'messaging',
  attributes: {
    'messaging.system': '`kafka` or `in-process`',
    'messaging.destination.name': 'the topic',
    'messaging.consumer.group.name': 'the group, `<schema>.<consumer>`',
    'messaging.destination.partition.id': 'the partition (`0` on the in-process bus)',
    'messaging.operation.name': '`process`',
  },
});

export const MESSAGING_PROCESS_DURATION = define({
  name: 'messaging.process.duration',
  kind: 'histogram',
  unit: 's',
  description: "Time a consumer took to apply one message, inside its batch's transaction.",
  meter: '@pgw/platform-bus',
  recordedBy: 'libs/platform/bus messaging-spans.ts (each process span)',
  group: 'messaging',
  attributes: {
    'messaging.system': '`kafka` or `in-process`',
    'messaging.destination.name': 'the topic',
    'messaging.consumer.group.name': 'the group, `<schema>.<consumer>`',
    'messaging.operation.name': '`process`',
  },
  conditionalAttributes: {
    'error.type': 'when applying it threw; the batch is retried, then the event parked',
  },
  buckets: DURATION_BUCKETS_S,
});

// --- The outbox and the consumers ----------------------------------------------------------------------

export const OUTBOX_LAG = define({
  name: 'outbox.lag',
  kind: 'histogram',
  unit: 's',
  description:
    'Age of the oldest unsent outbox row, at each relay round that found rows to send: how late events leave the service.',
  meter: '@pgw/platform-bus',
  recordedBy: 'libs/platform/bus outbox.ts (OutboxRelay)',
  group: 'bus',
  attributes: { service: SERVICE_SCHEMA },
  buckets: OUTBOX_LAG_BUCKETS_S,
});

export const OUTBOX_BACKLOG = define({
  name: 'outbox.backlog',
  kind: 'observable_gauge',
  unit: '{event}',
  description:
    'Outbox rows not yet sent, as the relay holding the lease last counted them (counted up to 100,000). Only that replica reports it, and only while it holds the lease.',
  meter: '@pgw/platform-bus',
  recordedBy: 'libs/platform/bus outbox.ts (OutboxRelay)',
  group: 'bus',
  attributes: { service: SERVICE_SCHEMA },
});

export const OUTBOX_PUBLISHED = define({
  name: 'outbox.published',
  kind: 'counter',
  unit: '{event}',
  description:
    'Outbox rows published (acknowledged by the broker; the relay marks them sent in its next round). Flat while the backlog grows: the relay is stalled.',
  meter: '@pgw/platform-bus',
  recordedBy: 'libs/platform/bus outbox.ts (OutboxRelay)',
  group: 'bus',
  attributes: { service: SERVICE_SCHEMA },
});

export const OUTBOX_RELAY_FAILURES = define({
  name: 'outbox.relay.failures',
  kind: 'counter',
  unit: '{round}',
  description:
    'Relay rounds that failed (broker or database unreachable); the relay backs off up to 5 s and tries again.',
  meter: '@pgw/platform-bus',
  recordedBy: 'libs/platform/bus outbox.ts (OutboxRelay)',
  group: 'bus',
  attributes: { service: SERVICE_SCHEMA },
});

export const CONSUMER_LAG = define({
  name: 'consumer.lag',
  kind: 'gauge',
  unit: '{message}',
  description:
    'Messages on a partition that its consumer group has yet to read, as seen at each batch it receives (Kafka: the high watermark less the batch; in-process: the queue). Growing: the group cannot keep up, or is stuck on one event.',
  meter: '@pgw/platform-bus',
  recordedBy: 'libs/platform/bus kafka-bus.ts and in-process-bus.ts',
  group: 'bus',
  attributes: {
    'messaging.system': '`kafka` or `in-process`',
    'messaging.consumer.group.name': 'the group, `<schema>.<consumer>`',
    'messaging.destination.name': 'the topic',
    'messaging.destination.partition.id': 'the partition',
  },
});

export const CONSUMER_DEAD_LETTERS = define({
  name: 'consumer.dead_letters',
  kind: 'counter',
  unit: '{event}',
  description:
    'Events a consumer parked in its dead-letter table instead of applying (docs/runbook.md, "Parked events").',
  meter: '@pgw/platform-bus',
  recordedBy: 'libs/platform/bus dead-letters.ts',
  group: 'bus',
  attributes: {
    service: 'the service that parked it',
    consumer: 'its consumer',
    reason:
      '`unknown_type` (a producer is ahead of this consumer) or `handler_failed` (a bug or bad data)',
  },
});

// --- Invariants -----------------------------------------------------------------------------------------

export const INVARIANTS_BROKEN = define({
  name: 'invariants.broken',
  kind: 'counter',
  unit: '{failure}',
  description:
    'Broken invariants (a bug or state not to be trusted, never an operating error): each failed `assert` of ' +
    '@pgw/domain. Any one is worth a page (docs/engineering.md, "Broken invariants").',
  meter: '@pgw/platform-service',
  recordedBy:
    'libs/platform/service invariants.ts, installed by runMain and the all-in-one at start',
  group: 'invariants',
  attributes: {
    service: 'the process (`charges`, …; `all-in-one` for the single process)',
    invariant:
      "the invariant's dotted name (`charge.refunds-within-amount`): a bounded set, one per assertion",
  },
});

// --- Webhooks -------------------------------------------------------------------------------------------

export const WEBHOOK_DELIVERY_ATTEMPTS = define({
  name: 'webhook.delivery.attempts',
  kind: 'counter',
  unit: '{attempt}',
  description:
    "Attempts to deliver an event to an integrator's endpoint. One endpoint failing is that integrator's problem; many at once is ours.",
  meter: '@pgw/webhooks',
  recordedBy: 'apps/webhooks delivery-worker.ts',
  group: 'webhooks',
  attributes: {
    outcome: '`success` (a 2xx) or `failure`',
    reason:
      '`http_2xx`, `http_3xx`, `http_4xx`, `http_5xx`, `timeout`, `connection_error`, `blocked_address` or `aborted` (the service stopped)',
    endpoint: 'the endpoint id (`we_…`)',
  },
});

export const WEBHOOK_DELIVERIES = define({
  name: 'webhook.deliveries',
  kind: 'counter',
  unit: '{delivery}',
  description:
    'Deliveries that ended: delivered, or given up after their retry window (24 h) with the reason of the last attempt.',
  meter: '@pgw/webhooks',
  recordedBy: 'apps/webhooks delivery-worker.ts',
  group: 'webhooks',
  attributes: {
    outcome: '`delivered` or `given_up`',
    reason: "the last attempt's reason, as in `webhook.delivery.attempts`",
  },
});

export const WEBHOOK_DELIVERY_DURATION = define({
  name: 'webhook.delivery.duration',
  kind: 'histogram',
  unit: 's',
  description:
    "Time of each attempt, from the address lookup to the receiver's answer (or the timeout).",
  meter: '@pgw/webhooks',
  recordedBy: 'apps/webhooks delivery-worker.ts',
  group: 'webhooks',
  attributes: { outcome: '`success` or `failure`' },
  buckets: DURATION_BUCKETS_S,
});

// --- The gateway ----------------------------------------------------------------------------------------

export const GATEWAY_UPSTREAM_IN_FLIGHT = define({
  name: 'gateway.upstream.in_flight',
  kind: 'observable_gauge',
  unit: '{request}',
  description:
    "Requests a gateway replica has forwarded to a service and not yet seen answered; at the service's gateway.upstream.limit the next request is refused.",
  meter: '@pgw/gateway',
  recordedBy: 'apps/gateway service.ts',
  group: 'gateway',
  attributes: { service: 'the service forwarded to (`charges`, `vault`, …)' },
});

export const GATEWAY_UPSTREAM_LIMIT = define({
  name: 'gateway.upstream.limit',
  kind: 'observable_gauge',
  unit: '{request}',
  description:
    "A service's adaptive concurrency limit in a gateway replica: at most this many requests in flight before the next is answered 503. Falls when the service answers later than UPSTREAM_LATENCY_TARGET_MS, grows back up to UPSTREAM_IN_FLIGHT_MAX while it answers in time.",
  meter: '@pgw/gateway',
  recordedBy: 'apps/gateway service.ts',
  group: 'gateway',
  attributes: { service: 'the service forwarded to (`charges`, `vault`, …)' },
});

export const GATEWAY_ADMISSION_REJECTED = define({
  name: 'gateway.admission.rejected',
  kind: 'counter',
  unit: '{request}',
  description:
    'Requests answered 503 with Retry-After without being forwarded, because their service had no free slot.',
  meter: '@pgw/gateway',
  recordedBy: 'apps/gateway forwarding/admission.ts',
  group: 'gateway',
  attributes: { service: 'the service that had no free slot' },
});

// --- Business figures -----------------------------------------------------------------------------------

export const CHARGES_CREATED = define({
  name: 'charges.created',
  kind: 'counter',
  unit: '{charge}',
  description: 'Charges created (an idempotent replay is not counted again).',
  meter: '@pgw/charges',
  recordedBy: 'apps/charges operations/announce.ts, after the commit',
  group: 'business',
  attributes: { payment_method: PAYMENT_METHOD, livemode: LIVEMODE },
});

export const CHARGES_STATUS_CHANGES = define({
  name: 'charges.status_changes',
  kind: 'counter',
  unit: '{charge}',
  description:
    'Charges arriving in a status: the outcome of each method (paid, refused, failed, …). A charge paid at creation counts here too.',
  meter: '@pgw/charges',
  recordedBy: 'apps/charges operations/announce.ts, after the commit',
  group: 'business',
  attributes: {
    payment_method: PAYMENT_METHOD,
    status:
      '`authorized`, `paid`, `refused`, `failed`, `canceled`, `refunded`, `partially_refunded` or `chargeback`',
    livemode: LIVEMODE,
  },
});

export const CHARGES_PAID_AMOUNT = define({
  name: 'charges.paid.amount',
  kind: 'counter',
  unit: '{cent}',
  description: 'Amount of the charges paid, in centavos (BRL): the volume processed.',
  meter: '@pgw/charges',
  recordedBy: 'apps/charges operations/announce.ts, after the commit',
  group: 'business',
  attributes: { payment_method: PAYMENT_METHOD, livemode: LIVEMODE },
});

export const CHARGES_AUTHORIZATIONS = define({
  name: 'charges.authorizations',
  kind: 'counter',
  unit: '{authorization}',
  description:
    "Card authorizations the acquirer answered, by brand: the approval rate of a brand is its `approved` over all its outcomes. `failed` is an error or timeout, not the issuer's decline.",
  meter: '@pgw/charges',
  recordedBy: 'apps/charges operations/announce.ts, after the commit',
  group: 'business',
  attributes: {
    'card.brand':
      '`visa`, `mastercard`, `elo`, `amex`, `hipercard`, … as the vault detected it (`unknown` when it did not)',
    outcome: '`approved`, `declined` or `failed`',
    payment_method: '`credit_card` or `debit_card`',
    livemode: LIVEMODE,
  },
});

export const CHARGES_REFUNDS = define({
  name: 'charges.refunds',
  kind: 'counter',
  unit: '{refund}',
  description: 'Refunds that ended, by outcome.',
  meter: '@pgw/charges',
  recordedBy: 'apps/charges operations/announce.ts, after the commit',
  group: 'business',
  attributes: {
    payment_method: PAYMENT_METHOD,
    status: '`succeeded` or `failed`',
    livemode: LIVEMODE,
  },
});

export const CHARGES_REFUNDS_AMOUNT = define({
  name: 'charges.refunds.amount',
  kind: 'counter',
  unit: '{cent}',
  description: 'Amount refunded (succeeded refunds), in centavos (BRL).',
  meter: '@pgw/charges',
  recordedBy: 'apps/charges operations/announce.ts, after the commit',
  group: 'business',
  attributes: { payment_method: PAYMENT_METHOD, livemode: LIVEMODE },
});

export const ANTICIPATION_EXECUTIONS = define({
  name: 'anticipation.executions',
  kind: 'counter',
  unit: '{anticipation}',
  description: 'Anticipations executed.',
  meter: '@pgw/anticipation',
  recordedBy: 'apps/anticipation operations/execute.ts, after the commit',
  group: 'business',
  attributes: { livemode: LIVEMODE },
});

export const ANTICIPATION_GROSS_AMOUNT = define({
  name: 'anticipation.gross.amount',
  kind: 'counter',
  unit: '{cent}',
  description:
    'Receivables anticipated, before the fee, in centavos (BRL): the anticipation volume.',
  meter: '@pgw/anticipation',
  recordedBy: 'apps/anticipation operations/execute.ts, after the commit',
  group: 'business',
  attributes: { livemode: LIVEMODE },
});

export const ANTICIPATION_FEE_AMOUNT = define({
  name: 'anticipation.fee.amount',
  kind: 'counter',
  unit: '{cent}',
  description: 'Fees charged on the anticipations executed, in centavos (BRL).',
  meter: '@pgw/anticipation',
  recordedBy: 'apps/anticipation operations/execute.ts, after the commit',
  group: 'business',
  attributes: { livemode: LIVEMODE },
});

/** The whole catalog, in the order of docs/metrics.md. */
export const METRIC_CATALOG: readonly MetricDefinition<string, string>[] = [
  HTTP_SERVER_REQUEST_DURATION,
  HTTP_CLIENT_REQUEST_DURATION,
  MESSAGING_CLIENT_SENT_MESSAGES,
  MESSAGING_CLIENT_OPERATION_DURATION,
  MESSAGING_CLIENT_CONSUMED_MESSAGES,
  MESSAGING_PROCESS_DURATION,
  OUTBOX_LAG,
  OUTBOX_BACKLOG,
  OUTBOX_PUBLISHED,
  OUTBOX_RELAY_FAILURES,
  CONSUMER_LAG,
  CONSUMER_DEAD_LETTERS,
  INVARIANTS_BROKEN,
  WEBHOOK_DELIVERY_ATTEMPTS,
  WEBHOOK_DELIVERIES,
  WEBHOOK_DELIVERY_DURATION,
  GATEWAY_UPSTREAM_IN_FLIGHT,
  GATEWAY_UPSTREAM_LIMIT,
  GATEWAY_ADMISSION_REJECTED,
  CHARGES_CREATED,
  CHARGES_STATUS_CHANGES,
  CHARGES_PAID_AMOUNT,
  CHARGES_AUTHORIZATIONS,
  CHARGES_REFUNDS,
  CHARGES_REFUNDS_AMOUNT,
  ANTICIPATION_EXECUTIONS,
  ANTICIPATION_GROSS_AMOUNT,
  ANTICIPATION_FEE_AMOUNT,
];
