import { KafkaBus } from '@pgw/platform-bus';
import { createPgDb } from '@pgw/platform-db';
import { envInt, envOptionalSecret, envSecret, envString } from '@pgw/platform-http';
import { HttpPeers } from './peers';
import { startService, type ServiceDefinition } from './service';
import { systemClock } from './clock';

/** The peers a service may call, each reached at the URL of its environment variable when set. */
export const PEER_URL_VARIABLES: Readonly<Record<string, string>> = {
  'acquirer-sim': 'ACQUIRER_SIM_URL',
  vault: 'VAULT_URL',
  charges: 'CHARGES_URL',
  receivables: 'RECEIVABLES_URL',
  ledger: 'LEDGER_URL',
  anticipation: 'ANTICIPATION_URL',
  webhooks: 'WEBHOOKS_URL',
};

export function peerUrlsFromEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const urls: Record<string, string> = {};
  for (const [service, variable] of Object.entries(PEER_URL_VARIABLES)) {
    const url = env[variable];
    if (url === undefined || url === '') continue;
    if (!/^https?:\/\//.test(url)) throw new Error(`${variable} must be an http(s) URL, got ${url}`);
    urls[service] = url;
  }
  return urls;
}

/**
 * The distributed mode's `main` for one service: its own schema of PostgreSQL (`DATABASE_URL`), Kafka
 * (`KAFKA_BROKERS`), the gateway's `PRINCIPAL_SECRET` (and `PRINCIPAL_SECRET_PREVIOUS` during a rotation),
 * its peers' URLs, listening on `PORT`. On SIGTERM it stops taking requests, lets the consumers, the relay
 * and the background loops finish their round, then closes the bus and the pool.
 */
export async function runServiceMain(definition: ServiceDefinition, options: { schema: string }): Promise<void> {
  const env = process.env;
  const db = createPgDb({ url: envString(env, 'DATABASE_URL'), schema: options.schema });
  const bus = new KafkaBus({
    brokers: envString(env, 'KAFKA_BROKERS').split(',').map((b) => b.trim()),
    clientId: definition.name,
    replicationFactor: envInt(env, 'KAFKA_REPLICATION_FACTOR', 1),
  });
  // Set only while PRINCIPAL_SECRET rotates (docs/runbook.md): principals signed with it are accepted too.
  const previousSecret = envOptionalSecret(env, 'PRINCIPAL_SECRET_PREVIOUS');
  const service = await startService(definition, {
    db,
    bus,
    clock: systemClock,
    principalSecret: envSecret(env, 'PRINCIPAL_SECRET'),
    ...(previousSecret !== undefined ? { principalSecretPrevious: previousSecret } : {}),
    peers: new HttpPeers(peerUrlsFromEnv(env)),
    env,
  });
  let closing = false;
  const close = (signal: string): void => {
    if (closing) return;
    closing = true;
    service.app.log.info({ signal }, 'shutting down');
    service
      .stop()
      .then(() => bus.close())
      .then(() => db.close())
      .then(
        () => process.exit(0),
        (err: unknown) => {
          service.app.log.error({ err }, 'shutdown failed');
          process.exit(1);
        },
      );
  };
  process.once('SIGTERM', () => close('SIGTERM'));
  process.once('SIGINT', () => close('SIGINT'));
  await service.app.listen({ port: envInt(env, 'PORT', 8080), host: envString(env, 'HOST', '0.0.0.0') });
}

/** Runs `main` and exits 1 with one line on stderr if it fails to start. */
export function runMain(name: string, main: () => Promise<void>): void {
  main().catch((err: unknown) => {
    process.stderr.write(`${name} failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
