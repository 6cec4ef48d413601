import type { HrTime } from '@opentelemetry/api';
import { OTLPMetricExporterBase } from '@opentelemetry/exporter-metrics-otlp-http';
import {
  convertLegacyHttpOptions,
  createOtlpHttpExportDelegate,
} from '@opentelemetry/otlp-exporter-base/node-http';
import {
  convertLegacyOtlpGrpcOptions,
  createOtlpGrpcExportDelegate,
} from '@opentelemetry/otlp-grpc-exporter-base';
import {
  JsonMetricsSerializer,
  MetricsExporterMetricsHelper,
  ProtobufMetricsSerializer,
  type IExportMetricsServiceResponse,
  type ISerializer,
} from '@opentelemetry/otlp-transformer';
import {
  DataPointType,
  type DataPoint,
  type Histogram,
  type HistogramMetricData,
  type PushMetricExporter,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import {
  exemplars as processExemplars,
  type Exemplar,
  type ExemplarRegistry,
} from '@pgw/platform-metrics';

// The OTLP metric exporters with exemplars on the histogram data points. The upstream serializers
// (@opentelemetry/otlp-transformer 0.301) write none: the protobuf one writes a HistogramDataPoint's fields
// 1–7 and 9–12 but never field 8 (`exemplars`), and the JSON one has no `exemplars` key. So each export is
// serialized by the upstream serializer first, and the exemplars the reservoirs of @pgw/platform-metrics hold
// for its histogram points are added to that: in the JSON request object (`exemplars` of the point, in OTLP
// JSON: hex ids, nanoseconds as a string), or in the protobuf bytes, by copying the message and re-encoding
// only the enclosing length-delimited fields on the path to each point that gets some (everything else is
// copied byte for byte). Same transport, headers, retries and timeouts as the upstream exporters: only the
// serializer differs. Runs once per export (every OTEL_METRIC_EXPORT_INTERVAL), never on the record path.

type Found = Map<DataPoint<Histogram>, Exemplar[]>;

const hrTimeMs = (time: HrTime): number => time[0] * 1000 + time[1] / 1e6;

/** Takes from the registry the exemplars of each histogram point of `metrics` (each is written once). */
function takeExemplars(metrics: ResourceMetrics, registry: ExemplarRegistry): Found {
  const found: Found = new Map();
  for (const { scope, metrics: list } of metrics.scopeMetrics) {
    for (const metric of list) {
      if (metric.dataPointType !== DataPointType.HISTOGRAM) continue;
      const reservoir = registry.find(scope.name, metric.descriptor.name);
      if (reservoir === undefined) continue;
      for (const point of metric.dataPoints) {
        const taken = reservoir.take(
          point.attributes,
          point.value.buckets.boundaries,
          hrTimeMs(point.startTime),
          hrTimeMs(point.endTime),
        );
        if (taken !== undefined) found.set(point, taken);
      }
    }
  }
  return found;
}

const nanos = (ms: number): bigint => BigInt(Math.round(ms)) * 1_000_000n;

// --- OTLP/JSON ----------------------------------------------------------------------------------------

interface JsonRequest {
  resourceMetrics?: Array<{
    scopeMetrics?: Array<{
      metrics?: Array<{
        name?: string;
        histogram?: { dataPoints?: Array<Record<string, unknown>> };
      }>;
    }>;
  }>;
}

function addJsonExemplars(bytes: Uint8Array, metrics: ResourceMetrics, found: Found): Uint8Array {
  const request = JSON.parse(new TextDecoder().decode(bytes)) as JsonRequest;
  // The request has this one ResourceMetrics, its scopes, metrics and points in the SDK's order.
  const scopes = request.resourceMetrics?.[0]?.scopeMetrics ?? [];
  metrics.scopeMetrics.forEach((scopeMetrics, s) =>
    scopeMetrics.metrics.forEach((metric, m) => {
      const target = scopes[s]?.metrics?.[m];
      if (
        metric.dataPointType !== DataPointType.HISTOGRAM ||
        target?.name !== metric.descriptor.name
      )
        return;
      metric.dataPoints.forEach((point, d) => {
        const taken = found.get(point);
        const targetPoint = target.histogram?.dataPoints?.[d];
        if (taken === undefined || targetPoint === undefined) return;
        targetPoint.exemplars = taken.map((e) => ({
          timeUnixNano: nanos(e.timeMs).toString(),
          asDouble: e.value,
          spanId: e.spanId,
          traceId: e.traceId,
        }));
      });
    }),
  );
  return new TextEncoder().encode(JSON.stringify(request));
}

// --- OTLP/protobuf ------------------------------------------------------------------------------------

function readVarint(buf: Uint8Array, pos: number): [value: number, next: number] {
  let value = 0;
  let scale = 1;
  for (;;) {
    if (pos >= buf.length) throw new Error('truncated protobuf varint');
    const byte = buf[pos++]!;
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) return [value, pos];
    scale *= 128;
  }
}

