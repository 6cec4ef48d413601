// The Grafana dashboards shipped with the gateway, written as data: `generate.ts` writes each one to
// deploy/observability/dashboards/<uid>.json (provisioned by docker-compose, and put in a ConfigMap for
// Grafana's sidecar by tools/deploy), and the spec checks that every query reads a metric of
// docs/metrics.md or a recording rule of deploy/observability/rules. Every dashboard takes its Prometheus
// from a `datasource` variable, so it loads in any Grafana.
//
// Labels: the apps' resource attribute service.name is the label `service_name` (the collector's
// prometheus exporter copies resource attributes to labels); the bus's own metrics carry `service`, the
// service's database schema, which is the same name.

/** Grafana's dashboard JSON model version these are written for (Grafana 11). */
const SCHEMA_VERSION = 39;
const DATASOURCE = { type: 'prometheus', uid: '${datasource}' } as const;
const GRID_WIDTH = 24;

export type Unit = 'reqps' | 'ops' | 'percentunit' | 's' | 'short' | 'currencyBRL' | 'none';

export interface Query {
  expr: string;
  /** Grafana's legend template: `{{label}}`. */
  legend?: string;
}

export interface PanelSpec {
  title: string;
  /** What the panel says and when to worry, shown in the panel's (i) tooltip. */
  description: string;
  kind: 'timeseries' | 'stat';
  unit: Unit;
  queries: Query[];
  /** Columns out of 24; panels flow left to right and wrap. */
  width?: number;
  /** A red line (timeseries) or the red step (stat) at this value. */
  threshold?: number;
}

/**
 * A latency panel (a quantile of a histogram) shows its exemplars: the dots of sampled requests in their
 * buckets, whose `trace_id` the Prometheus data source links to the trace (exemplarTraceIdDestinations in
 * deploy/observability/grafana/datasources.yaml; docs/metrics.md, Exemplars). Asked once per panel, by its
 * first quantile query: the others read the same buckets.
 */
export const showsExemplars = (spec: PanelSpec): boolean =>
  spec.kind === 'timeseries' && spec.queries.some((q) => q.expr.startsWith('histogram_quantile('));

export interface RowSpec {
  title: string;
  panels: PanelSpec[];
}

export interface DashboardSpec {
  uid: string;
  title: string;
  description: string;
  /** Variables besides `datasource`: a label's values, or fixed options. */
  variables?: Array<
    | { name: string; label: string; query: string }
    | { name: string; label: string; options: string[] }
  >;
  rows: RowSpec[];
}

// ---- the payment path's selectors, written once ----------------------------------------------------------

const CHARGE = 'service_name="gateway",http_request_method="POST",http_route="/api/v1/charges"';
const rate = (selector: string) => `rate(${selector}[$__rate_interval])`;
const p = (quantile: number, metric: string, selector: string, by: string[]) =>
  `histogram_quantile(${quantile}, sum by (${[...by, 'le'].join(', ')}) (${rate(`${metric}_bucket${selector === '' ? '' : `{${selector}}`}`)}))`;
/** The SLOs of slo.rules.yaml, by their `slo` label. */
const SLOS = ['charge-availability', 'charge-latency'] as const;

