// The distributed mode as processes, for the benchmarks and the fault and soak runs: one process per service
// on a fresh PostgreSQL database (dropped and created again), Kafka, the gateway in front. Every child is
// started here and stopped here, by its own pid; each can be killed (any signal) and started again.
import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Client } from 'pg';
// eslint-disable-next-line @nx/enforce-module-boundaries -- a key with every permission: the gateway's own list (pure domain code)
import { PERMISSIONS } from '@pgw/domain';
// eslint-disable-next-line @nx/enforce-module-boundaries -- the services are built as the images build them; the bundler imports nothing of the workspace
import { bundleApps } from '../deploy/bundle';
// eslint-disable-next-line @nx/enforce-module-boundaries -- the apps as the deployment declares them (a table, nothing else)
import { APPS as DEPLOYED_APPS, type AppName } from '../deploy/apps';
import { json, send, sleep } from './load';

export const ROOT = join(__dirname, '..', '..');

/**
 * The services in start order (each migrates its own schema): the acquirer simulator, which the others call,
 * first and the gateway, which calls them all, last; the rest as the deployment lists them.
 */
export const APPS: readonly AppName[] = [
  'acquirer-sim',
  ...DEPLOYED_APPS.filter((a) => a !== 'acquirer-sim' && a !== 'gateway'),
  'gateway',
];
export type App = AppName;

/** One service's process: its pid changes on every restart. */
export interface ManagedService {
  readonly app: App;
  readonly url: string;
  readonly healthUrl: string;
  pid(): number | undefined;
  /** Sends a signal (SIGKILL: the crash) and waits for the process to be gone. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Starts the service again (after kill) and waits until /health answers 200; resolves with the time it took. */
  start(): Promise<number>;
  stop(): Promise<void>;
}

export interface Cluster {
  databaseUrl: string;
  /** The gateway's key pair of this cluster (PEM): the bench signs direct calls to a service with the private key. */
  principalPrivateKeyPem: string;
  principalPublicKeyPem: string;
  adminToken: string;
  urls: Record<string, string>;
  gatewayUrl: string;
  services: Partial<Record<App, ManagedService>>;
  /** Services that would not start, and why (the run goes on without them). */
  skipped: Record<string, string>;
  stop(): Promise<void>;
}

export interface ClusterOptions {
  logDir: string;
  kafkaBrokers: string;
  /** Admin URL of the PostgreSQL server; the database is dropped and created there. */
  pgAdminUrl?: string;
  /** A database to use as it is (its data kept), instead of one dropped and created at pgAdminUrl. */
  databaseUrl?: string;
  /** The gateway's ADMIN_TOKEN (default: a random one). */
  adminToken?: string;
  database?: string;
  /** The gateway listens on portBase, the others on the ports after it (APPS order). */
  portBase?: number;
  /** Which services to run (default: all but webhooks). */
  apps?: readonly App[];
  /** `tsx` runs the TypeScript sources; `bundle` builds each app with tools/deploy/bundle.ts first (as the images run). */
  runner?: 'tsx' | 'bundle';
  /**
   * Where the bundles go (default .cache/cluster-bundles/<database>): runs at the same time need their own, or one
   * run's build deletes the files another run's restarted service loads.
   */
  bundleDir?: string;
  nodeArgs?: Partial<Record<App, string[]>>;
  /** Extra environment for every service (after the defaults). */
  env?: Record<string, string>;
}

export const PG_ADMIN_URL =
  process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const BENCH_DB = 'gateway_bench';
/** The schema registry the services register and read event schemas in: tools/registry/start's unless set. */
export const SCHEMA_REGISTRY_URL =
  process.env.SCHEMA_REGISTRY_URL ?? 'http://127.0.0.1:8081/apis/ccompat/v7';