function varint(value: number): Uint8Array {
  const bytes: number[] = [];
  while (value >= 0x80) {
    bytes.push((value % 128) | 0x80);
    value = Math.floor(value / 128);
  }
  bytes.push(value);
  return Uint8Array.from(bytes);
}

const byteLength = (chunks: readonly Uint8Array[]) =>
  chunks.reduce((sum, chunk) => sum + chunk.length, 0);

/**
 * A message's fields as chunks, in order; `replace(field, index, content)` may give new content for the
 * index-th occurrence of a length-delimited field (its length is then written anew). Other fields are copied.
 */
function rewrite(
  buf: Uint8Array,
  replace: (field: number, index: number, content: Uint8Array) => Uint8Array[] | undefined,
): Uint8Array[] {
  const out: Uint8Array[] = [];
  const seen = new Map<number, number>();
  let pos = 0;
  while (pos < buf.length) {
    const start = pos;
    const [tag, afterTag] = readVarint(buf, pos);
    const field = Math.floor(tag / 8);
    const wireType = tag % 8;
    if (wireType === 0) pos = readVarint(buf, afterTag)[1];
    else if (wireType === 1) pos = afterTag + 8;
    else if (wireType === 5) pos = afterTag + 4;
    else if (wireType === 2) {
      const [length, contentStart] = readVarint(buf, afterTag);
      pos = contentStart + length;
      const index = seen.get(field) ?? 0;
      seen.set(field, index + 1);
      const replaced = replace(field, index, buf.subarray(contentStart, pos));
      if (replaced !== undefined) {
        out.push(buf.subarray(start, afterTag), varint(byteLength(replaced)), ...replaced);
        continue;
      }
    } else throw new Error(`unexpected protobuf wire type ${wireType}`);
    if (pos > buf.length) throw new Error('truncated protobuf field');
    out.push(buf.subarray(start, pos));
  }
  return out;
}

function hexBytes(hex: string): Uint8Array {
  return Uint8Array.from(Buffer.from(hex, 'hex'));
}

/** Exemplar { 2 time_unix_nano fixed64, 3 as_double double, 4 span_id bytes, 5 trace_id bytes }, as field 8 of a HistogramDataPoint. */
function encodeExemplar(exemplar: Exemplar): Uint8Array[] {
  const body = new Uint8Array(46);
  const view = new DataView(body.buffer);
  body[0] = (2 << 3) | 1;
  view.setBigUint64(1, nanos(exemplar.timeMs), true);
  body[9] = (3 << 3) | 1;
  view.setFloat64(10, exemplar.value, true);
  body[18] = (4 << 3) | 2;
  body[19] = 8;
  body.set(hexBytes(exemplar.spanId), 20);
  body[28] = (5 << 3) | 2;
  body[29] = 16;
  body.set(hexBytes(exemplar.traceId), 30);
  return [Uint8Array.of((8 << 3) | 2), varint(body.length), body];
}

function metricName(content: Uint8Array): string | undefined {
  let name: string | undefined;
  rewrite(content, (field, index, value) => {
    if (field === 1 && index === 0) name = new TextDecoder().decode(value);
    return undefined;
  });
  return name;
}

