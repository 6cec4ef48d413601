import FastifyOtelInstrumentation from '@fastify/otel';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { KafkaJsInstrumentation } from '@opentelemetry/instrumentation-kafkajs';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { PeriodicExportingMetricReader, type IMetricReader } from '@opentelemetry/sdk-metrics';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { SimpleSpanProcessor, type SpanExporter, type SpanProcessor } from '@opentelemetry/sdk-trace';

export interface TelemetryOptions {
  serviceName: string;
  env?: NodeJS.ProcessEnv;
  /** Tests pass an in-memory exporter; otherwise the standard OTEL_* variables decide. */
  spanExporter?: SpanExporter;
  /** Tests pass a reader (e.g. over an in-memory exporter); otherwise OTLP when OTEL_* asks for export. */
  metricReader?: IMetricReader;
}

export interface Telemetry {
  shutdown(): Promise<void>;
}

/** True when the standard OTEL_* variables ask for export; with none set, nothing leaves the process. */
export function exportRequested(env: NodeJS.ProcessEnv): boolean {
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || (env.OTEL_TRACES_EXPORTER && env.OTEL_TRACES_EXPORTER !== 'none'));
}

/**
 * Starts the OpenTelemetry Node SDK: HTTP, Fastify (@fastify/otel, not instrumentation-fastify, which
 * does not support Fastify 5), pg and kafkajs instrumentation, W3C trace context. Must run before those
 * modules are loaded: each app's `instrument.ts` calls it and is the first import of its `main.ts`.
 * Trace ids exist (and reach log lines and Kafka headers) even when nothing is exported.
 */
export function startTelemetry(options: TelemetryOptions): Telemetry {
  const env = options.env ?? process.env;
  let spanProcessors: SpanProcessor[] | undefined;
  if (options.spanExporter !== undefined) spanProcessors = [new SimpleSpanProcessor({ exporter: options.spanExporter })];
  else if (!exportRequested(env)) spanProcessors = [];
  // else: undefined lets the SDK configure the OTLP exporter from OTEL_EXPORTER_OTLP_* itself.

  // Metrics: request rate and latency per route (http.server.request.duration, from the HTTP and Fastify
  // instrumentation), outbox.lag_ms, consumer.lag, and each service's own counters.
  const metricReaders: IMetricReader[] = [];
  if (options.metricReader !== undefined) metricReaders.push(options.metricReader);
  else if (exportRequested(env)) metricReaders.push(new PeriodicExportingMetricReader({ exporter: new OTLPMetricExporter(), exportIntervalMillis: 15_000 }));

  const sdk = new NodeSDK({
    metricReaders,
    serviceName: env.OTEL_SERVICE_NAME ?? options.serviceName,
    ...(spanProcessors !== undefined ? { spanProcessors } : {}),
    instrumentations: [
      new HttpInstrumentation(),
      new FastifyOtelInstrumentation({ registerOnInitialization: true }),
      new PgInstrumentation({ requireParentSpan: true }),
      new KafkaJsInstrumentation(),
    ],
  });
  sdk.start();
  return { shutdown: () => sdk.shutdown() };
}