export async function recreateDatabase(
  adminUrl = PG_ADMIN_URL,
  database = BENCH_DB,
): Promise<string> {
  const c = new Client({ connectionString: adminUrl });
  await c.connect();
  await c.query(`drop database if exists ${database} with (force)`);
  await c.query(`create database ${database}`);
  await c.end();
  const u = new URL(adminUrl);
  u.pathname = `/${database}`;
  return u.toString();
}

async function waitHealthy(url: string, child: ChildProcess, timeoutMs: number): Promise<number> {
  const t0 = performance.now();
  while (performance.now() - t0 < timeoutMs) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`${url}: the process exited with ${child.exitCode ?? child.signalCode}`);
    try {
      const a = await send({ method: 'GET', url }, { timeoutMs: 1000 });
      if (a.status === 200) return performance.now() - t0;
    } catch {
      /* not listening yet */
    }
    await sleep(50);
  }
  throw new Error(`${url}: not healthy after ${timeoutMs} ms`);
}

export function spawnLogged(args: string[], env: NodeJS.ProcessEnv, logFile: string): ChildProcess {
  // Before the child: a log that cannot be opened would end the bench with the child left running.
  mkdirSync(dirname(logFile), { recursive: true });
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log = createWriteStream(logFile, { flags: 'a' });
  // Both pipes write to one file: it ends once the child's pipes have both closed, not when the first one
  // does (pipe's default), which lost the other's last lines ("write after end").
  child.stdout?.pipe(log, { end: false });
  child.stderr?.pipe(log, { end: false });
  child.once('close', () => log.end());
  return child;
}

function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null || child.pid === undefined;
}

export async function stopChild(
  child: ChildProcess,
  timeoutMs = 10_000,
  signal: NodeJS.Signals = 'SIGTERM',
): Promise<void> {
  if (exited(child)) return;
  const gone = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill(signal);
  const done = await Promise.race([gone.then(() => true), sleep(timeoutMs).then(() => false)]);
  if (!done && !exited(child)) {
    child.kill('SIGKILL');
    await gone;
  }
}

/**
 * Fails when no schema registry answers: the services would start healthy without one (they need it only to
 * publish), and every relay would then fail round after round while the run waits for its events. Nothing
 * listening, or a 4xx (a wrong URL), fails at once; a registry that is up but slow to answer is given up to
 * `waitMs` (CI's chaos step once found it answering nothing within 3 s just after the integration suites'
 * load, and the soak step 9 s later found it well). `/schemas/types` is the API's cheapest call.
 */
export async function requireRegistry(
  url: string,
  options: { waitMs?: number; timeoutMs?: number } = {},
): Promise<void> {
  const deadline = performance.now() + (options.waitMs ?? 20_000);
  let why: string;
  for (;;) {
    try {
      const a = await send(
        { method: 'GET', url: `${url}/schemas/types` },
        { timeoutMs: options.timeoutMs ?? 5000 },
      );
      if (a.status === 200) return;
      why = `answered ${a.status}`;
      if (a.status < 500) break;
    } catch (err) {
      why = err instanceof Error ? err.message : String(err);
      if (why !== 'timeout') break;
    }
    if (performance.now() >= deadline) break;
    await sleep(500);
  }
  throw new Error(
    `no schema registry at ${url} (${why}): start one (REGISTRY_STORAGE=mem tools/registry/start) or set SCHEMA_REGISTRY_URL`,
  );
}

