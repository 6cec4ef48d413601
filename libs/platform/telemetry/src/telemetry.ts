import type { IncomingMessage, Server } from 'node:http';
import FastifyOtelInstrumentation from '@fastify/otel';
import {
  isSpanContextValid,
  metrics,
  propagation,
  ROOT_CONTEXT,
  trace,
  type SpanContext,
} from '@opentelemetry/api';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { BatchLogRecordProcessor } from '@opentelemetry/sdk-logs';
import { PeriodicExportingMetricReader, type IMetricReader } from '@opentelemetry/sdk-metrics';
import { NodeSDK } from '@opentelemetry/sdk-node';
import {
  AlwaysOffSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  SimpleSpanProcessor,
  type Sampler,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace';
import { exportLogLines } from '@pgw/platform-http';
import { exemplars, withExemplars } from '@pgw/platform-metrics';
import {
  batchOptions,
  logExporterFor,
  metricExporterFor,
  metricExportIntervalMs,
  signalExportRequested,
  spanExporterFor,
} from './exporters';

export interface TelemetryOptions {
  serviceName: string;
  env?: NodeJS.ProcessEnv;
  /** Tests pass an in-memory exporter; otherwise the standard OTEL_* variables decide. */
  spanExporter?: SpanExporter;
  /** Tests pass a reader (e.g. over an in-memory exporter); otherwise OTLP when OTEL_* asks for export. */
  metricReader?: IMetricReader;
}

export interface Telemetry {
  /**
   * Exports what is buffered (spans, metrics) and stops the SDK; resolves within `timeoutMs` even when the
   * collector does not answer, so that a process on its way out is never held past its grace period.
   */
  shutdown(timeoutMs?: number): Promise<void>;
}

/**
 * The flush at exit is bounded well inside the pods' grace period (terminationGracePeriodSeconds 40, less
 * the 5 s preStop and the service's own drain): one OTLP export round trip, not the exporter's 10 s timeout.
 */
export const SHUTDOWN_TIMEOUT_MS_DEFAULT = 5_000;

/** The W3C headers of a public request's caller: kept off the request, so that nothing downstream sees them. */
const CLIENT_TRACE_HEADERS = ['traceparent', 'tracestate', 'baggage'] as const;
/** The integrator's span context of each edge request that carried one, for the server span's link. */
const clientSpanContexts = new WeakMap<IncomingMessage, SpanContext>();

/**
 * Makes `server` an edge of the trace: every request it receives starts a new trace, and the caller's own
 * `traceparent` (an integrator's) becomes only a link on the server span. The integrator's sampled flag
 * therefore never decides whether a payment is traced (the sampler does, from OTEL_TRACES_SAMPLER), and its
 * trace id and baggage never reach the services. The headers are taken off before the HTTP instrumentation
 * reads them: this instance's `emit` runs before the prototype's, which the instrumentation patched.
 */
export function traceAtEdge(server: Server): void {
  const emit = server.emit;
  server.emit = function emitAtEdge(
    this: Server,
    event: string | symbol,
    ...args: unknown[]
  ): boolean {
    if (event === 'request') detachClientTrace(args[0] as IncomingMessage);
    return Reflect.apply(emit, this, [event, ...args]) as boolean;
  } as Server['emit'];
}

function detachClientTrace(request: IncomingMessage): void {
  if (CLIENT_TRACE_HEADERS.every((name) => request.headers[name] === undefined)) return;
  const client = trace.getSpanContext(propagation.extract(ROOT_CONTEXT, request.headers));
  if (client !== undefined && isSpanContextValid(client)) clientSpanContexts.set(request, client);
  for (const name of CLIENT_TRACE_HEADERS) delete request.headers[name];
}

/** True when the standard OTEL_* variables ask for export; with none set, nothing leaves the process. */
export function exportRequested(env: NodeJS.ProcessEnv): boolean {
  return Boolean(
    env.OTEL_EXPORTER_OTLP_ENDPOINT ||
    env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ||
    (env.OTEL_TRACES_EXPORTER && env.OTEL_TRACES_EXPORTER !== 'none'),
  );
}

/**
 * The sampler of a process that exports no spans, unless OTEL_TRACES_SAMPLER names one: a trace this process
 * starts is not recorded (its ids still exist, in log lines, headers and events), and a span under a sampled
 * caller still is, so that a trace passing through on its way to services that export it stays whole.
 * Recording spans that nothing exports cost about a seventh of a charge's CPU (docs/benchmarks.md). Undefined:
 * the SDK's own choice (OTEL_TRACES_SAMPLER, else parent-based always-on).
 */
export function samplerWhenNotExporting(
  env: NodeJS.ProcessEnv,
  exporting: boolean,
): Sampler | undefined {
  if (exporting || env.OTEL_TRACES_SAMPLER !== undefined) return undefined;
  return new ParentBasedSampler({ root: new AlwaysOffSampler() });
}

/**
 * Starts the OpenTelemetry Node SDK: HTTP, Fastify (@fastify/otel, not instrumentation-fastify, which
 * does not support Fastify 5) and pg instrumentation, W3C trace context (Kafka: the bus's own spans). Must run before those
 * modules are loaded: each app's `instrument.ts` calls it and is the first import of its `main.ts`.
 * Trace ids exist (and reach log lines and Kafka headers) even when nothing is exported; spans are then not
 * recorded (samplerWhenNotExporting).
 */
export function startTelemetry(options: TelemetryOptions): Telemetry {
  const env = options.env ?? process.env;
  // Each signal goes out over OTLP in the protocol OTEL_EXPORTER_OTLP_PROTOCOL (or the signal's own) names.
  const spanProcessors: SpanProcessor[] = [];
  if (options.spanExporter !== undefined)
    spanProcessors.push(new SimpleSpanProcessor({ exporter: options.spanExporter }));
  else if (exportRequested(env))
    spanProcessors.push(
      new BatchSpanProcessor({ exporter: spanExporterFor(env), ...batchOptions(env, 'OTEL_BSP') }),
    );

  // Metrics: the catalog of docs/metrics.md (libs/platform/metrics), and the HTTP instrumentation's.
  const metricReaders: IMetricReader[] = [];
  if (options.metricReader !== undefined) metricReaders.push(options.metricReader);
  else if (signalExportRequested(env, 'metrics')) {
    metricReaders.push(
      new PeriodicExportingMetricReader({
        exporter: metricExporterFor(env),
        exportIntervalMillis: metricExportIntervalMs(env),
      }),
    );
    // Its exporter writes the latency histograms' exemplars: the reservoirs start keeping them (docs/metrics.md).
    exemplars.enabled = true;
  }

  // Logs: every line stays JSON on stdout (pino); with OTLP logs configured, each is also a log record.
  const logRecordProcessors = signalExportRequested(env, 'logs')
    ? [
        new BatchLogRecordProcessor({
          exporter: logExporterFor(env),
          ...batchOptions(env, 'OTEL_BLRP'),
        }),
      ]
    : [];
  if (logRecordProcessors.length > 0) exportLogLines();

  const httpInstrumentation = new HttpInstrumentation({
    // An edge request's integrator trace (traceAtEdge), as a link: found from either trace.
    requestHook: (span, request) => {
      const client = clientSpanContexts.get(request as IncomingMessage);
      if (client !== undefined)
        span.addLink({ context: client, attributes: { 'link.reason': 'client traceparent' } });
    },
  });
  const exportingSpans = spanProcessors.length > 0;
  const sampler = samplerWhenNotExporting(env, exportingSpans);
  const sdk = new NodeSDK({
    ...(sampler === undefined ? {} : { sampler }),
    metricReaders,
    logRecordProcessors,
    serviceName: env.OTEL_SERVICE_NAME ?? options.serviceName,
    spanProcessors,
    instrumentations: [
      httpInstrumentation,
      new FastifyOtelInstrumentation({ registerOnInitialization: true }),
      // A query's span only ever reaches an exporter: a process that exports none does not wrap its queries.
      ...(exportingSpans ? [new PgInstrumentation({ requireParentSpan: true })] : []),
      // No kafkajs instrumentation: the bus makes the messaging spans and metrics itself
      // (libs/platform/bus messaging-spans.ts), each in the trace of the request that wrote the event;
      // kafkajs' would open a `poll <topic>` trace of its own for every batch a consumer reads.
    ],
  });
  sdk.start();
  // http.server.request.duration and http.client.request.duration (node:http) offer their measurements as
  // exemplars too: the instrumentation records through the provider it is given, wrapped here (its
  // instruments are made again on the same meter, which the SDK resolves to the same streams).
  if (exemplars.enabled)
    httpInstrumentation.setMeterProvider(withExemplars(metrics.getMeterProvider()));
  return {
    shutdown: async (timeoutMs = SHUTDOWN_TIMEOUT_MS_DEFAULT) => {
      let timer: NodeJS.Timeout | undefined;
      const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
      try {
        await Promise.race([sdk.shutdown(), bound]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
