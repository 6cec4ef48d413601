// `npm run start:distributed` as a platform team runs it, on the PostgreSQL and Kafka of the integration
// run (DATABASE_URL, KAFKA_BROKERS; a fresh database of its own): the checks of `npm start`'s spec
// (apps/all-in-one/src/npm-start.spec.ts) against every service as a process from its bundle — health,
// the banner, the demo key, the data kept across a restart, Ctrl-C leaves no process behind — and the
// all-in-one's end-to-end flows (apps/all-in-one/src/e2e.scenarios.ts); then a service that dies, and one
// that cannot start (there on its own PostgreSQL and broker), stop everything with the reason.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { childEnv, integrationEnv, schemaRegistryUrl, uniqueName, waitFor } from '@pgw/testing';
import {
  anticipationFlow,
  cardChargeAndRefunds,
  type Target,
} from '../../apps/all-in-one/src/e2e.scenarios';
import { vaultKeysFromEnv } from '../../apps/vault/src/config';
import { openDetails, type TokenRow } from '../../apps/vault/src/data/token.repository';
import { APPS, chargeBody } from '../bench/cluster';

const ROOT = join(__dirname, '..', '..');
/**
 * A gateway port whose next seven (the services') are free too: another run of this suite may be going.
 * Drawn below Linux's ephemeral range (32768 up): a port there is free when checked and may be the source port
 * of one of the services' own outgoing connections by the time the service binds it (EADDRINUSE).
 */
async function freePorts(): Promise<number> {
  const free = (port: number) =>
    new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
  for (;;) {
    const base = 20_000 + Math.floor(Math.random() * (32_768 - 20_000 - APPS.length));
    let ok = true;
    for (let i = 0; i < APPS.length && ok; i++) ok = await free(base + i);
    if (ok) return base;
  }
}

interface Started {
  child: ChildProcess;
  /** npm's exit: its code, or the signal it ended by (npm ends by the SIGINT of a Ctrl-C, as a shell sees it). */
  exit: Promise<number | NodeJS.Signals | null>;
  output: () => string;
}

/** The processes whose command line names `dataDir`: every service runs its bundle from DATA_DIR/bundles. */
function processesUnder(dataDir: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
    } catch {
      continue; // gone meanwhile
    }
    if (cmdline.includes(dataDir)) found.push(`${pid} ${cmdline.trim()}`);
  }
  return found;
}

function launch(env: Record<string, string>): Started {
  const child = spawn('npm', ['run', 'start:distributed', '--silent'], {
    cwd: ROOT,
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exit = new Promise<number | NodeJS.Signals | null>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal)),
  );
  return { child, exit, output: () => out };
}

/** Waits for the banner's last line, or fails with what the command printed. */
async function ready(started: Started): Promise<string> {
  let exited = false;
  void started.exit.then(() => (exited = true));
  await waitFor(
    () =>
      /Ready in \d+ ms/.test(started.output())
        ? true
        : exited
          ? Promise.reject(new Error('exited'))
          : undefined,
    150_000,
    'the banner',
  ).catch((error: unknown) => {
    throw new Error(
      `npm run start:distributed did not start: ${String(error)}\n${started.output()}`,
    );
  });
  return started.output();
}

/** The vault's rows of these tokens, as its schema holds them. */
async function tokenRows(databaseUrl: string, ids: string[]): Promise<TokenRow[]> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query('select * from vault.tokens where id = any($1)', [ids]))
      .rows as TokenRow[];
  } finally {
    await client.end();
  }
}

/** Ctrl-C in the terminal: SIGINT to the whole foreground group (npm, tsx, the launcher and its children). */
async function ctrlC(started: Started): Promise<number | NodeJS.Signals | null> {
  if (
    started.child.exitCode === null &&
    started.child.signalCode === null &&
    started.child.pid !== undefined
  )
    process.kill(-started.child.pid, 'SIGINT');
  return started.exit;
}

/** Every process under DATA_DIR gone (the services, and a private broker or PostgreSQL), within 30 s. */
async function allStopped(dataDir: string): Promise<void> {
  await waitFor(
    () => (processesUnder(dataDir).length === 0 ? true : undefined),
    30_000,
    'every process to stop',
  ).catch(() => {
    throw new Error(`still running:\n${processesUnder(dataDir).join('\n')}`);
  });
}