export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  await requireRegistry(options.env?.SCHEMA_REGISTRY_URL ?? SCHEMA_REGISTRY_URL);
  mkdirSync(options.logDir, { recursive: true });
  const apps = APPS.filter((a) =>
    (options.apps ?? APPS.filter((x) => x !== 'webhooks')).includes(a),
  );
  const databaseUrl =
    options.databaseUrl ??
    (await recreateDatabase(options.pgAdminUrl ?? PG_ADMIN_URL, options.database ?? BENCH_DB));
  // A key pair per cluster: the gateway alone gets the private key, every service the public one.
  const principalKeys = generateKeyPairSync('ed25519');
  const principalPrivateKeyPem = principalKeys.privateKey
    .export({ type: 'pkcs8', format: 'pem' })
    .toString();
  const principalPublicKeyPem = principalKeys.publicKey
    .export({ type: 'spki', format: 'pem' })
    .toString();
  const adminToken = options.adminToken ?? randomBytes(24).toString('hex');
  const portBase = options.portBase ?? 18200;
  const urls: Record<string, string> = {};
  const ports: Partial<Record<App, number>> = { gateway: portBase };
  APPS.filter((a) => a !== 'gateway').forEach((a, i) => (ports[a] = portBase + 1 + i));
  for (const app of apps) urls[app] = `http://127.0.0.1:${ports[app]}`;
  const peerEnv: Record<string, string> = {};
  for (const app of apps)
    if (app !== 'gateway')
      peerEnv[`${app.replace('-', '_').toUpperCase()}_URL`] = urls[app] as string;
  const base: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    KAFKA_BROKERS: options.kafkaBrokers,
    SCHEMA_REGISTRY_URL,
    PRINCIPAL_PUBLIC_KEY: principalPublicKeyPem,
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
    HOST: '127.0.0.1',
    ...peerEnv,
    VAULT_KEK: randomBytes(32).toString('base64'),
    VAULT_KEK_ID: 'kbench1',
    VAULT_FINGERPRINT_KEY: randomBytes(32).toString('base64'),
    // Every receiver of these runs (the soak's) listens on 127.0.0.1: contract §7 allows it only when told.
    WEBHOOK_ALLOW_PRIVATE_TARGETS: '1',
    ...options.env,
  };
  delete base.OTEL_EXPORTER_OTLP_ENDPOINT;
  let entryOf = (app: App): string[] => ['--import', 'tsx', join('apps', app, 'src', 'main.ts')];
  if (options.runner === 'bundle') {
    const dirOf = (app: string) =>
      join(
        options.bundleDir ?? join(ROOT, '.cache', 'cluster-bundles', options.database ?? BENCH_DB),
        app,
      );
    await bundleApps(apps, dirOf);
    entryOf = (app) => [join(dirOf(app), 'dist', 'main.js')];
  }
  const services: Partial<Record<App, ManagedService>> = {};
  for (const app of apps) {
    const env: NodeJS.ProcessEnv = { ...base, PORT: String(ports[app]) };
    if (app === 'gateway') {
      env.PRINCIPAL_PRIVATE_KEY = principalPrivateKeyPem;
      env.ADMIN_TOKEN = adminToken;
      // The per-key limit (default 100/s) would cap a single-key load test: raised unless the caller sets it.
      env.RATE_LIMIT_PER_SECOND = options.env?.RATE_LIMIT_PER_SECOND ?? '1000000';
    }
    const url = urls[app] as string;
    const healthUrl = app === 'gateway' ? `${url}/api/v1/health` : `${url}/health`;
    let child: ChildProcess | null = null;
    const service: ManagedService = {
      app,
      url,
      healthUrl,
      pid: () => (child !== null && !exited(child) ? child.pid : undefined),
      async kill(signal = 'SIGKILL') {
        if (child !== null) await stopChild(child, 10_000, signal);
      },
      async start() {
        if (child !== null && !exited(child))
          throw new Error(`${app} is running (pid ${child.pid})`);
        // `node --import tsx` (not tsx's cli, which runs the app in a child process): the pid we kill and
        // the --cpu-prof we pass are the service's own.
        child = spawnLogged(
          [...(options.nodeArgs?.[app] ?? []), ...entryOf(app)],
          env,
          join(options.logDir, `${app}.log`),
        );
        return waitHealthy(healthUrl, child, 90_000);
      },
      async stop() {
        if (child !== null) await stopChild(child);
      },
    };
    services[app] = service;
  }
  const skipped: Record<string, string> = {};
  const stop = async () => {
    for (const app of [...apps].reverse()) await services[app]?.stop();
  };
  try {
    // One after the other, so that the first Kafka topic creations do not race; the gateway last.
    for (const app of apps) await (services[app] as ManagedService).start();
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    databaseUrl,
    principalPrivateKeyPem,
    principalPublicKeyPem,
    adminToken,
    urls,
    gatewayUrl: urls.gateway as string,
    services,
    skipped,
    stop,
  };
}

