// A process that leaves by one of runMain's ways out, for main.spec.ts: telemetry starts first (as each app's
// instrument.ts does) and exports over OTLP where OTEL_EXPORTER_OTLP_ENDPOINT says; EXIT_PATH chooses the way:
//   signal       listens on PORT; the spec sends a request, then SIGTERM
//   crash        listens on PORT; GET /crash answers, then throws outside any handler (an uncaught exception)
//   start-fails  records a span, then fails to start
import { trace } from '@opentelemetry/api';
import { startTelemetry } from '@pgw/platform-telemetry';

const telemetry = startTelemetry({ serviceName: 'exit-paths' });

// Loaded only now, after telemetry started, so that http and fastify are patched before they load.
/* eslint-disable @typescript-eslint/no-require-imports */
const { buildApp } = require('@pgw/platform-http') as typeof import('@pgw/platform-http');
const { runMain } = require('../main') as typeof import('../main');
/* eslint-enable @typescript-eslint/no-require-imports */

const exitPath = process.env.EXIT_PATH;

runMain('exit-paths', telemetry, async () => {
  if (exitPath === 'start-fails') {
    trace.getTracer('exit-paths').startSpan('exit-paths boot').end();
    throw new Error('the database is unreachable');
  }
  const app = buildApp({ name: 'exit-paths', log: { level: 'silent' } });
  app.get('/work', async () => ({ done: true }));
  app.get('/crash', async () => {
    setImmediate(() => {
      throw new Error('a broken invariant');
    });
    return { crashing: true };
  });
  await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
  process.stdout.write('listening\n');
  return () => app.close();
});