export const DASHBOARDS: DashboardSpec[] = [
  {
    uid: 'pgw-overview',
    title: 'Payment gateway / Payment path',
    description:
      'The charge SLOs and the hops of a payment: gateway → charges → outbox → Kafka → consumers → webhooks (docs/runbook.md, SLOs and alerts).',
    rows: [
      {
        title: 'SLOs (30 days)',
        panels: [
          ...SLOS.map((slo): PanelSpec => ({
            title: `Error budget left: ${slo}`,
            description: `Share of the 30-day error budget of ${slo} not yet spent (the mean of the 5-minute error ratio over 30 days, against the budget). Below 0: the SLO is missed.`,
            kind: 'stat',
            unit: 'percentunit',
            width: 6,
            threshold: 0,
            queries: [
              {
                expr: `1 - avg_over_time(slo:sli_error:ratio_rate5m{slo="${slo}"}[30d]) / on(slo) slo:error_budget:ratio{slo="${slo}"}`,
              },
            ],
          })),
          {
            title: 'Burn rate, 1 h and 6 h',
            description:
              'Error ratio over the budget: 1 spends the budget in exactly 30 days. The page thresholds are 14.4 (1 h) and 6 (6 h).',
            kind: 'timeseries',
            unit: 'none',
            width: 12,
            threshold: 14.4,
            queries: [
              {
                expr: 'slo:sli_error:ratio_rate1h / on(slo) group_left slo:error_budget:ratio',
                legend: '{{slo}} 1h',
              },
              {
                expr: 'slo:sli_error:ratio_rate6h / on(slo) group_left slo:error_budget:ratio',
                legend: '{{slo}} 6h',
              },
            ],
          },
        ],
      },
      {
        title: 'Charges at the gateway',
        panels: [
          {
            title: 'POST /api/v1/charges by status',
            description:
              "Charge creations answered per second, by HTTP status. 5xx spend the availability budget; 4xx are the integrators' own errors.",
            kind: 'timeseries',
            unit: 'reqps',
            queries: [
              {
                expr: `sum by (http_response_status_code) (${rate(`http_server_request_duration_seconds_count{${CHARGE}}`)})`,
                legend: '{{http_response_status_code}}',
              },
            ],
          },
          {
            title: 'POST /api/v1/charges latency',
            description:
              'p50, p95 and p99 of the time to answer a charge creation. The latency SLO: 99 % within 1 s.',
            kind: 'timeseries',
            unit: 's',
            threshold: 1,
            queries: [0.5, 0.95, 0.99].map((q) => ({
              expr: p(q, 'http_server_request_duration_seconds', CHARGE, []),
              legend: `p${q * 100}`,
            })),
          },
          {
            title: 'Charges created by method',
            description: 'Charges created per second (live and test mode), by payment method.',
            kind: 'timeseries',
            unit: 'ops',
            queries: [
              {
                expr: `sum by (payment_method) (${rate('charges_created_total')})`,
                legend: '{{payment_method}}',
              },
            ],
          },
        ],
      },
      {
        title: 'After the charge: events and webhooks',
        panels: [
          {
            title: 'Outbox lag by service (p99)',
            description:
              'Age of the oldest unsent outbox row at the relay rounds: how late events leave each service. Page above 30 s (OutboxLagHigh).',
            kind: 'timeseries',
            unit: 's',
            threshold: 30,
            queries: [
              { expr: p(0.99, 'outbox_lag_seconds', '', ['service']), legend: '{{service}}' },
            ],
          },
          {
            title: 'Consumer lag by group',
            description:
              'Messages published and not yet read, by consumer group (the largest partition). Ticket above 1,000 for 10 min (ConsumerLagHigh).',
            kind: 'timeseries',
            unit: 'short',
            threshold: 1000,
            queries: [
              {
                expr: 'max by (messaging_consumer_group_name) (consumer_lag)',
                legend: '{{messaging_consumer_group_name}}',
              },
            ],
          },
          {
            title: 'Webhook deliveries by outcome',
            description:
              'Deliveries that ended per second: delivered, or given up after 24 h of retries.',
            kind: 'timeseries',
            unit: 'ops',
            queries: [
              {
                expr: `sum by (outcome) (${rate('webhook_deliveries_total')})`,
                legend: '{{outcome}}',
              },
            ],
          },
        ],
      },
    ],
  },
  {
    uid: 'pgw-services',
    title: 'Payment gateway / Services (RED)',
    description:
      'Rate, errors and duration of every route a service serves and every call it makes, one service at a time.',
    variables: [
      {
        name: 'service',
        label: 'Service',
        query: 'label_values(http_server_request_duration_seconds_count, service_name)',
      },
    ],
    rows: [
      {
        title: 'Requests served',
        panels: [
          {
            title: 'Rate by route',
            description: 'Requests answered per second, by method and route.',
            kind: 'timeseries',
            unit: 'reqps',
            queries: [
              {
                expr: `sum by (http_request_method, http_route) (${rate('http_server_request_duration_seconds_count{service_name="$service"}')})`,
                legend: '{{http_request_method}} {{http_route}}',
              },
            ],
          },
          {
            title: 'Errors (5xx) by route',
            description:
              'Share of answers that are 5xx, by route. A 503 from the gateway with no upstream error is admission control (see the in-flight panel).',
            kind: 'timeseries',
            unit: 'percentunit',
            queries: [
              {
                expr: `sum by (http_request_method, http_route) (${rate('http_server_request_duration_seconds_count{service_name="$service",http_response_status_code=~"5.."}')}) / sum by (http_request_method, http_route) (${rate('http_server_request_duration_seconds_count{service_name="$service"}')})`,
                legend: '{{http_request_method}} {{http_route}}',
              },
            ],
          },
          {
            title: 'Duration by route (p99)',
            description: 'p99 of the time to answer, by route.',
            kind: 'timeseries',
            unit: 's',
            queries: [
              {
                expr: p(0.99, 'http_server_request_duration_seconds', 'service_name="$service"', [
                  'http_request_method',
                  'http_route',
                ]),
                legend: '{{http_request_method}} {{http_route}}',
              },
            ],
          },
        ],
      },
      {
        title: 'Calls made (to the services, the acquirer, integrators)',
        panels: [
          {
            title: 'Rate by host called',
            description: 'Outgoing HTTP requests per second, by the host called.',
            kind: 'timeseries',
            unit: 'reqps',
            queries: [
              {
                expr: `sum by (server_address) (${rate('http_client_request_duration_seconds_count{service_name="$service"}')})`,
                legend: '{{server_address}}',
              },
            ],
          },
          {
            title: 'Failed calls by host and error',
            description:
              'Outgoing requests per second that got no answer (error_type: timeout, refused connection) or a 5xx.',
            kind: 'timeseries',
            unit: 'reqps',
            queries: [
              {
                expr: `sum by (server_address, error_type, http_response_status_code) (${rate('http_client_request_duration_seconds_count{service_name="$service",error_type!=""}')}) or sum by (server_address, error_type, http_response_status_code) (${rate('http_client_request_duration_seconds_count{service_name="$service",http_response_status_code=~"5.."}')})`,
                legend: '{{server_address}} {{error_type}}{{http_response_status_code}}',
              },
            ],
          },
          {
            title: 'Duration by host called (p99)',
            description: "p99 of the time until the answer's headers, by host called.",
            kind: 'timeseries',
            unit: 's',
            queries: [
              {
                expr: p(0.99, 'http_client_request_duration_seconds', 'service_name="$service"', [
                  'server_address',
                ]),
                legend: '{{server_address}}',
              },
            ],
          },
        ],
      },
      {
        title: 'Gateway admission control (all services)',
        panels: [
          {
            title: 'In flight to each service, and its limit',
            description:
              "Requests the gateway replicas have forwarded and not yet seen answered, and the services' adaptive limits, summed over replicas. A limit falls when the service answers later than UPSTREAM_LATENCY_TARGET_MS and grows back up to UPSTREAM_IN_FLIGHT_MAX (64) per replica.",
            kind: 'timeseries',
            unit: 'short',
            width: 12,
            queries: [
              { expr: 'sum by (service) (gateway_upstream_in_flight)', legend: '{{service}}' },
              {
                expr: 'sum by (service) (gateway_upstream_limit)',
                legend: '{{service}} limit',
              },
            ],
          },
          {
            title: 'Rejected by admission control',
            description:
              'Requests answered 503 + Retry-After without being forwarded, per second, by service: that service is over capacity (docs/runbook.md, Overload).',
            kind: 'timeseries',
            unit: 'reqps',
            width: 12,
            queries: [
              {
                expr: `sum by (service) (${rate('gateway_admission_rejected_total')})`,
                legend: '{{service}}',
              },
            ],
          },
        ],
      },
    ],
  },
  {
    uid: 'pgw-kafka-outbox',
    title: 'Payment gateway / Kafka and outbox',
    description:
      "Events from each service's outbox to Kafka and from Kafka to the consumers: backlog, lag, throughput, errors, parked events.",
    rows: [
      {
        title: 'Outbox and relay',
        panels: [
          {
            title: 'Backlog by service',
            description:
              'Unsent outbox rows, as the relay holding the lease counts them. Ticket above 1,000 for 10 min (OutboxBacklogHigh).',
            kind: 'timeseries',
            unit: 'short',
            threshold: 1000,
            queries: [{ expr: 'max by (service) (outbox_backlog)', legend: '{{service}}' }],
          },
          {
            title: 'Lag by service (p99)',
            description:
              'Age of the oldest unsent row at the relay rounds. Page above 30 s (OutboxLagHigh).',
            kind: 'timeseries',
            unit: 's',
            threshold: 30,
            queries: [
              { expr: p(0.99, 'outbox_lag_seconds', '', ['service']), legend: '{{service}}' },
            ],
          },
          {
            title: 'Published and failed rounds',
            description:
              'Rows published per second, and relay rounds failing per second (broker or database unreachable). Published flat while the backlog grows: the relay is stalled.',
            kind: 'timeseries',
            unit: 'ops',
            queries: [
              {
                expr: `sum by (service) (${rate('outbox_published_total')})`,
                legend: '{{service}} published',
              },
              {
                expr: `sum by (service) (${rate('outbox_relay_failures_total')})`,
                legend: '{{service}} failed rounds',
              },
            ],
          },
        ],
      },
      {
        title: 'Sends to Kafka',
        panels: [
          {
            title: 'Messages sent by topic',
            description: 'Messages the relays handed to the broker per second, by topic.',
            kind: 'timeseries',
            unit: 'ops',
            queries: [
              {
                expr: `sum by (messaging_destination_name) (${rate('messaging_client_sent_messages_total{error_type=""}')})`,
                legend: '{{messaging_destination_name}}',
              },
            ],
          },
          {
            title: 'Failed sends by service and error',
            description:
              'Sends the broker did not acknowledge, per second. Every send failing: KafkaUnreachable.',
            kind: 'timeseries',
            unit: 'ops',
            queries: [
              {
                expr: `sum by (service_name, error_type) (${rate('messaging_client_operation_duration_seconds_count{error_type!=""}')})`,
                legend: '{{service_name}} {{error_type}}',
              },
            ],
          },
          {
            title: 'Send duration by topic (p99)',
            description:
              "Time until the broker acknowledged a send (acks=all): the relay's view of the broker's health.",
            kind: 'timeseries',
            unit: 's',
            queries: [
              {
                expr: p(0.99, 'messaging_client_operation_duration_seconds', '', [
                  'messaging_destination_name',
                ]),
                legend: '{{messaging_destination_name}}',
              },
            ],
          },
        ],
      },
      {
        title: 'Consumers',
        panels: [
          {
            title: 'Lag by group and partition',
            description:
              'Messages on each partition not yet read by the group. Ticket above 1,000 for 10 min and not shrinking (ConsumerLagHigh).',
            kind: 'timeseries',
            unit: 'short',
            threshold: 1000,
            queries: [
              {
                expr: 'max by (messaging_consumer_group_name, messaging_destination_name, messaging_destination_partition_id) (consumer_lag)',
                legend:
                  '{{messaging_consumer_group_name}} {{messaging_destination_name}}[{{messaging_destination_partition_id}}]',
              },
            ],
          },
          {
            title: 'Consumed by group',
            description: 'Messages delivered to each group per second (a redelivery counts again).',
            kind: 'timeseries',
            unit: 'ops',
            queries: [
              {
                expr: `sum by (messaging_consumer_group_name) (${rate('messaging_client_consumed_messages_total')})`,
                legend: '{{messaging_consumer_group_name}}',
              },
            ],
          },
          {
            title: 'Processing duration by group (p99)',
            description:
              "Time a consumer took to apply one message, inside its batch's transaction.",
            kind: 'timeseries',
            unit: 's',
            queries: [
              {
                expr: p(0.99, 'messaging_process_duration_seconds', '', [
                  'messaging_consumer_group_name',
                ]),
                legend: '{{messaging_consumer_group_name}}',
              },
            ],
          },
          {
            title: 'Processing errors by group',
            description:
              'Messages whose handler threw, per second: the batch is retried, then the event is parked.',
            kind: 'timeseries',
            unit: 'ops',
            width: 12,
            queries: [
              {
                expr: `sum by (messaging_consumer_group_name, error_type) (${rate('messaging_process_duration_seconds_count{error_type!=""}')})`,
                legend: '{{messaging_consumer_group_name}} {{error_type}}',
              },
            ],
          },
          {
            title: 'Parked events',
            description:
              'Events parked in a dead-letter table, by consumer and reason, over the last hour (EventsParked; docs/runbook.md, Parked events).',
            kind: 'timeseries',
            unit: 'short',
            width: 12,
            queries: [
              {
                expr: 'sum by (service, consumer, reason) (increase(consumer_dead_letters_total[1h]))',
                legend: '{{service}}/{{consumer}} {{reason}}',
              },
            ],
          },
          {
            title: 'Broken invariants',
            description:
              'Failed asserts by service and invariant over the last hour: a bug or state not to be trusted, never an operating error (docs/engineering.md, Broken invariants).',
            kind: 'timeseries',
            unit: 'short',
            width: 24,
            queries: [
              {
                expr: 'sum by (service, invariant) (increase(invariants_broken_total[1h]))',
                legend: '{{service}} {{invariant}}',
              },
            ],
          },
        ],
      },
    ],
  },
  {
    uid: 'pgw-webhooks',
    title: 'Payment gateway / Webhooks',
    description:
      "Deliveries of events to the integrators' endpoints: attempts, failures by reason and endpoint, deliveries given up, duration.",
    rows: [
      {
        title: 'Attempts',
        panels: [
          {
            title: 'Attempts by outcome',
            description: 'Delivery attempts per second, by outcome.',
            kind: 'timeseries',
            unit: 'ops',
            queries: [
              {
                expr: `sum by (outcome) (${rate('webhook_delivery_attempts_total')})`,
                legend: '{{outcome}}',
              },
            ],
          },
          {
            title: 'Failure rate',
            description:
              'Share of attempts that failed. Ticket above 25 % for 15 min across three endpoints or more (WebhookFailureRateHigh).',
            kind: 'timeseries',
            unit: 'percentunit',
            threshold: 0.25,
            queries: [
              {
                expr: `sum(${rate('webhook_delivery_attempts_total{outcome="failure"}')}) / sum(${rate('webhook_delivery_attempts_total')})`,
                legend: 'failing',
              },
            ],
          },
          {
            title: 'Failures by reason',
            description:
              'Failed attempts per second, by reason: the same reason on many endpoints is ours (egress, DNS, signature).',
            kind: 'timeseries',
            unit: 'ops',
            queries: [
              {
                expr: `sum by (reason) (${rate('webhook_delivery_attempts_total{outcome="failure"}')})`,
                legend: '{{reason}}',
              },
            ],
          },
        ],
      },
      {
        title: 'Endpoints and deliveries',
        panels: [
          {
            title: 'Failing endpoints (top 10)',
            description:
              "The endpoints with the most failed attempts per second. One endpoint alone: that integrator's problem (retried for 24 h).",
            kind: 'timeseries',
            unit: 'ops',
            queries: [
              {
                expr: `topk(10, sum by (endpoint) (${rate('webhook_delivery_attempts_total{outcome="failure"}')}))`,
                legend: '{{endpoint}}',
              },
            ],
          },
          {
            title: 'Deliveries ended',
            description:
              'Deliveries that ended per second: delivered, or given up with the reason of their last attempt.',
            kind: 'timeseries',
            unit: 'ops',
            queries: [
              {
                expr: `sum by (outcome, reason) (${rate('webhook_deliveries_total')})`,
                legend: '{{outcome}} {{reason}}',
              },
            ],
          },
          {
            title: 'Attempt duration',
            description:
              'p50 and p99 of an attempt, from the address lookup to the answer (or the timeout), by outcome.',
            kind: 'timeseries',
            unit: 's',
            queries: [0.5, 0.99].map((q) => ({
              expr: p(q, 'webhook_delivery_duration_seconds', '', ['outcome']),
              legend: `{{outcome}} p${q * 100}`,
            })),
          },
        ],
      },
    ],
  },
  {
    uid: 'pgw-business',
    title: 'Payment gateway / Business',
    description:
      'Charges, approvals, volume, refunds and anticipations, counted after their transaction committed. Live mode by default: test traffic is not business.',
    variables: [{ name: 'livemode', label: 'Live mode', options: ['true', 'false'] }],
    rows: [
      {
        title: 'Charges',
        panels: [
          {
            title: 'Charges created per hour, by method',
            description:
              'Charges created in each hour (an idempotent replay is not counted again).',
            kind: 'timeseries',
            unit: 'short',
            queries: [
              {
                expr: 'sum by (payment_method) (increase(charges_created_total{livemode="$livemode"}[1h]))',
                legend: '{{payment_method}}',
              },
            ],
          },
          {
            title: 'Charges by outcome',
            description:
              'Charges arriving in each status per hour, by method: paid, refused, failed, refunded, chargeback …',
            kind: 'timeseries',
            unit: 'short',
            queries: [
              {
                expr: 'sum by (payment_method, status) (increase(charges_status_changes_total{livemode="$livemode"}[1h]))',
                legend: '{{payment_method}} {{status}}',
              },
            ],
          },
          {
            title: 'Card approval rate by brand',
            description:
              "Approved authorizations over all the acquirer answered, per brand, over the last hour. `failed` (an error or timeout) counts against it: it is not the issuer's decline.",
            kind: 'timeseries',
            unit: 'percentunit',
            queries: [
              {
                expr: 'sum by (card_brand) (increase(charges_authorizations_total{livemode="$livemode",outcome="approved"}[1h])) / sum by (card_brand) (increase(charges_authorizations_total{livemode="$livemode"}[1h]))',
                legend: '{{card_brand}}',
              },
            ],
          },
          {
            title: 'Volume paid per hour (BRL)',
            description: 'Amount of the charges paid in each hour, by method (centavos / 100).',
            kind: 'timeseries',
            unit: 'currencyBRL',
            width: 12,
            queries: [
              {
                expr: 'sum by (payment_method) (increase(charges_paid_amount_total{livemode="$livemode"}[1h])) / 100',
                legend: '{{payment_method}}',
              },
            ],
          },
          {
            title: 'Volume paid over the range (BRL)',
            description: "Amount of the charges paid over the dashboard's time range.",
            kind: 'stat',
            unit: 'currencyBRL',
            width: 12,
            queries: [
              {
                expr: 'sum(increase(charges_paid_amount_total{livemode="$livemode"}[$__range])) / 100',
              },
            ],
          },
        ],
      },
      {
        title: 'Refunds and anticipations',
        panels: [
          {
            title: 'Refunds per hour, by outcome',
            description: 'Refunds that ended in each hour, by method and status.',
            kind: 'timeseries',
            unit: 'short',
            width: 6,
            queries: [
              {
                expr: 'sum by (payment_method, status) (increase(charges_refunds_total{livemode="$livemode"}[1h]))',
                legend: '{{payment_method}} {{status}}',
              },
            ],
          },
          {
            title: 'Refunded per hour (BRL)',
            description: 'Amount refunded (succeeded refunds) in each hour, by method.',
            kind: 'timeseries',
            unit: 'currencyBRL',
            width: 6,
            queries: [
              {
                expr: 'sum by (payment_method) (increase(charges_refunds_amount_total{livemode="$livemode"}[1h])) / 100',
                legend: '{{payment_method}}',
              },
            ],
          },
          {
            title: 'Anticipated per hour (BRL)',
            description:
              'Receivables anticipated in each hour before the fee, and the fees charged on them.',
            kind: 'timeseries',
            unit: 'currencyBRL',
            width: 6,
            queries: [
              {
                expr: 'sum(increase(anticipation_gross_amount_total{livemode="$livemode"}[1h])) / 100',
                legend: 'gross',
              },
              {
                expr: 'sum(increase(anticipation_fee_amount_total{livemode="$livemode"}[1h])) / 100',
                legend: 'fee',
              },
            ],
          },
          {
            title: 'Anticipations executed per hour',
            description: 'Anticipations executed in each hour.',
            kind: 'timeseries',
            unit: 'short',
            width: 6,
            queries: [
              {
                expr: 'sum(increase(anticipation_executions_total{livemode="$livemode"}[1h]))',
                legend: 'executions',
              },
            ],
          },
        ],
      },
    ],
  },
];

