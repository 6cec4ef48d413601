// A Kafka outage as Kubernetes sees it: the gateway and the ledger run as their own processes (their
// distributed mains) on the real PostgreSQL and on a PRIVATE Kafka broker of this test (tools/kafka/start on
// ports of its own; the shared broker on 9092 is never touched). With the broker stopped, /livez stays 200
// (no pod is restarted), /readyz turns 503 (out of the Service), a read that needs no broker still answers
// across both processes, and a directory write is kept in the outbox; both processes are the same ones
// throughout. With the broker back, /readyz is 200 again.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { generateCnpj } from '@pgw/domain';
import { childEnv, integrationEnv, schemaRegistryUrl, uniqueName, waitFor } from '@pgw/testing';

const ROOT = join(__dirname, '..', '..', '..', '..');
const run = promisify(execFile);

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as { port: number }).port;
  server.close();
  return port;
}

interface Child {
  name: string;
  process: ChildProcess;
  port: number;
  output: string;
}

describe('a Kafka outage', () => {
  const env = integrationEnv();
  const registryUrl = schemaRegistryUrl();
  const kafkaRun = mkdtempSync(join(tmpdir(), 'pgw-kafka-outage-'));
  const database = uniqueName('pgw_outage');
  const databaseUrl = new URL(env.databaseUrl);
  databaseUrl.pathname = `/${database}`;
  const adminToken = randomBytes(24).toString('hex');
  const keys = generateKeyPairSync('ed25519');
  let kafkaEnv: NodeJS.ProcessEnv = {};
  let brokers = '';
  const children: Child[] = [];

  const kafka = (command: 'start' | 'stop', keepData = false) =>
    run(join(ROOT, 'tools', 'kafka', command), [], {
      env: { ...process.env, ...kafkaEnv, ...(keepData ? { KAFKA_KEEP_DATA: '1' } : {}) },
      timeout: 150_000,
    });

  const status = async (
    child: Child,
    path: string,
    headers: Record<string, string> = {},
  ): Promise<number> =>
    (
      await fetch(`http://127.0.0.1:${child.port}${path}`, {
        headers,
        signal: AbortSignal.timeout(15_000),
      })
    ).status;

  async function startChild(name: string, extra: Record<string, string>): Promise<Child> {
    const port = await freePort();
    const child: Child = { name, port, output: '', process: null as unknown as ChildProcess };
    child.process = spawn(
      process.execPath,
      ['--import', 'tsx', join('apps', name, 'src', 'main.ts')],
      {
        cwd: ROOT,
        env: childEnv({
          DATABASE_URL: databaseUrl.toString(),
          KAFKA_BROKERS: brokers,
          SCHEMA_REGISTRY_URL: registryUrl,
          PORT: String(port),
          HOST: '127.0.0.1',
          KAFKAJS_NO_PARTITIONER_WARNING: '1',
          LOG_LEVEL: 'warn',
          ...extra,
        }),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child.process.stdout?.on('data', (c: Buffer) => (child.output += c.toString()));
    child.process.stderr?.on('data', (c: Buffer) => (child.output += c.toString()));
    children.push(child);
    await waitFor(
      async () => ((await status(child, '/readyz').catch(() => 0)) === 200 ? true : undefined),
      90_000,
      `${name} ready`,
    );
    return child;
  }

  beforeAll(async () => {
    const [port, controllerPort] = [await freePort(), await freePort()];
    kafkaEnv = {
      KAFKA_PORT: String(port),
      KAFKA_CONTROLLER_PORT: String(controllerPort),
      KAFKA_RUN_DIR: kafkaRun,
    };
    brokers = `127.0.0.1:${port}`;
    const admin = new Client({ connectionString: env.databaseUrl });
    await admin.connect();
    try {
      await admin.query(`create database ${database}`);
    } finally {
      await admin.end();
    }
    await kafka('start');
  }, 180_000);

  afterAll(async () => {
    for (const child of children) {
      if (child.process.exitCode === null) {
        child.process.kill('SIGKILL');
        await once(child.process, 'exit');
      }
    }
    await kafka('stop').catch(() => undefined);
    rmSync(kafkaRun, { recursive: true, force: true });
    const admin = new Client({ connectionString: env.databaseUrl });
    await admin.connect();
    try {
      await admin.query(`drop database if exists ${database} with (force)`);
    } finally {
      await admin.end();
    }
  }, 120_000);

  it('keeps /livez at 200 and the same processes, turns /readyz 503, and still answers reads that need no broker', async () => {
    // Proves a broker outage takes pods out of the Service without restarting them, and that they serve on.
    const publicKey = keys.publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const ledger = await startChild('ledger', { PRINCIPAL_PUBLIC_KEY: publicKey });
    const gateway = await startChild('gateway', {
      PRINCIPAL_PRIVATE_KEY: keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      ADMIN_TOKEN: adminToken,
      LEDGER_URL: `http://127.0.0.1:${ledger.port}`,
    });
    const pids = children.map((c) => c.process.pid);
    const admin = async (path: string, body: object) => {
      const res = await fetch(`http://127.0.0.1:${gateway.port}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as { id: string; secret?: string } };
    };
    const tenant = await admin('/admin/v1/tenants', { name: 'Loja Exemplo' });
    const seller = await admin(`/admin/v1/tenants/${tenant.body.id}/sellers`, {
      name: 'Vendedor',
      document: generateCnpj(7),
    });
    const key = await admin('/admin/v1/api-keys', {
      tenant_id: tenant.body.id,
      seller_id: seller.body.id,
      permissions: ['balance:read'],
    });
    expect([tenant.status, seller.status, key.status]).toEqual([201, 201, 201]);
    const balance = () =>
      status(gateway, '/api/v1/balance', { authorization: `Bearer ${key.body.secret ?? ''}` });
    expect(await balance()).toBe(200);

    await kafka('stop');
    for (const child of [gateway, ledger]) {
      // /readyz caches a healthy answer for 5 s; it turns 503 after that.
      await waitFor(
        async () => ((await status(child, '/readyz')) === 503 ? true : undefined),
        30_000,
        `${child.name} /readyz 503`,
      );
      expect([child.name, await status(child, '/livez')]).toEqual([child.name, 200]);
    }
    // Reads that need no broker: the key is checked in the gateway's database, the balance read in the ledger's.
    expect(await balance()).toBe(200);
    // A write that publishes an event answers too: the event waits in the gateway's outbox.
    expect((await admin('/admin/v1/tenants', { name: 'Loja durante a queda' })).status).toBe(201);
    // Still the same processes, a while into the outage (the consumers' and the relay's retries have run).
    await new Promise((r) => setTimeout(r, 10_000));
    expect(children.map((c) => [c.name, c.process.pid, c.process.exitCode])).toEqual(
      children.map((c, i) => [c.name, pids[i], null]),
    );
    expect(await status(ledger, '/livez')).toBe(200);

    await kafka('start', true);
    for (const child of [gateway, ledger]) {
      await waitFor(
        async () => ((await status(child, '/readyz')) === 200 ? true : undefined),
        60_000,
        `${child.name} /readyz 200 again`,
      );
    }
    expect(children.map((c) => c.process.pid)).toEqual(pids);
  }, 300_000);
});
