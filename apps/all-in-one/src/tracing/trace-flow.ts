// One card charge through the distributed topology, traced: every service on its own HTTP port and its own
// PostgreSQL schema, Kafka between them, the gateway forwarding over @fastify/http-proxy. Telemetry starts
// before anything it instruments is loaded (as each app's instrument.ts does), with an in-memory exporter;
// at the end the finished spans are written to stdout as one JSON line for tracing.int.spec.ts to check.
//
//   DATABASE_URL=… KAFKA_BROKERS=… SCHEMA_REGISTRY_URL=… node node_modules/tsx/dist/cli.mjs apps/all-in-one/src/tracing/trace-flow.ts
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { startTelemetry } from '@pgw/platform-telemetry';

const exporter = new InMemorySpanExporter();
const telemetry = startTelemetry({ serviceName: 'trace-flow', spanExporter: exporter, env: {} });

export interface FlowSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  kind: number;
  attributes: Record<string, unknown>;
  links: Array<{ traceId: string; spanId: string }>;
}

export interface FlowResult {
  chargeId: string;
  ports: Record<string, number>;
  spans: FlowSpan[];
}

async function main(): Promise<void> {
  // Loaded only now, after telemetry started, so that the instrumentation patches what it loads.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { runFlow } = require('./trace-flow.run') as typeof import('./trace-flow.run');
  try {
    const result = await runFlow(exporter);
    // Wait for the pipe to take it all: process.exit right after a large write would cut it short.
    await new Promise<void>((resolve) => process.stdout.write(`TRACE_FLOW_RESULT ${JSON.stringify(result)}\n`, () => resolve()));
  } finally {
    await telemetry.shutdown();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`trace flow failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
