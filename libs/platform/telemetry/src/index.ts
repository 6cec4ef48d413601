export { exportRequested, startTelemetry } from './telemetry';
export type { Telemetry, TelemetryOptions } from './telemetry';