export interface Seller {
  tenantId: string;
  sellerId: string;
  keyId: string;
  key: string;
}

export const ALL_PERMISSIONS = [...PERMISSIONS];

/** A tenant (unless given), an approved seller and a test key with every permission; `bodies` adds to the admin requests. */
export async function provisionSeller(
  cluster: Pick<Cluster, 'adminToken' | 'gatewayUrl'>,
  tenantId?: string,
  bodies: { tenant?: Record<string, unknown>; seller?: Record<string, unknown> } = {},
): Promise<Seller> {
  const admin = { authorization: `Bearer ${cluster.adminToken}` };
  const g = cluster.gatewayUrl;
  const tenant =
    tenantId ??
    (
      await json<{ id: string }>(
        {
          method: 'POST',
          url: `${g}/admin/v1/tenants`,
          headers: admin,
          body: JSON.stringify({ name: 'Bench tenant', ...bodies.tenant }),
        },
        201,
      )
    ).id;
  const seller = await json<{ id: string }>(
    {
      method: 'POST',
      url: `${g}/admin/v1/tenants/${tenant}/sellers`,
      headers: admin,
      body: JSON.stringify({
        name: 'Bench seller',
        document: '11222333000181',
        kyc_status: 'approved',
        ...bodies.seller,
      }),
    },
    201,
  );
  const key = await json<{ id: string; secret: string }>(
    {
      method: 'POST',
      url: `${g}/admin/v1/api-keys`,
      headers: admin,
      body: JSON.stringify({
        tenant_id: tenant,
        seller_id: seller.id,
        environment: 'test',
        permissions: ALL_PERMISSIONS,
      }),
    },
    201,
  );
  return { tenantId: tenant, sellerId: seller.id, keyId: key.id, key: key.secret };
}

/** A card token of the seller's; the first waits (up to `waitMs`) for the seller to reach the vault. */
export async function tokenize(
  cluster: Pick<Cluster, 'gatewayUrl'>,
  seller: Seller,
  options: { number?: string; waitMs?: number } = {},
): Promise<string> {
  // The seller reaches the vault through the directory event: retry until the gateway lets the key in.
  const body = JSON.stringify({
    card: {
      number: options.number ?? '4111 1111 1111 1111',
      exp_month: 12,
      exp_year: 2030,
      cvv: '123',
      holder_name: 'Ana Souza',
    },
  });
  const deadline = Date.now() + (options.waitMs ?? 10_000);
  for (;;) {
    const a = await send({
      method: 'POST',
      url: `${cluster.gatewayUrl}/api/v1/payment-methods/tokenize`,
      headers: { authorization: `Bearer ${seller.key}` },
      body,
    });
    if (a.status === 201) return (JSON.parse(a.body) as { id: string }).id;
    if (Date.now() > deadline) throw new Error(`tokenize: ${a.status} ${a.body.slice(0, 300)}`);
    await sleep(100);
  }
}

export const BUYER = {
  name: 'Ana Souza',
  email: 'ana@example.com',
  phone: '+55 11 98765-4321',
  document: '52998224725',
  address: {
    line_1: 'Rua das Flores, 100',
    zip_code: '01310-100',
    city: 'São Paulo',
    state: 'SP',
    country: 'BR',
  },
};

export function chargeBody(cardToken: string, amount = 10_000): string {
  return JSON.stringify({
    amount,
    payment_method: 'CREDIT_CARD',
    installments: 1,
    card_token: cardToken,
    buyer: BUYER,
  });
}