// ---- Grafana's JSON model ------------------------------------------------------------------------------

/** Panels of a row share its width equally unless they say otherwise; a row is 8 units high. */
const PANEL_HEIGHT = 8;

function panelJson(
  spec: PanelSpec,
  id: number,
  gridPos: { x: number; y: number; w: number; h: number },
): Record<string, unknown> {
  const thresholds = {
    mode: 'absolute',
    steps:
      spec.threshold === undefined
        ? [{ color: 'green', value: null }]
        : spec.kind === 'stat'
          ? [
              { color: 'red', value: null },
              { color: 'green', value: spec.threshold },
            ]
          : [
              { color: 'green', value: null },
              { color: 'red', value: spec.threshold },
            ],
  };
  const custom =
    spec.kind === 'timeseries'
      ? {
          custom: {
            drawStyle: 'line',
            lineWidth: 1,
            fillOpacity: 10,
            showPoints: 'never',
            thresholdsStyle: { mode: spec.threshold === undefined ? 'off' : 'line' },
          },
        }
      : {};
  return {
    id,
    type: spec.kind,
    title: spec.title,
    description: spec.description,
    datasource: DATASOURCE,
    gridPos,
    fieldConfig: { defaults: { unit: spec.unit, thresholds, ...custom }, overrides: [] },
    options:
      spec.kind === 'stat'
        ? {
            reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false },
            colorMode: 'value',
            graphMode: 'none',
            textMode: 'auto',
          }
        : {
            legend: { displayMode: 'list', placement: 'bottom', showLegend: true },
            tooltip: { mode: 'multi', sort: 'desc' },
          },
    targets: spec.queries.map((q, i) => ({
      refId: String.fromCharCode(65 + i),
      datasource: DATASOURCE,
      expr: q.expr,
      legendFormat: q.legend ?? '__auto',
      range: true,
      exemplar:
        showsExemplars(spec) &&
        spec.queries.findIndex((other) => other.expr.startsWith('histogram_quantile(')) === i,
    })),
  };
}

