import { telemetry } from './instrument';
import { createPgDb } from '@pgw/platform-db';
import { envInt, envPrincipalPrivateKey, envSecret, envString } from '@pgw/platform-http';
import { busFromEnv, runMain, systemClock, type Stop } from '@pgw/platform-service';
import { migrateGateway, startGateway } from './gateway';
import type { ServiceName } from './routes.table';

// The distributed mode: the gateway alone, on its own PostgreSQL schema and Kafka, forwarding over HTTP
// to each service whose URL is set. A service without a URL is not part of this deployment: its routes
// answer 404.
const SERVICE_URL_VARIABLES: ReadonlyArray<readonly [ServiceName, string]> = [
  ['vault', 'VAULT_URL'],
  ['charges', 'CHARGES_URL'],
  ['ledger', 'LEDGER_URL'],
  ['receivables', 'RECEIVABLES_URL'],
  ['anticipation', 'ANTICIPATION_URL'],
  ['webhooks', 'WEBHOOKS_URL'],
  ['acquirer-sim', 'ACQUIRER_SIM_URL'],
];

async function main(): Promise<Stop | undefined> {
  const env = process.env;
  const baseUrls: Partial<Record<ServiceName, string>> = {};
  for (const [service, variable] of SERVICE_URL_VARIABLES) {
    const url = env[variable];
    if (url === undefined || url === '') continue;
    if (!/^https?:\/\//.test(url)) throw new Error(`${variable} must be an http(s) URL, got ${url}`);
    baseUrls[service] = url;
  }
  const db = createPgDb({ url: envString(env, 'DATABASE_URL'), schema: 'gateway' });
  if (process.argv[2] === 'migrate') {
    // `node dist/main.js migrate`: the Kubernetes Job's command, under the DDL role; migrates and exits 0.
    await migrateGateway(db);
    await db.close();
    process.stdout.write('gateway: migrated schema gateway\n');
    return undefined;
  }
  const bus = busFromEnv(env, 'gateway');
  const gateway = await startGateway({
    db,
    bus,
    clock: systemClock,
    principalPrivateKey: envPrincipalPrivateKey(env),
    adminToken: envSecret(env, 'ADMIN_TOKEN'),
    upstreams: { mode: 'http', baseUrls },
    env,
  });
  await gateway.app.listen({ port: envInt(env, 'PORT', 8080), host: envString(env, 'HOST', '0.0.0.0') });
  // On SIGTERM: Fastify stops accepting and lets in-flight requests finish, then onClose stops the relay
  // (a row is marked sent only after Kafka acked it); the pool and the producer go with the process.
  return async (signal) => {
    gateway.app.log.info({ signal }, 'shutting down');
    await gateway.stop();
  };
}

runMain('gateway', telemetry, main);