function addProtobufExemplars(
  bytes: Uint8Array,
  metrics: ResourceMetrics,
  found: Found,
): Uint8Array {
  // ExportMetricsServiceRequest { 1 resource_metrics } → ResourceMetrics { 2 scope_metrics } →
  // ScopeMetrics { 2 metrics } → Metric { 1 name, 9 histogram } → Histogram { 1 data_points }.
  const histogram =
    (metric: HistogramMetricData) => (field: number, index: number, content: Uint8Array) => {
      const taken = field === 1 ? found.get(metric.dataPoints[index]!) : undefined;
      return taken === undefined ? undefined : [content, ...taken.flatMap(encodeExemplar)];
    };
  const scope = (s: number) => (field: number, m: number, content: Uint8Array) => {
    const metric = metrics.scopeMetrics[s]?.metrics[m];
    if (
      field !== 2 ||
      metric?.dataPointType !== DataPointType.HISTOGRAM ||
      !metric.dataPoints.some((p) => found.has(p))
    )
      return undefined;
    // The serializer writes the SDK's metrics in order; the name says so before a point is touched.
    if (metricName(content) !== metric.descriptor.name) return undefined;
    return rewrite(content, (f, i, c) =>
      f === 9 && i === 0 ? rewrite(c, histogram(metric)) : undefined,
    );
  };
  const resource = (field: number, s: number, content: Uint8Array) =>
    field === 2 ? rewrite(content, scope(s)) : undefined;
  const chunks = rewrite(bytes, (field, index, content) =>
    field === 1 && index === 0 ? rewrite(content, resource) : undefined,
  );
  const out = new Uint8Array(byteLength(chunks));
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}

/** The upstream serializer of `encoding`, with the registry's exemplars added to each export. */
export function exemplarSerializer(
  encoding: 'json' | 'protobuf',
  registry: ExemplarRegistry = processExemplars,
): ISerializer<ResourceMetrics, IExportMetricsServiceResponse> {
  const upstream = encoding === 'json' ? JsonMetricsSerializer : ProtobufMetricsSerializer;
  return {
    serializeRequest(metrics) {
      const bytes = upstream.serializeRequest(metrics);
      const found = takeExemplars(metrics, registry);
      if (bytes === undefined || found.size === 0) return bytes;
      return encoding === 'json'
        ? addJsonExemplars(bytes, metrics, found)
        : addProtobufExemplars(bytes, metrics, found);
    },
    deserializeResponse: (data) => upstream.deserializeResponse(data),
  };
}

/**
 * The OTLP metric exporter of `protocol`, as @opentelemetry/exporter-metrics-otlp-{grpc,proto,http} build it
 * (their delegates, options and environment variables), with the exemplar serializer.
 */
export function exemplarMetricExporter(
  protocol: 'grpc' | 'http/protobuf' | 'http/json',
  config: { url?: string },
  registry: ExemplarRegistry = processExemplars,
): PushMetricExporter {
  if (protocol === 'grpc') {
    const options = convertLegacyOtlpGrpcOptions(config, 'METRICS');
    const delegate = createOtlpGrpcExportDelegate(
      options,
      exemplarSerializer('protobuf', registry),
      'otlp_grpc_metric_exporter',
      MetricsExporterMetricsHelper,
      undefined,
      'MetricsExportService',
      '/opentelemetry.proto.collector.metrics.v1.MetricsService/Export',
    );
    return new OTLPMetricExporterBase(delegate, config);
  }
  const json = protocol === 'http/json';
  const options = convertLegacyHttpOptions(config, 'METRICS', 'v1/metrics', {
    'Content-Type': json ? 'application/json' : 'application/x-protobuf',
  });
  return new OTLPMetricExporterBase(
    createOtlpHttpExportDelegate(
      options,
      exemplarSerializer(json ? 'json' : 'protobuf', registry),
      'otlp_http_metric_exporter',
      MetricsExporterMetricsHelper,
      undefined,
    ),
    config,
  );
}