function variableJson(v: NonNullable<DashboardSpec['variables']>[number]): Record<string, unknown> {
  if ('options' in v) {
    return {
      name: v.name,
      label: v.label,
      type: 'custom',
      query: v.options.join(','),
      current: { text: v.options[0], value: v.options[0] },
      options: v.options.map((o, i) => ({ text: o, value: o, selected: i === 0 })),
      hide: 0,
    };
  }
  return {
    name: v.name,
    label: v.label,
    type: 'query',
    datasource: DATASOURCE,
    query: { query: v.query, refId: 'variable' },
    definition: v.query,
    refresh: 2,
    sort: 1,
    current: {},
    hide: 0,
  };
}

/** Grafana's JSON for one dashboard: rows as row panels, each followed by its panels laid out on a 24-wide grid. */
export function dashboardJson(spec: DashboardSpec): Record<string, unknown> {
  const panels: Array<Record<string, unknown>> = [];
  let y = 0;
  let id = 1;
  for (const row of spec.rows) {
    panels.push({
      id: id++,
      type: 'row',
      title: row.title,
      collapsed: false,
      gridPos: { x: 0, y, w: GRID_WIDTH, h: 1 },
      panels: [],
    });
    y += 1;
    const sharedWidth = Math.floor(GRID_WIDTH / Math.min(row.panels.length, 3));
    let x = 0;
    for (const panel of row.panels) {
      const w = panel.width ?? sharedWidth;
      if (x + w > GRID_WIDTH) {
        x = 0;
        y += PANEL_HEIGHT;
      }
      panels.push(panelJson(panel, id++, { x, y, w, h: PANEL_HEIGHT }));
      x += w;
    }
    y += PANEL_HEIGHT;
  }
  return {
    uid: spec.uid,
    title: spec.title,
    description: spec.description,
    tags: ['payment-gateway'],
    editable: false,
    graphTooltip: 1,
    schemaVersion: SCHEMA_VERSION,
    version: 1,
    time: { from: 'now-6h', to: 'now' },
    refresh: '30s',
    timezone: 'browser',
    links: [
      {
        title: 'Payment gateway',
        type: 'dashboards',
        tags: ['payment-gateway'],
        asDropdown: true,
        includeVars: false,
        keepTime: true,
      },
    ],
    templating: {
      list: [
        {
          name: 'datasource',
          label: 'Prometheus',
          type: 'datasource',
          query: 'prometheus',
          current: {},
          hide: 0,
        },
        ...(spec.variables ?? []).map(variableJson),
      ],
    },
    annotations: { list: [] },
    panels,
  };
}

/** File name under deploy/observability/dashboards → its content, as generate.ts writes it. */
export function dashboardFiles(): Map<string, string> {
  return new Map(
    DASHBOARDS.map((d) => [`${d.uid}.json`, `${JSON.stringify(dashboardJson(d), null, 2)}\n`]),
  );
}
