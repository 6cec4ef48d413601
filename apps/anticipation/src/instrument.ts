// The first import of main.ts: OpenTelemetry must patch http, fastify, pg and kafkajs before they load.
import { startTelemetry } from '@pgw/platform-telemetry';

startTelemetry({ serviceName: 'anticipation' });
