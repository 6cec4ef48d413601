export {
  exportRequested,
  SHUTDOWN_TIMEOUT_MS_DEFAULT,
  startTelemetry,
  traceAtEdge,
} from './telemetry';
export type { Telemetry, TelemetryOptions } from './telemetry';
