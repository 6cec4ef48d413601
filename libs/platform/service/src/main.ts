import { COMPACTED_TOPICS, EventWire, HttpSchemaRegistry } from '@pgw/contracts';
import { KafkaBus, SchemaRegistryBus } from '@pgw/platform-bus';
import { createPgDb } from '@pgw/platform-db';
import { Type, type Static } from '@sinclair/typebox';
import { ConfigError, envPrincipalPublicKeys, readEnv } from '@pgw/platform-http';
import type { Telemetry } from '@pgw/platform-telemetry';
import { reportBrokenInvariants } from './invariants';
import { HttpPeers } from './peers';
import { migrateService, startService, type ServiceDefinition } from './service';
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
    if (!/^https?:\/\//.test(url))
      throw new ConfigError(`${variable} must be an http(s) URL, got ${url}`);
    urls[service] = url;
  }
  return urls;
}

/** The distributed mode's bus variables (every process: the gateway and each service). */
export const BusEnv = Type.Object({
  KAFKA_BROKERS: Type.String(),
  KAFKA_PARTITIONS: Type.Integer({ default: 3 }),
  KAFKA_REPLICATION_FACTOR: Type.Integer({ default: 1 }),
  KAFKA_MIN_INSYNC_REPLICAS: Type.Integer({ default: 1 }),
  KAFKA_CONSUMER_LINGER_MS: Type.Integer({ minimum: 0, maximum: 1_000, default: 20 }),
  SCHEMA_REGISTRY_URL: Type.String(),
});

/** What a service's `main` reads, once, before it starts: its database, the bus, where it listens. */
export const ServiceMainEnv = Type.Composite([
  Type.Object({
    DATABASE_URL: Type.String(),
    /** 0 behind a pooler that cannot keep named statements (libs/platform/db prepared-statements.ts). */
    DATABASE_NAMED_STATEMENTS: Type.Boolean({ default: true }),
    PORT: Type.Integer({ default: 8080 }),
    HOST: Type.String({ default: '0.0.0.0' }),
  }),
  BusEnv,
]);

/** The `migrate` command's: only the database (the Kubernetes Job has no broker settings). */
export const MigrateEnv = Type.Object({ DATABASE_URL: Type.String() });

/**
 * The distributed mode's bus, as every process (the gateway and each service) builds it from the
 * environment: Kafka with the configured topics, events in the Confluent wire format of SCHEMA_REGISTRY_URL.
 */
export function busFromEnv(env: NodeJS.ProcessEnv, clientId: string): SchemaRegistryBus {
  return busFromConfig(readEnv(BusEnv, env), clientId);
}

/** The same bus from variables already read (a main that read `ServiceMainEnv`). */
export function busFromConfig(vars: Static<typeof BusEnv>, clientId: string): SchemaRegistryBus {
  const kafka = new KafkaBus({
    brokers: vars.KAFKA_BROKERS.split(',').map((b) => b.trim()),
    clientId,
    partitions: vars.KAFKA_PARTITIONS,
    replicationFactor: vars.KAFKA_REPLICATION_FACTOR,
    minInsyncReplicas: vars.KAFKA_MIN_INSYNC_REPLICAS,
    compactedTopics: COMPACTED_TOPICS,
    consumerLingerMs: vars.KAFKA_CONSUMER_LINGER_MS,
  });
  return new SchemaRegistryBus(
    kafka,
    new EventWire(new HttpSchemaRegistry(vars.SCHEMA_REGISTRY_URL)),
  );
}

/**
 * The distributed mode's `main` for one service: its own schema of PostgreSQL (`DATABASE_URL`), Kafka
 * (`KAFKA_BROKERS`) with the schema registry (`SCHEMA_REGISTRY_URL`, a Confluent-compatible API), the gateway's `PRINCIPAL_PUBLIC_KEY` (and `PRINCIPAL_PUBLIC_KEY_PREVIOUS` during a rotation),
 * its peers' URLs, listening on `PORT`. Returns how to stop it (runMain calls that on SIGTERM): it stops
 * taking requests, lets the consumers, the relay and the background loops finish their round, then closes
 * the bus and the pool.
 */
