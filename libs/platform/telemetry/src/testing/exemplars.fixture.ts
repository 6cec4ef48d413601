// Exemplars end to end, in a process of its own for exemplars.spec.ts (so that telemetry patches http and
// fastify before they load): telemetry starts as instrument.ts starts it, exporting metrics over OTLP to the
// spec's receiver in the protocol the spec's environment names (OTEL_EXPORTER_OTLP_METRICS_*), spans kept in
// memory (the default sampler, parent-based always-on). A platform app (buildApp) answers GET /traced (200)
// and GET /untraced (202). The fixture calls /traced from inside a sampled span whose traceparent it sends, and
// /untraced with a traceparent whose sampled flag is 00, each call timed by timeClientRequest. It writes the
// spans of those calls to stdout as one JSON line, then shuts telemetry down, which exports the metrics.
import { randomBytes } from 'node:crypto';
import { context, propagation, ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { startTelemetry } from '../telemetry';

const exporter = new InMemorySpanExporter();
const telemetry = startTelemetry({ serviceName: 'exemplars-fixture', spanExporter: exporter });

export interface ExemplarsResult {
  /** Each /traced call: the trace, the client span that timed it, the server span that answered it. */
  traced: Array<{ traceId: string; clientSpanId: string; serverSpanId: string }>;
  /** Each /untraced call's trace id (its integrator's, flag 00). */
  untraced: string[];
  /** Spans the SDK sampled in the untraced calls' traces: none is expected. */
  sampledUntraced: number;
}

const CALLS = 3;

async function main(): Promise<ExemplarsResult> {
  // The HTTP instrumentation patches node:http at its first require after telemetry started (a service's
  // main.ts makes one when it loads its modules after instrument.ts); telemetry.ts itself loaded it before.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  require('node:http');
  const { buildApp, timeClientRequest } =
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    require('./exemplars.http') as typeof import('./exemplars.http');
  const app = buildApp({ name: 'exemplars', log: { level: 'silent' } });
  app.get('/traced', async () => ({ traced: true }));
  app.get('/untraced', async (_request, reply) => reply.code(202).send({ traced: false }));
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const call = async (path: string, headers: Record<string, string>) => {
    const timer = timeClientRequest('GET', `${base}${path}`);
    const response = await fetch(`${base}${path}`, { headers });
    await response.arrayBuffer();
    timer.answered(response.status);
  };
  const tracer = trace.getTracer('exemplars.fixture');
  const clientSpans: Array<{ traceId: string; spanId: string }> = [];
  for (let i = 0; i < CALLS; i++) {
    await tracer.startActiveSpan('GET /traced', { kind: SpanKind.CLIENT }, async (span) => {
      const headers: Record<string, string> = {};
      propagation.inject(context.active(), headers);
      await call('/traced', headers);
      span.end();
      clientSpans.push(span.spanContext());
    });
  }
  const untraced: string[] = [];
  for (let i = 0; i < CALLS; i++) {
    const traceId = randomBytes(16).toString('hex');
    const spanId = randomBytes(8).toString('hex');
    untraced.push(traceId);
    const unsampled = trace.setSpanContext(ROOT_CONTEXT, {
      traceId,
      spanId,
      traceFlags: 0,
      isRemote: true,
    });
    await context.with(unsampled, () =>
      call('/untraced', { traceparent: `00-${traceId}-${spanId}-00` }),
    );
  }
  // The server records its duration when the response closes: closing the app waits for that.
  await app.close();
  const spans = exporter.getFinishedSpans();
  const traced = clientSpans.map(({ traceId, spanId }) => {
    const server = spans.find(
      (s) => s.kind === SpanKind.SERVER && s.parentSpanContext?.spanId === spanId,
    );
    return { traceId, clientSpanId: spanId, serverSpanId: server?.spanContext().spanId ?? '' };
  });
  return {
    traced,
    untraced,
    sampledUntraced: spans.filter((s) => untraced.includes(s.spanContext().traceId)).length,
  };
}

main().then(
  async (result) => {
    await new Promise<void>((resolve) =>
      process.stdout.write(`EXEMPLARS_RESULT ${JSON.stringify(result)}\n`, () => resolve()),
    );
    await telemetry.shutdown();
  },
  async (err: unknown) => {
    process.stderr.write(
      `exemplars fixture failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    await telemetry.shutdown();
    process.exitCode = 1;
  },
);
