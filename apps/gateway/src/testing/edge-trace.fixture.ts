// The gateway as the edge of the trace, in a process of its own for edge-tracing.spec.ts: telemetry starts
// first (as instrument.ts does; OTEL_TRACES_SAMPLER comes from the environment the spec gives), then a
// gateway on PGlite forwards over HTTP to a stub charges service. It sends the requests the spec names, each
// with the integrator's traceparent it chose, and writes the finished spans to stdout as one JSON line.
//   EDGE_REQUESTS='[{"target":"gateway"|"service","traceparent":"00-…"}]'
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { startTelemetry } from '@pgw/platform-telemetry';

const exporter = new InMemorySpanExporter();
const telemetry = startTelemetry({ serviceName: 'gateway', spanExporter: exporter, env: {} });

export interface EdgeSpan {
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  sampled: boolean;
  port: number | null;
  links: Array<{ traceId: string; spanId: string }>;
}

export interface EdgeResult {
  ports: { gateway: number; charges: number };
  statuses: number[];
  spans: EdgeSpan[];
}

async function main(): Promise<EdgeResult> {
  // Loaded only now, after telemetry started, so that http and fastify are patched before they load.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const fixture = require('./gateway-fixture') as typeof import('./gateway-fixture');
  const requests = JSON.parse(process.env.EDGE_REQUESTS ?? '[]') as Array<{
    target: 'gateway' | 'service';
    traceparent: string;
  }>;
  const charges = await fixture.stubService('charges');
  const chargesUrl = await charges.listen({ port: 0, host: '127.0.0.1' });
  const gateway = await fixture.startFixture({
    upstreams: { mode: 'http', baseUrls: { charges: chargesUrl } },
  });
  try {
    const gatewayUrl = await gateway.app.listen({ port: 0, host: '127.0.0.1' });
    const tenantId = await fixture.createTenant(gateway);
    const sellerId = await fixture.createSeller(gateway, tenantId, { kyc_status: 'approved' });
    const key = await fixture.createKey(gateway, {
      tenantId,
      sellerId,
      permissions: ['charges:create'],
    });
    exporter.reset();
    const statuses: number[] = [];
    for (const request of requests) {
      const url =
        request.target === 'gateway'
          ? `${gatewayUrl}/api/v1/charges`
          : `${chargesUrl}/api/v1/charges`;
      const res = await fetch(url, {
        method: 'POST',
        headers: {
          ...fixture.bearer(key.secret),
          'content-type': 'application/json',
          traceparent: request.traceparent,
        },
        body: JSON.stringify({ amount: 1_000, payment_method: 'PIX' }),
      });
      await res.arrayBuffer();
      statuses.push(res.status);
    }
    const spans = exporter.getFinishedSpans().map((s) => ({
      name: s.name,
      kind: s.kind,
      traceId: s.spanContext().traceId,
      spanId: s.spanContext().spanId,
      parentSpanId: s.parentSpanContext?.spanId ?? null,
      sampled: (s.spanContext().traceFlags & 1) === 1,
      port:
        s.kind === SpanKind.SERVER
          ? Number(s.attributes['server.port'] ?? s.attributes['net.host.port'] ?? NaN)
          : null,
      links: s.links.map((l) => ({ traceId: l.context.traceId, spanId: l.context.spanId })),
    }));
    return {
      ports: {
        gateway: Number(new URL(gatewayUrl).port),
        charges: Number(new URL(chargesUrl).port),
      },
      statuses,
      spans,
    };
  } finally {
    await fixture.stopFixture(gateway);
    await charges.close();
  }
}

main().then(
  async (result) => {
    await new Promise<void>((resolve) =>
      process.stdout.write(`EDGE_RESULT ${JSON.stringify(result)}\n`, () => resolve()),
    );
    await telemetry.shutdown();
  },
  async (err: unknown) => {
    process.stderr.write(
      `edge trace fixture failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    await telemetry.shutdown();
    process.exitCode = 1;
  },
);
