// The all-in-one driven through a card charge, a refund, a Pix paid, an anticipation, webhook deliveries and
// the failure paths, with telemetry started before anything it instruments is loaded (as each app's
// instrument.ts does) and an in-memory metric reader; the metrics recorded are written to stdout as one JSON
// line for metrics-catalog.spec.ts to check against docs/metrics.md.
//
//   node node_modules/tsx/dist/cli.mjs apps/all-in-one/src/metrics/metrics-flow.ts
import { AggregationTemporality, InMemoryMetricExporter, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { startTelemetry } from '@pgw/platform-telemetry';

const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
// Read on demand (forceFlush): the interval only has to be longer than the run.
const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 600_000 });
const telemetry = startTelemetry({ serviceName: 'metrics-flow', metricReader: reader, env: {} });

async function main(): Promise<void> {
  // Loaded only now, after telemetry started, so that the instrumentation patches what it loads.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { runFlow } = require('./metrics-flow.run') as typeof import('./metrics-flow.run');
  try {
    const metrics = await runFlow(reader, exporter);
    // Wait for the pipe to take it all: process.exit right after a large write would cut it short.
    await new Promise<void>((resolve) => process.stdout.write(`METRICS_FLOW_RESULT ${JSON.stringify(metrics)}\n`, () => resolve()));
  } finally {
    await telemetry.shutdown();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`metrics flow failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
