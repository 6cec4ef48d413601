// `npm run start:distributed`: the distributed mode on this machine, as a platform team tries it before
// Kubernetes. Every service runs as a process from its bundle (tools/deploy/bundle.ts, as the images run
// them), on a PostgreSQL, a Kafka broker and a schema registry of its own (kept in DATA_DIR across
// restarts) unless DATABASE_URL / KAFKA_BROKERS / SCHEMA_REGISTRY_URL name others, the gateway on PORT in front. The variables of `npm start`
// mean the same here: PORT, ADMIN_TOKEN (generated and printed when unset), DEMO, DATA_DIR.
// SIGINT/SIGTERM stop everything it started, and nothing else.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { Client } from 'pg';
import { APPS, provisionSeller, startCluster, type Cluster } from '../bench/cluster';
import { send } from '../bench/load';
import {
  privateKafka,
  privateRegistry,
  startPostgres,
  type PrivateKafka,
  type PrivatePostgres,
  type PrivateRegistry,
} from '../chaos/infra';
import { APP_SPECS } from '../deploy/apps';

/** Ports of the private servers: not the shared 5432/9092, nor the fault run's (15433, 19092). */
export const PRIVATE_PG_PORT = 15434;
export const PRIVATE_KAFKA_PORT = 19094;
/** Its own schema registry's port (and the next, the registry's management port) when SCHEMA_REGISTRY_URL is unset. */
export const PRIVATE_REGISTRY_PORT = 19096;
const DATABASE = 'gateway';

/** What `npm start` provisions as its demo (apps/gateway/src/demo.ts), through the admin API. */
const DEMO_TENANT = { name: 'Demo', treasury_available_cash_cents: 100_000_000 };
const DEMO_SELLER = { name: 'Demo Seller', anticipation_limit_cents: 10_000_000 };

interface Demo {
  tenantId: string;
  sellerId: string;
  apiKey: string;
}

