import { OTLPLogExporter as GrpcLogExporter } from '@opentelemetry/exporter-logs-otlp-grpc';
import { OTLPLogExporter as JsonLogExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPLogExporter as ProtoLogExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { OTLPTraceExporter as GrpcTraceExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import type { LogRecordExporter } from '@opentelemetry/sdk-logs';
import type { PushMetricExporter } from '@opentelemetry/sdk-metrics';
import type { SpanExporter } from '@opentelemetry/sdk-trace';
import { exemplarMetricExporter } from './exemplar-export';

// The OTLP exporters of the three signals, chosen by the standard variables: OTEL_EXPORTER_OTLP_PROTOCOL, or
// the signal's own OTEL_EXPORTER_OTLP_{TRACES,METRICS,LOGS}_PROTOCOL, among grpc, http/protobuf (the
// specification's default) and http/json; the endpoint likewise. The SDK's own choice reads process.env
// only and covers traces and logs but not the readers we pass it, so the choice is made here, once, for all three.

export const OTLP_PROTOCOLS = ['grpc', 'http/protobuf', 'http/json'] as const;
export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];
export type Signal = 'traces' | 'metrics' | 'logs';

const isProtocol = (value: string): value is OtlpProtocol =>
  (OTLP_PROTOCOLS as readonly string[]).includes(value);

/** The protocol a signal is exported with; a value outside the three is a configuration error, refused at boot. */
export function otlpProtocol(env: NodeJS.ProcessEnv, signal: Signal): OtlpProtocol {
  const name = `OTEL_EXPORTER_OTLP_${signal.toUpperCase()}_PROTOCOL`;
  const value = (env[name] || env.OTEL_EXPORTER_OTLP_PROTOCOL || 'http/protobuf').trim();
  if (!isProtocol(value))
    throw new Error(
      `${env[name] ? name : 'OTEL_EXPORTER_OTLP_PROTOCOL'} is ${value}: expected one of ${OTLP_PROTOCOLS.join(', ')}`,
    );
  return value;
}

/**
 * Whether a signal is exported: an OTLP endpoint is set (for all signals or this one) or its
 * OTEL_{SIGNAL}_EXPORTER names an exporter, and that variable is not `none`. With nothing set nothing leaves
 * the process, so a developer's machine does not retry a collector that is not there.
 */
export function signalExportRequested(env: NodeJS.ProcessEnv, signal: Signal): boolean {
  const exporter = env[`OTEL_${signal.toUpperCase()}_EXPORTER`]?.trim();
  if (exporter === 'none') return false;
  return Boolean(
    env.OTEL_EXPORTER_OTLP_ENDPOINT ||
    env[`OTEL_EXPORTER_OTLP_${signal.toUpperCase()}_ENDPOINT`] ||
    exporter,
  );
}

/**
 * The URL of a signal's exporter: its own endpoint as given, or the common one with `/v1/<signal>` for HTTP
 * (gRPC takes the bare endpoint). Undefined lets the exporter take its default (localhost:4318 or 4317).
 */
function exporterUrl(
  env: NodeJS.ProcessEnv,
  signal: Signal,
  protocol: OtlpProtocol,
): { url?: string } {
  const own = env[`OTEL_EXPORTER_OTLP_${signal.toUpperCase()}_ENDPOINT`];
  if (own) return { url: own };
  const common = env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!common) return {};
  return { url: protocol === 'grpc' ? common : `${common.replace(/\/+$/, '')}/v1/${signal}` };
}

export function spanExporterFor(env: NodeJS.ProcessEnv): SpanExporter {
  const protocol = otlpProtocol(env, 'traces');
  const config = exporterUrl(env, 'traces', protocol);
  if (protocol === 'grpc') return new GrpcTraceExporter(config);
  return protocol === 'http/json' ? new JsonTraceExporter(config) : new ProtoTraceExporter(config);
}

/** The upstream OTLP metric exporter of the protocol, with exemplars on the histogram points (exemplar-export.ts). */
export function metricExporterFor(env: NodeJS.ProcessEnv): PushMetricExporter {
  const protocol = otlpProtocol(env, 'metrics');
  return exemplarMetricExporter(protocol, exporterUrl(env, 'metrics', protocol));
}

export function logExporterFor(env: NodeJS.ProcessEnv): LogRecordExporter {
  const protocol = otlpProtocol(env, 'logs');
  const config = exporterUrl(env, 'logs', protocol);
  if (protocol === 'grpc') return new GrpcLogExporter(config);
  return protocol === 'http/json' ? new JsonLogExporter(config) : new ProtoLogExporter(config);
}

/** The batch processors' settings of the standard variables (OTEL_BSP_* for spans, OTEL_BLRP_* for logs); unset ones keep the SDK's defaults. */
export function batchOptions(env: NodeJS.ProcessEnv, prefix: 'OTEL_BSP' | 'OTEL_BLRP') {
  const read = (name: string) => {
    const value = Number(env[`${prefix}_${name}`]);
    return env[`${prefix}_${name}`] && Number.isFinite(value) && value >= 0 ? value : undefined;
  };
  const options = {
    maxQueueSize: read('MAX_QUEUE_SIZE'),
    scheduledDelayMillis: read('SCHEDULE_DELAY'),
    exportTimeoutMillis: read('EXPORT_TIMEOUT'),
    maxExportBatchSize: read('MAX_EXPORT_BATCH_SIZE'),
  };
  return Object.fromEntries(
    Object.entries(options).filter(([, value]) => value !== undefined),
  ) as Partial<typeof options>;
}

/**
 * How often metrics are pushed: OTEL_METRIC_EXPORT_INTERVAL, else 15 s (the SDK's default is 60 s), so that a
 * Prometheus rate over 1 minute has several points and an alert's `for` of a few minutes means something.
 */
export function metricExportIntervalMs(env: NodeJS.ProcessEnv): number {
  const value = Number(env.OTEL_METRIC_EXPORT_INTERVAL);
  return env.OTEL_METRIC_EXPORT_INTERVAL && Number.isFinite(value) && value > 0 ? value : 15_000;
}