export async function runServiceMain(
  definition: ServiceDefinition,
  options: { schema: string },
): Promise<Stop | undefined> {
  const env = process.env;
  if (process.argv[2] === 'migrate') {
    // `node dist/main.js migrate`: the Kubernetes Job's command, under the DDL role; migrates and exits 0.
    const db = createPgDb({ url: readEnv(MigrateEnv, env).DATABASE_URL, schema: options.schema });
    await migrateService(definition, db);
    await db.close();
    process.stdout.write(`${definition.name}: migrated schema ${options.schema}\n`);
    return undefined;
  }
  const vars = readEnv(ServiceMainEnv, env);
  const db = createPgDb({
    url: vars.DATABASE_URL,
    schema: options.schema,
    namedStatements: vars.DATABASE_NAMED_STATEMENTS,
  });
  const bus = busFromConfig(vars, definition.name);
  // The gateway's public key; PRINCIPAL_PUBLIC_KEY_PREVIOUS is set only while the key pair rotates
  // (docs/runbook.md): principals signed for either are accepted. Nothing here can sign one.
  const { publicKey, previousPublicKey } = envPrincipalPublicKeys(env);
  const service = await startService(definition, {
    db,
    bus,
    clock: systemClock,
    principalPublicKey: publicKey,
    ...(previousPublicKey !== undefined ? { principalPublicKeyPrevious: previousPublicKey } : {}),
    peers: new HttpPeers(peerUrlsFromEnv(env)),
    env,
  });
  await service.app.listen({ port: vars.PORT, host: vars.HOST });
  return async (signal) => {
    service.app.log.info({ signal }, 'shutting down');
    await service.stop();
    await bus.close();
    await db.close();
  };
}

/** How a running process stops on a signal: what its `main` started, in order. */
export type Stop = (signal: string) => Promise<void>;

/**
 * Runs a process's `main` and owns every way out of it; each one exports the spans and metrics still
 * buffered (telemetry.shutdown, bounded) before the process ends, so that a rollout or a crash does not
 * lose the telemetry of its last requests:
 * - SIGTERM or SIGINT: the `Stop` that `main` returned, then exit 0 (1, with the error on stderr, if stopping
 *   failed); a signal during the start waits for it;
 * - a failed start: one line on stderr, exit 1;
 * - an uncaught exception or an unhandled rejection: the error on stderr, exit 1 without stopping anything
 *   (its state is not to be trusted), only after the flush;
 * - a `main` that returns no `Stop` (a `migrate` run) ends by itself once its work and the flush are done.
 * Every broken invariant (@pgw/domain's `assert`) is logged and counted under `name` (invariants.ts).
 */
export function runMain(
  name: string,
  telemetry: Telemetry,
  main: () => Promise<Stop | undefined>,
): void {
  reportBrokenInvariants(name);
  let exiting = false;
  const exit = (code: number): void => {
    if (exiting) return;
    exiting = true;
    telemetry
      .shutdown()
      .catch((err: unknown) =>
        process.stderr.write(`${name}: telemetry not flushed: ${String(err)}\n`),
      )
      .finally(() => process.exit(code));
  };
  const crashed = (err: unknown): void => {
    process.stderr.write(
      `${name} crashed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    exit(1);
  };
  process.on('uncaughtException', crashed);
  process.on('unhandledRejection', crashed);

  const started = main();
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    started
      .then((stopMain) => stopMain?.(signal))
      .then(
        () => exit(0),
        (err: unknown) => {
          process.stderr.write(
            `${name} shutdown failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
          );
          exit(1);
        },
      );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  started.then(
    (stopMain) => {
      if (stopMain !== undefined) return;
      void telemetry
        .shutdown()
        .catch((err: unknown) =>
          process.stderr.write(`${name}: telemetry not flushed: ${String(err)}\n`),
        );
    },
    (err: unknown) => {
      process.stderr.write(
        `${name} failed to start: ${err instanceof Error ? err.message : String(err)}\n`,
      );
      exit(1);
    },
  );
}