/** The vault's keys: they encrypt every stored card, so they are generated once and kept in DATA_DIR (0600). */
function vaultKeys(dataDir: string, env: NodeJS.ProcessEnv): Record<string, string> {
  const names = ['VAULT_KEK', 'VAULT_KEK_ID', 'VAULT_FINGERPRINT_KEY'] as const;
  if (names.every((n) => (env[n] ?? '') !== ''))
    return Object.fromEntries(names.map((n) => [n, env[n] as string]));
  const file = join(dataDir, 'vault-keys.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
  const keys = {
    VAULT_KEK: randomBytes(32).toString('base64'),
    VAULT_KEK_ID: 'klocal1',
    VAULT_FINGERPRINT_KEY: randomBytes(32).toString('base64'),
  };
  writeFileSync(file, JSON.stringify(keys, null, 2), { mode: 0o600 });
  return keys;
}

/** As `npm start`: the demo credentials are kept in DATA_DIR (the key's secret is stored only as a hash). */
async function demoCredentials(dataDir: string, cluster: Cluster): Promise<Demo> {
  const file = join(dataDir, 'demo.json');
  if (existsSync(file)) {
    const kept = JSON.parse(readFileSync(file, 'utf8')) as Demo;
    // Kept for another database (DATABASE_URL changed): provisioned again.
    const probe = await send({
      method: 'GET',
      url: `${cluster.gatewayUrl}/api/v1/balance`,
      headers: { authorization: `Bearer ${kept.apiKey}` },
    });
    if (probe.status !== 401) return kept;
  }
  const seller = await provisionSeller(cluster, undefined, {
    tenant: DEMO_TENANT,
    seller: DEMO_SELLER,
  });
  const demo = { tenantId: seller.tenantId, sellerId: seller.sellerId, apiKey: seller.key };
  writeFileSync(file, JSON.stringify(demo, null, 2), { mode: 0o600 });
  return demo;
}

async function createDatabaseIfMissing(adminUrl: string, database: string): Promise<string> {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [database]);
    if (found.rowCount === 0) await client.query(`create database ${database}`);
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** A port taken by another program would answer the health checks of a service that could not bind it. */
async function ensureFree(port: number): Promise<void> {
  await new Promise<void>((resolvePort, reject) => {
    const server = createServer();
    server.once('error', () =>
      reject(
        new Error(
          `port ${port} is in use (the gateway listens on PORT, the services on the ${APPS.length - 1} ports after it)`,
        ),
      ),
    );
    server.listen(port, '127.0.0.1', () => server.close(() => resolvePort()));
  });
}

function logTail(file: string, lines = 20): string {
  return `${file}:\n${readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n')}`;
}

/** The last lines of the log written last: why a service would not start. */
function newestLogTail(logDir: string): string {
  const newest = readdirSync(logDir)
    .map((f) => join(logDir, f))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
  return newest === undefined ? '' : logTail(newest);
}

async function main(): Promise<void> {
  const startedAtMs = Date.now();
  const env = process.env;
  const port = Number(env.PORT ?? 8080);
  if (!Number.isInteger(port) || port <= 0 || port > 65_535 - APPS.length)
    throw new Error(`PORT must be a port number, got ${env.PORT}`);
  const dataDir = resolve(env.DATA_DIR ?? './.data-distributed');
  const logDir = join(dataDir, 'logs');
  mkdirSync(logDir, { recursive: true });
  const given = (name: string) => ((env[name] ?? '') === '' ? undefined : env[name]);
  const adminTokenGiven = given('ADMIN_TOKEN');
  const adminToken = adminTokenGiven ?? `adm_${randomBytes(24).toString('hex')}`;

  let postgres: PrivatePostgres | null = null;
  let kafka: PrivateKafka | null = null;
  let kafkaStarted = false;
  let registry: PrivateRegistry | null = null;
  let cluster: Cluster | null = null;
  let stopping: Promise<void> | null = null;
  const stopAll = (): Promise<void> =>
    (stopping ??= (async () => {
      await cluster?.stop();
      await registry
        ?.stop()
        .catch((e: unknown) => process.stderr.write(`registry stop: ${String(e)}\n`));
      if (kafkaStarted)
        await kafka
          ?.stop()
          .catch((e: unknown) => process.stderr.write(`kafka stop: ${String(e)}\n`));
      await postgres?.stop('fast');
    })());
  let interrupted: string | null = null;
  const onSignal = (signal: NodeJS.Signals) => {
    if (interrupted !== null) return;
    interrupted = signal;
    process.stdout.write(`${signal}: stopping\n`);
    // Once started, stop now; while starting, main stops what it started as soon as the step under way ends.
    if (cluster !== null)
      void stopAll().then(
        () => process.exit(0),
        () => process.exit(1),
      );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const checkInterrupted = () => {
    if (interrupted !== null) throw new Error(`${interrupted} while starting`);
  };

  try {
    for (let i = 0; i < APPS.length; i++) await ensureFree(port + i);
    let databaseUrl = given('DATABASE_URL');
    let databaseLine = 'from DATABASE_URL';
    if (databaseUrl === undefined) {
      const dir = join(dataDir, 'postgres');
      postgres = await startPostgres(dir, PRIVATE_PG_PORT, { keepData: true });
      databaseUrl = await createDatabaseIfMissing(postgres.adminUrl, DATABASE);
      databaseLine = `${databaseUrl} (its own; data and log in ${dir})`;
      checkInterrupted();
    }
    let brokers = given('KAFKA_BROKERS');
    let kafkaLine = 'from KAFKA_BROKERS';
    if (brokers === undefined) {
      kafka = privateKafka(dataDir, PRIVATE_KAFKA_PORT);
      kafkaStarted = true;
      await kafka.start(true);
      brokers = kafka.brokers;
      kafkaLine = `${brokers} (its own, tools/kafka; data and logs in ${join(dataDir, 'kafka')})`;
      checkInterrupted();
    }
    let registryUrl = given('SCHEMA_REGISTRY_URL');
    let registryLine = 'from SCHEMA_REGISTRY_URL';
    if (registryUrl === undefined) {
      const own = privateRegistry(dataDir, PRIVATE_REGISTRY_PORT);
      registry = own;
      await own.start(true);
      registryUrl = own.url;
      registryLine = `${registryUrl} (its own, tools/registry; data and logs in ${join(dataDir, 'registry')})`;
      checkInterrupted();
    }
    cluster = await startCluster({
      logDir,
      kafkaBrokers: brokers,
      databaseUrl,
      adminToken,
      portBase: port,
      apps: APPS,
      runner: 'bundle',
      bundleDir: join(dataDir, 'bundles'),
      env: {
        LOG_LEVEL: env.LOG_LEVEL ?? 'info',
        RATE_LIMIT_PER_SECOND:
          env.RATE_LIMIT_PER_SECOND ?? (APP_SPECS.gateway.settings.RATE_LIMIT_PER_SECOND as string),
        KAFKAJS_NO_PARTITIONER_WARNING: '1',
        SCHEMA_REGISTRY_URL: registryUrl,
        ...vaultKeys(dataDir, env),
      },
    });
    checkInterrupted();
    const demo = (env.DEMO ?? '1') === '1' ? await demoCredentials(dataDir, cluster) : null;
    checkInterrupted();

    const url = cluster.gatewayUrl;
    const lines = [
      '',
      'Payment gateway — distributed mode (one process per service)',
      `  API        ${url}/api/v1   (health: ${url}/api/v1/health)`,
      `  Operator   ${url}/admin/v1`,
      `  Data       ${dataDir}`,
      `  PostgreSQL ${databaseLine}`,
      `  Kafka      ${kafkaLine}`,
      `  Registry   ${registryLine}`,
      `  Services   ${APPS.filter((a) => a !== 'gateway')
        .map((a) => `${a} ${cluster?.urls[a]}`)
        .join(', ')}`,
      `  Logs       ${logDir}/<service>.log`,
      adminTokenGiven === undefined
        ? `  ADMIN_TOKEN (generated) ${adminToken}`
        : '  ADMIN_TOKEN from the environment',
    ];
    if (demo !== null) {
      lines.push(`  Demo tenant ${demo.tenantId}, seller ${demo.sellerId}`);
      lines.push(`  Demo key    ${demo.apiKey}`);
    }
    lines.push(`  Ready in ${Date.now() - startedAtMs} ms; Ctrl-C stops everything`, '');
    process.stdout.write(`${lines.join('\n')}\n`);

    // A service that exits on its own (a crash) takes the rest down with it, saying which and why: a
    // topology with a hole in it would answer 502s for its routes and look alive.
    const running = cluster;
    const watch = setInterval(() => {
      if (interrupted !== null || stopping !== null) return clearInterval(watch);
      const gone = APPS.find((app) => running.services[app]?.pid() === undefined);
      if (gone === undefined) return;
      clearInterval(watch);
      process.stderr.write(
        `${gone} exited; stopping everything\n${logTail(join(logDir, `${gone}.log`))}\n`,
      );
      void stopAll().then(
        () => process.exit(1),
        () => process.exit(1),
      );
    }, 500);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    await stopAll().catch(() => undefined);
    if (interrupted !== null) process.exit(0);
    const tail = newestLogTail(logDir);
    process.stderr.write(
      `distributed mode failed to start: ${reason}\n${tail === '' ? '' : `${tail}\n`}`,
    );
    process.exit(1);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(
    `distributed mode failed to start: ${err instanceof Error ? err.message : String(err)}\n`,
  );
  process.exit(1);
});
