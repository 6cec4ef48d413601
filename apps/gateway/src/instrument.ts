// The first import of main.ts: OpenTelemetry must patch http, fastify, pg and kafkajs before they load.
// main.ts hands the handle to runMain, which flushes what is buffered on every way out of the process.
import { startTelemetry } from '@pgw/platform-telemetry';

export const telemetry = startTelemetry({ serviceName: 'gateway' });
