import { METRIC_CATALOG, type MetricDefinition, type MetricGroup } from './catalog';

// docs/metrics.md is this file's output (`npm run metrics:catalog` writes it; a spec fails when it differs).

/** UCUM units that the OTLP → Prometheus translation spells out as a name suffix. */
const PROMETHEUS_UNIT_SUFFIX: Record<string, string> = {
  s: 'seconds',
  ms: 'milliseconds',
  By: 'bytes',
};

/** A metric or label name as Prometheus sees it: every character outside [a-zA-Z0-9_:] becomes `_`. */
export function prometheusLabel(name: string): string {
  return name.replace(/[^a-zA-Z0-9_:]/g, '_').replace(/__+/g, '_');
}

/**
 * The series a metric becomes after the collector's OTLP → Prometheus translation (metric suffixes on, the
 * default): dots become underscores, the unit is appended unless it is an annotation like `{message}`
 * (`1` becomes `ratio` on a gauge), a counter gets `_total`, a histogram its `_bucket`, `_sum` and `_count`.
 */
export function prometheusSeries(
  metric: Pick<MetricDefinition, 'name' | 'kind' | 'unit'>,
): string[] {
  let name = prometheusLabel(metric.name);
  const isGauge = metric.kind === 'gauge' || metric.kind === 'observable_gauge';
  const unit =
    metric.unit === '1'
      ? isGauge
        ? 'ratio'
        : ''
      : metric.unit.startsWith('{')
        ? ''
        : (PROMETHEUS_UNIT_SUFFIX[metric.unit] ?? prometheusLabel(metric.unit));
  if (unit !== '' && !name.endsWith(`_${unit}`)) name = `${name}_${unit}`;
  if (metric.kind === 'counter') return [`${name}_total`];
  if (metric.kind === 'histogram') return [`${name}_bucket`, `${name}_sum`, `${name}_count`];
  return [name];
}

const GROUPS: Array<{ group: MetricGroup; title: string; intro: string }> = [
  {
    group: 'http',
    title: 'HTTP (OpenTelemetry semantic conventions)',
    intro:
      'The RED of each route and of each call out, in every service: recorded by the HTTP instrumentation, and by libs/platform/http for the calls made through undici, which it does not see.',
  },
  {
    group: 'messaging',
    title: 'Messaging (OpenTelemetry semantic conventions)',
    intro:
      "Recorded by the bus (libs/platform/bus) for Kafka and for the all-in-one's in-process bus alike. No kafkajs instrumentation is registered (libs/platform/telemetry), so nothing is counted twice.",
  },
  {
    group: 'bus',
    title: 'Outbox and consumers',
    intro: 'How late events leave a service and how far behind its consumers are.',
  },
  { group: 'webhooks', title: 'Webhooks', intro: 'Deliveries to the integrators.' },
  { group: 'gateway', title: 'Gateway', intro: 'Admission control (docs/runbook.md, "Overload").' },
  {
    group: 'invariants',
    title: 'Invariants',
    intro: 'Conditions the code relies on that no input may break: one broken is a bug to page on.',
  },
  {
    group: 'business',
    title: 'Business figures',
    intro:
      'Recorded once the transaction that made the change committed, so a rolled-back change is never counted.',
  },
];

const KIND_TEXT: Record<MetricDefinition['kind'], string> = {
  counter: 'counter',
  histogram: 'histogram',
  gauge: 'gauge',
  observable_gauge: 'gauge (observed)',
};

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function attributesCell(metric: MetricDefinition<string, string>): string {
  const always = Object.entries(metric.attributes).map(([key, text]) => `\`${key}\` ${text}`);
  const sometimes = Object.entries(metric.conditionalAttributes ?? {}).map(
    ([key, text]) => `\`${key}\` (${text})`,
  );
  return cell([...always, ...sometimes].join('; ') || 'none');
}

function row(metric: MetricDefinition<string, string>): string {
  const series = prometheusSeries(metric)
    .map((s) => `\`${s}\``)
    .join(' ');
  return `| \`${metric.name}\` | ${KIND_TEXT[metric.kind]} | \`${metric.unit}\` | ${attributesCell(metric)} | ${series} | ${cell(metric.description)} Recorded by ${cell(metric.recordedBy)}. |`;
}

/** The Markdown of docs/metrics.md. */
export function renderCatalog(
  catalog: readonly MetricDefinition<string, string>[] = METRIC_CATALOG,
): string {
  const lines = [
    '# Metrics',
    '',
    '<!-- Generated from libs/platform/metrics/src/catalog.ts by `npm run metrics:catalog`: edit the catalog, not this file. -->',
    '',
    'Every metric the services emit. The code makes its instruments from the same catalog',
    '(`libs/platform/metrics`), and CI fails when the two disagree: a spec rejects an instrument made outside',
    'the catalog, and an end-to-end run of the all-in-one asserts that each metric below is emitted with its',
    'unit and attributes.',
    '',
    '- Names follow the OpenTelemetry semantic conventions where one exists; units are UCUM, in the metadata',
    '  and never in the name, and durations are in seconds.',
    "- Every data point also carries the resource's `service.name` (the collector turns it into the `job` label).",
    '  In the all-in-one every service shares one process, hence the `service` attribute where it matters.',
    "- The Prometheus column is what the collector's OTLP → Prometheus translation makes of each name (suffixes",
    '  on, the default): `.` becomes `_`, the unit is spelled out (`s` → `_seconds`; `{…}` annotations are',
    '  dropped), counters end in `_total`, histograms give `_bucket`, `_sum` and `_count`. Attribute keys',
    '  become labels the same way (`messaging.destination.name` → `messaging_destination_name`).',
    '- Amounts are in centavos (`{cent}`), integers as everywhere else in the gateway.',
    '- Exemplars: every histogram above (all of them latencies) carries them. For each series and bucket the',
    '  last measurement made while a sampled span was active is kept with its trace and span id (the',
    "  specification's aligned-bucket reservoir behind its trace-based filter), and written into that bucket's",
    '  data point at the next OTLP export, once. `@opentelemetry/sdk-metrics` 3.1 has no reservoir and the',
    "  OTLP serializers write none (open-telemetry/opentelemetry-js#6483), so both are the platform's:",
    '  `libs/platform/metrics/src/exemplars.ts` (fed by `histogram()` and, for the HTTP instrumentation, by',
    '  `withExemplars`) and `libs/platform/telemetry/src/exemplar-export.ts` (grpc, http/protobuf, http/json).',
    '  Recording stays cheap: nothing when metrics are not exported over OTLP or the span is not sampled;',
    '  otherwise a bucket search, an in-place hash of the attributes and five array writes, no allocation',
    '  (a series gets its arrays once, when first sampled; at most 2,000 series per histogram, as the SDK).',
    "  The collector's prometheus exporter serves them as OpenMetrics (`trace_id`, `span_id`), Prometheus",
    "  stores them with `--enable-feature=exemplar-storage`, and the dashboards' latency panels show them, the",
    '  Prometheus data source linking `trace_id` to the trace backend (deploy/README.md, Observability).',
    '',
  ];
  for (const { group, title, intro } of GROUPS) {
    lines.push(
      `## ${title}`,
      '',
      intro,
      '',
      '| metric | instrument | unit | attributes | Prometheus | what it says |',
      '|---|---|---|---|---|---|',
    );
    for (const metric of catalog.filter((m) => m.group === group)) lines.push(row(metric));
    lines.push('');
  }
  return lines.join('\n');
}
