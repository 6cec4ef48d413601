// The all-in-one driven through a card charge, a refund, a Pix paid, an anticipation, webhook deliveries and
// the failure paths, with telemetry started before anything it instruments is loaded (as each app's
// instrument.ts does) and an in-memory metric reader; the metrics recorded are written to stdout as one JSON
// line for metrics-catalog.spec.ts to check against docs/metrics.md.
//
//   node node_modules/tsx/dist/cli.mjs apps/all-in-one/src/metrics/metrics-flow.ts
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { startTelemetry } from '@pgw/platform-telemetry';
import { runFlowScript } from '../flow-script';

const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
// Read on demand (forceFlush): the interval only has to be longer than the run.
const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 600_000 });
const telemetry = startTelemetry({ serviceName: 'metrics-flow', metricReader: reader, env: {} });

// The flow is loaded only now, after telemetry started, so that the instrumentation patches what it loads.
runFlowScript('metrics flow', 'METRICS_FLOW_RESULT', telemetry, () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const flow = require('./metrics-flow.run') as typeof import('./metrics-flow.run');
  return flow.runFlow(reader, exporter);
});
