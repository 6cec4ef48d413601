import { telemetry } from './instrument';
import { createPgDb } from '@pgw/platform-db';
import { readEnv } from '@pgw/platform-http';
import {
  busFromConfig,
  MigrateEnv,
  peerUrlsFromEnv,
  runMain,
  systemClock,
  type Stop,
} from '@pgw/platform-service';
import { migrateGateway, startGateway } from './gateway';
import { GatewayMainEnv } from './service';
import type { ServiceName } from './routes.table';

// The distributed mode: the gateway alone, on its own PostgreSQL schema and Kafka, forwarding over HTTP
// to each service whose URL is set (the services' peer variables, VAULT_URL, CHARGES_URL, …). A service
// without a URL is not part of this deployment: its routes answer 404.
async function main(): Promise<Stop | undefined> {
  const env = process.env;
  const baseUrls: Partial<Record<ServiceName, string>> = peerUrlsFromEnv(env);
  if (process.argv[2] === 'migrate') {
    // `node dist/main.js migrate`: the Kubernetes Job's command, under the DDL role; migrates and exits 0.
    const db = createPgDb({ url: readEnv(MigrateEnv, env).DATABASE_URL, schema: 'gateway' });
    await migrateGateway(db);
    await db.close();
    process.stdout.write('gateway: migrated schema gateway\n');
    return undefined;
  }
  // The database, the bus and the listener as every service's main reads them, and the secrets; the
  // gateway's own settings are GatewayEnv, read by the service.
  const vars = readEnv(GatewayMainEnv, env);
  const db = createPgDb({
    url: vars.DATABASE_URL,
    schema: 'gateway',
    namedStatements: vars.DATABASE_NAMED_STATEMENTS,
  });
  const bus = busFromConfig(vars, 'gateway');
  const gateway = await startGateway({
    db,
    bus,
    clock: systemClock,
    principalPrivateKey: vars.PRINCIPAL_PRIVATE_KEY,
    adminToken: vars.ADMIN_TOKEN,
    upstreams: { mode: 'http', baseUrls },
    env,
  });
  await gateway.app.listen({ port: vars.PORT, host: vars.HOST });
  // On SIGTERM, as every service (startService's stop): the loops and the relay finish their round (a row is
  // marked sent only after Kafka acked it), then Fastify stops accepting and lets in-flight requests finish;
  // the pool and the producer go with the process.
  return async (signal) => {
    gateway.app.log.info({ signal }, 'shutting down');
    await gateway.stop();
  };
}

runMain('gateway', telemetry, main);
