// The distributed mode for the benchmarks: one process per service on a fresh PostgreSQL database
// (gateway_bench, dropped and created again), Kafka on 127.0.0.1:9092, the gateway in front. Every child is
// started here and stopped here, by its own pid.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { json, send, sleep } from './load';

export const ROOT = join(__dirname, '..', '..');

export interface ServiceSpec {
  app: string;
  port: number;
  env: Record<string, string>;
}

export interface Cluster {
  databaseUrl: string;
  principalSecret: string;
  adminToken: string;
  urls: Record<string, string>;
  gatewayUrl: string;
  /** Services that would not start, and why (the run goes on without them). */
  skipped: Record<string, string>;
  stop(): Promise<void>;
}

const PORTS: Record<string, number> = {
  gateway: 18200,
  'acquirer-sim': 18201,
  vault: 18202,
  charges: 18203,
  ledger: 18204,
  receivables: 18205,
  anticipation: 18206,
};

export const PG_ADMIN_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const BENCH_DB = 'gateway_bench';

export async function recreateDatabase(): Promise<string> {
  const c = new Client({ connectionString: PG_ADMIN_URL });
  await c.connect();
  await c.query(`drop database if exists ${BENCH_DB} with (force)`);
  await c.query(`create database ${BENCH_DB}`);
  await c.end();
  const u = new URL(PG_ADMIN_URL);
  u.pathname = `/${BENCH_DB}`;
  return u.toString();
}

