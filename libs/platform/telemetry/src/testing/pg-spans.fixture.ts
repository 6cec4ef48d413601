// Whether pg's queries are wrapped for spans, in a process of its own for pg-spans.spec.ts: telemetry starts
// as instrument.ts starts it (the environment the spec gives decides whether spans are exported), then pg
// loads and the fixture prints whether the instrumentation wrapped Client#query.
import { startTelemetry } from '../telemetry';

const telemetry = startTelemetry({ serviceName: 'pg-spans-fixture' });

async function main(): Promise<void> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const pg = require('pg') as typeof import('pg');
  const query = pg.Client.prototype.query as { __wrapped?: boolean };
  process.stdout.write(`PG_SPANS ${JSON.stringify({ wrapped: query.__wrapped === true })}\n`);
  await telemetry.shutdown(1_000);
}

void main();
