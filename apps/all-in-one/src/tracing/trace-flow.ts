// One card charge through the distributed topology, traced: every service on its own HTTP port and its own
// PostgreSQL schema, Kafka between them, the gateway forwarding over @fastify/http-proxy. Telemetry starts
// before anything it instruments is loaded (as each app's instrument.ts does), with an in-memory exporter;
// at the end the finished spans are written to stdout as one JSON line for tracing.int.spec.ts to check.
//
//   DATABASE_URL=… KAFKA_BROKERS=… SCHEMA_REGISTRY_URL=… node node_modules/tsx/dist/cli.mjs apps/all-in-one/src/tracing/trace-flow.ts
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { startTelemetry } from '@pgw/platform-telemetry';
import { runFlowScript } from '../flow-script';

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

// The flow is loaded only now, after telemetry started, so that the instrumentation patches what it loads.
runFlowScript('trace flow', 'TRACE_FLOW_RESULT', telemetry, () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const flow = require('./trace-flow.run') as typeof import('./trace-flow.run');
  return flow.runFlow(exporter);
});