async function waitHealthy(url: string, child: ChildProcess, timeoutMs: number): Promise<number> {
  const t0 = performance.now();
  while (performance.now() - t0 < timeoutMs) {
    if (child.exitCode !== null) throw new Error(`${url}: the process exited with ${child.exitCode}`);
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
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const log = createWriteStream(logFile);
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  return child;
}

export async function stopChild(child: ChildProcess, timeoutMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGTERM');
  const killed = await Promise.race([exited.then(() => true), sleep(timeoutMs).then(() => false)]);
  if (!killed && child.exitCode === null) child.kill('SIGKILL');
}

export async function startCluster(options: { logDir: string; kafkaBrokers: string; nodeArgs?: Record<string, string[]> }): Promise<Cluster> {
  mkdirSync(options.logDir, { recursive: true });
  const databaseUrl = await recreateDatabase();
  const principalSecret = randomBytes(32).toString('hex');
  const adminToken = randomBytes(24).toString('hex');
  const urls: Record<string, string> = {};
  for (const [app, port] of Object.entries(PORTS)) urls[app] = `http://127.0.0.1:${port}`;
  const peers = {
    ACQUIRER_SIM_URL: urls['acquirer-sim'] as string,
    VAULT_URL: urls.vault as string,
    CHARGES_URL: urls.charges as string,
    LEDGER_URL: urls.ledger as string,
    RECEIVABLES_URL: urls.receivables as string,
  };
  const withAnticipation = existsSync(join(ROOT, 'apps', 'anticipation', 'src', 'main.ts'));
  const base: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    KAFKA_BROKERS: options.kafkaBrokers,
    PRINCIPAL_SECRET: principalSecret,
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
    HOST: '127.0.0.1',
    ...peers,
    VAULT_KEK: randomBytes(32).toString('base64'),
    VAULT_KEK_ID: 'kbench1',
    VAULT_FINGERPRINT_KEY: randomBytes(32).toString('base64'),
  };
  delete base.OTEL_EXPORTER_OTLP_ENDPOINT;
  const order = ['acquirer-sim', 'vault', 'charges', 'ledger', 'receivables', ...(withAnticipation ? ['anticipation'] : []), 'gateway'];
  const children: ChildProcess[] = [];
  const skipped: Record<string, string> = {};
  const stop = async () => {
    for (const child of [...children].reverse()) await stopChild(child);
  };
  try {
    // The services migrate their own schemas; started one after the other so that the first Kafka
    // topic creations do not race, then the gateway.
    for (const app of order) {
      const env: NodeJS.ProcessEnv = { ...base, PORT: String(PORTS[app]) };
      if (urls.anticipation !== undefined && app !== 'anticipation') env.ANTICIPATION_URL = urls.anticipation;
      if (app === 'gateway') {
        env.ADMIN_TOKEN = adminToken;
        // The per-key limit (default 100/s) would cap a single-key load test: raised for the benchmark.
        env.RATE_LIMIT_PER_SECOND = '1000000';
      }
      // `node --import tsx` (not tsx's cli, which runs the app in a child process): the pid we stop and
      // the --cpu-prof we pass are the service's own.
      const args = [...(options.nodeArgs?.[app] ?? []), '--import', 'tsx', join('apps', app, 'src', 'main.ts')];
      const child = spawnLogged(args, env, join(options.logDir, `${app}.log`));
      children.push(child);
      const health = app === 'gateway' ? `${urls.gateway}/api/v1/health` : `${urls[app]}/health`;
      try {
        await waitHealthy(health, child, 90_000);
      } catch (err) {
        // Anticipation is still being written by another engineer: run without it rather than not at all.
        if (app !== 'anticipation') throw err;
        skipped.anticipation = err instanceof Error ? err.message : String(err);
        delete urls.anticipation;
        await stopChild(child);
      }
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { databaseUrl, principalSecret, adminToken, urls, gatewayUrl: urls.gateway as string, skipped, stop };
}

export interface Seller {
  tenantId: string;
  sellerId: string;
  keyId: string;
  key: string;
}

export const ALL_PERMISSIONS = ['payment_methods:tokenize', 'charges:create', 'charges:read', 'balance:read', 'receivables:read', 'anticipations:read', 'anticipations:create'];

export async function provisionSeller(cluster: Cluster, tenantId?: string): Promise<Seller> {
  const admin = { authorization: `Bearer ${cluster.adminToken}` };
  const g = cluster.gatewayUrl;
  const tenant = tenantId ?? (await json<{ id: string }>({ method: 'POST', url: `${g}/admin/v1/tenants`, headers: admin, body: JSON.stringify({ name: 'Bench tenant' }) }, 201)).id;
  const seller = await json<{ id: string }>(
    { method: 'POST', url: `${g}/admin/v1/tenants/${tenant}/sellers`, headers: admin, body: JSON.stringify({ name: 'Bench seller', document: '11222333000181', kyc_status: 'approved' }) },
    201,
  );
  const key = await json<{ id: string; secret: string }>(
    { method: 'POST', url: `${g}/admin/v1/api-keys`, headers: admin, body: JSON.stringify({ tenant_id: tenant, seller_id: seller.id, environment: 'test', permissions: ALL_PERMISSIONS }) },
    201,
  );
  return { tenantId: tenant, sellerId: seller.id, keyId: key.id, key: key.secret };
}

export async function tokenize(cluster: Cluster, seller: Seller): Promise<string> {
  // The seller reaches the vault through the directory event: retry until the gateway lets the key in.
  const body = JSON.stringify({ card: { number: '4111 1111 1111 1111', exp_month: 12, exp_year: 2030, cvv: '123', holder_name: 'Ana Souza' } });
  for (let attempt = 0; ; attempt++) {
    const a = await send({ method: 'POST', url: `${cluster.gatewayUrl}/api/v1/payment-methods/tokenize`, headers: { authorization: `Bearer ${seller.key}` }, body });
    if (a.status === 201) return (JSON.parse(a.body) as { id: string }).id;
    if (attempt > 100) throw new Error(`tokenize: ${a.status} ${a.body.slice(0, 300)}`);
    await sleep(100);
  }
}

export const BUYER = {
  name: 'Ana Souza',
  email: 'ana@example.com',
  phone: '+55 11 98765-4321',
  document: '52998224725',
  address: { line_1: 'Rua das Flores, 100', zip_code: '01310-100', city: 'São Paulo', state: 'SP', country: 'BR' },
};

export function chargeBody(cardToken: string, amount = 10_000): string {
  return JSON.stringify({ amount, payment_method: 'CREDIT_CARD', installments: 1, card_token: cardToken, buyer: BUYER });
}