describe('npm run start:distributed', () => {
  const servers = integrationEnv();
  const dataDir = mkdtempSync(join(tmpdir(), 'pgw-distributed-'));
  const database = uniqueName('pgw_distributed');
  const databaseUrl = new URL(servers.databaseUrl);
  databaseUrl.pathname = `/${database}`;
  let env: Record<string, string>;
  let gateway: string;
  const settings = (port: number) => ({
    PORT: String(port),
    DATA_DIR: dataDir,
    DEMO: '1',
    DATABASE_URL: databaseUrl.toString(),
    KAFKA_BROKERS: servers.kafkaBrokers.join(','),
    SCHEMA_REGISTRY_URL: schemaRegistryUrl(),
    LOG_LEVEL: 'warn',
  });
  const running: Started[] = [];

  const admin = async (sql: string) => {
    const client = new Client({ connectionString: servers.databaseUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  beforeAll(async () => {
    const port = await freePorts();
    env = settings(port);
    gateway = `http://127.0.0.1:${port}`;
    await admin(`create database ${database}`);
  });
  // A failed test stops what it started before the next one starts.
  afterEach(async () => {
    for (const started of running.splice(0)) await ctrlC(started);
  });
  afterAll(async () => {
    await admin(`drop database if exists ${database} with (force)`);
    rmSync(dataDir, { recursive: true, force: true });
  });

  const call = async (method: string, path: string, key: string, body?: string) => {
    const res = await fetch(`${gateway}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body,
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };
  const tokenize = (key: string) =>
    call(
      'POST',
      '/api/v1/payment-methods/tokenize',
      key,
      JSON.stringify({
        card: {
          number: '4111 1111 1111 1111',
          exp_month: 12,
          exp_year: 2031,
          cvv: '123',
          holder_name: 'ANA SOUZA',
        },
      }),
    );

  it('starts every service from its bundle, runs the end-to-end flows with the demo key, keeps its data across a restart; Ctrl-C, or a service that dies, leaves nothing running', async () => {
    const first = launch(env);
    running.push(first);
    const banner = await ready(first);
    expect(banner).toMatch(/ADMIN_TOKEN \(generated\) adm_[0-9a-f]{48}/);
    expect(banner).toContain(`Logs       ${join(dataDir, 'logs')}`);
    const demoKey = /Demo key\s+(sk_test_[A-Za-z0-9]+)/.exec(banner)?.[1];
    expect(demoKey).toBeDefined();
    const demo: Target = {
      url: gateway,
      adminToken: /ADMIN_TOKEN \(generated\) (\S+)/.exec(banner)![1]!,
      tenantId: /Demo tenant (ten_\w+)/.exec(banner)![1]!,
      apiKey: demoKey!,
    };

    const health = await fetch(`${gateway}/api/v1/health`);
    const body = (await health.json()) as Record<string, unknown>;
    expect(body).toEqual({
      object: 'health',
      service: 'service-gateway',
      status: 'ok',
      version: 'v1',
      request_id: expect.stringMatching(/^req_/),
    });
    // One process per app, each from its bundle, each writing its own log.
    const processes = processesUnder(dataDir);
    for (const app of APPS) {
      expect(
        processes.filter((p) => p.includes(join(dataDir, 'bundles', app, 'dist', 'main.js'))),
      ).toHaveLength(1);
      expect(existsSync(join(dataDir, 'logs', `${app}.log`))).toBe(true);
    }

    // The seller reaches the vault by its directory event over Kafka: retried until it has.
    const token = await waitFor(
      async () => {
        const res = await tokenize(demoKey!);
        return res.status === 201 ? (res.body.id as string) : undefined;
      },
      20_000,
      'the demo seller to reach the vault',
    );
    // The all-in-one's end-to-end flows, on the demo seller while it has no other charge.
    await anticipationFlow(demo);
    await cardChargeAndRefunds(demo);

    const charge = await call('POST', '/api/v1/charges', demoKey!, chargeBody(token, 12_345));
    expect([charge.status, charge.body.status, charge.body.amount_cents]).toEqual([
      201,
      'paid',
      12_345,
    ]);

    expect([0, 'SIGINT']).toContain(await ctrlC(first));
    expect(first.output()).toContain('SIGINT: stopping');
    await allStopped(dataDir);

    const second = launch(env);
    running.push(second);
    const again = await ready(second);
    // The demo key was kept (its secret in DATA_DIR, its hash in the database) and still authenticates.
    expect(again).toContain(`Demo key    ${demoKey}`);
    const read = await call('GET', `/api/v1/charges/${charge.body.id}`, demoKey!);
    expect([read.status, read.body.status]).toEqual([200, 'paid']);
    expect(
      (await call('GET', '/api/v1/charges/ch_unknown', 'sk_test_00000000000000000000000000000000'))
        .status,
    ).toBe(401);
    // The first run's card token still charges.
    const recharge = await call('POST', '/api/v1/charges', demoKey!, chargeBody(token, 6_789));
    expect([recharge.status, recharge.body.status]).toEqual([201, 'paid']);
    // The vault's keys were kept (DATA_DIR/vault-keys.json): the same card has the same fingerprint in
    // both runs, and the keys kept open what either run sealed.
    const tokenized = await tokenize(demoKey!);
    expect(tokenized.status).toBe(201);
    const token2 = tokenized.body.id as string;
    const rows = await tokenRows(databaseUrl.toString(), [token, token2]);
    expect(rows.map((r) => r.id).sort()).toEqual([token, token2].sort());
    expect(rows[0]!.fingerprint).toBe(rows[1]!.fingerprint);
    const keys = vaultKeysFromEnv(
      JSON.parse(readFileSync(join(dataDir, 'vault-keys.json'), 'utf8')) as NodeJS.ProcessEnv,
    );
    for (const row of rows) expect(() => openDetails(keys.keyring, row)).not.toThrow();

    // A service that dies (SIGKILL: a crash) takes the rest down, saying which and why, and exits 1.
    const charges = processesUnder(dataDir).find((p) =>
      p.includes(join(dataDir, 'bundles', 'charges', 'dist', 'main.js')),
    );
    process.kill(Number(charges!.split(' ')[0]), 'SIGKILL');
    expect(await second.exit).toBe(1);
    expect(second.output()).toContain('charges exited; stopping everything');
    await allStopped(dataDir);
  }, 300_000);

  // Without DATABASE_URL, KAFKA_BROKERS and SCHEMA_REGISTRY_URL it starts its own PostgreSQL, broker and
  // registry in DATA_DIR; a service that cannot start (here the gateway, on an ADMIN_TOKEN shorter than 16
  // characters) then stops every process started before it, those three included, and exits 1 with the reason.
  it('on its own PostgreSQL, broker and registry, stops everything it started and exits 1 with the reason when a service cannot start', async () => {
    const ownDataDir = mkdtempSync(join(tmpdir(), 'pgw-distributed-own-'));
    chmodSync(ownDataDir, 0o755); // PostgreSQL runs as the postgres user when the suite runs as root
    try {
      const { DATABASE_URL: _d, KAFKA_BROKERS: _k, SCHEMA_REGISTRY_URL: _r, ...own } = env;
      const started = launch({ ...own, DATA_DIR: ownDataDir, ADMIN_TOKEN: 'short-token' });
      running.push(started);
      const code = await started.exit;
      expect({ code, output: started.output() }).toEqual({
        code: 1,
        output: expect.stringContaining('distributed mode failed to start'),
      });
      expect(started.output()).toContain('ADMIN_TOKEN must have at least 16 characters');
      // Its PostgreSQL, broker and registry did start, in DATA_DIR, and were stopped with the rest.
      expect(existsSync(join(ownDataDir, 'postgres', 'pg', 'PG_VERSION'))).toBe(true);
      expect(existsSync(join(ownDataDir, 'kafka', 'data', 'meta.properties'))).toBe(true);
      expect(existsSync(join(ownDataDir, 'registry', 'data'))).toBe(true);
      await allStopped(ownDataDir);
      // Nothing else: the suite's own PostgreSQL still answers.
      await admin('select 1');
    } finally {
      rmSync(ownDataDir, { recursive: true, force: true });
    }
  }, 200_000);
});
