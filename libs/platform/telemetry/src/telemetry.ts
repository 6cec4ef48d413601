import type { IncomingMessage, Server } from 'node:http';
import FastifyOtelInstrumentation from '@fastify/otel';
import { isSpanContextValid, propagation, ROOT_CONTEXT, trace, type SpanContext } from '@opentelemetry/api';
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
  server.emit = function emitAtEdge(this: Server, event: string | symbol, ...args: unknown[]): boolean {
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
      new HttpInstrumentation({
        // An edge request's integrator trace (traceAtEdge), as a link: found from either trace.
        requestHook: (span, request) => {
          const client = clientSpanContexts.get(request as IncomingMessage);
          if (client !== undefined) span.addLink({ context: client, attributes: { 'link.reason': 'client traceparent' } });
        },
      }),
      new FastifyOtelInstrumentation({ registerOnInitialization: true }),
      new PgInstrumentation({ requireParentSpan: true }),
      new KafkaJsInstrumentation(),
    ],
  });
  sdk.start();
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
