export {
  ANTICIPATION_EXECUTIONS,
  ANTICIPATION_FEE_AMOUNT,
  ANTICIPATION_GROSS_AMOUNT,
  CHARGES_AUTHORIZATIONS,
  CHARGES_CREATED,
  CHARGES_PAID_AMOUNT,
  CHARGES_REFUNDS,
  CHARGES_REFUNDS_AMOUNT,
  CHARGES_STATUS_CHANGES,
  CONSUMER_DEAD_LETTERS,
  CONSUMER_LAG,
  DURATION_BUCKETS_S,
  GATEWAY_ADMISSION_REJECTED,
  GATEWAY_UPSTREAM_IN_FLIGHT,
  GATEWAY_UPSTREAM_LIMIT,
  HTTP_CLIENT_REQUEST_DURATION,
  HTTP_SERVER_REQUEST_DURATION,
  INVARIANTS_BROKEN,
  MESSAGING_CLIENT_CONSUMED_MESSAGES,
  MESSAGING_CLIENT_OPERATION_DURATION,
  MESSAGING_CLIENT_SENT_MESSAGES,
  MESSAGING_PROCESS_DURATION,
  METRIC_CATALOG,
  OUTBOX_BACKLOG,
  OUTBOX_LAG,
  OUTBOX_PUBLISHED,
  OUTBOX_RELAY_FAILURES,
  WEBHOOK_DELIVERIES,
  WEBHOOK_DELIVERY_ATTEMPTS,
  WEBHOOK_DELIVERY_DURATION,
} from './catalog';
export type { MetricDefinition, MetricGroup, MetricKind } from './catalog';
export {
  ExemplarRegistry,
  ExemplarReservoir,
  exemplars,
  MAX_SERIES,
  SDK_DEFAULT_BOUNDARIES,
} from './exemplars';
export type { Exemplar } from './exemplars';
export {
  counter,
  gauge,
  histogram,
  observeGauge,
  secondsSince,
  withExemplars,
} from './instruments';
export type {
  CounterRecorder,
  HistogramRecorder,
  MetricAttributes,
  Observation,
} from './instruments';
export { prometheusLabel, prometheusSeries, renderCatalog } from './render';
