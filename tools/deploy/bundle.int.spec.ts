// The gateway's image contents, run as the image runs them (`node dist/main.js` in the bundle's directory,
// nothing else of the workspace), against the real PostgreSQL, Kafka and schema registry: it migrates its schema, answers
// its health, writes a tenant and its directory event, publishes the event to Kafka through the bundled
// relay and the kept kafkajs package, and stops cleanly on SIGTERM as Kubernetes stops it.
import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { integrationEnv, schemaRegistryUrl, uniqueName, waitFor } from '@pgw/testing';
import { bundleApp } from './bundle';

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as { port: number }).port;
  server.close();
  return port;
}

describe('the gateway bundle on PostgreSQL and Kafka', () => {
  const env = integrationEnv();
  const work = mkdtempSync(join(tmpdir(), 'pgw-bundle-int-'));
  const database = uniqueName('pgw_bundle');
  const databaseUrl = new URL(env.databaseUrl);
  databaseUrl.pathname = `/${database}`;
  const adminToken = randomBytes(24).toString('hex');
  let child: ChildProcess | null = null;
  let output = '';
  let port = 0;

  const admin = async () => {
    const client = new Client({ connectionString: env.databaseUrl });
    await client.connect();
    return client;
  };

  beforeAll(async () => {
    const client = await admin();
    try {
      await client.query(`create database ${database}`);
    } finally {
      await client.end();
    }
    const bundle = await bundleApp('gateway', join(work, 'gateway'));
    port = await freePort();
    child = spawn(process.execPath, ['--enable-source-maps', 'dist/main.js'], {
      cwd: bundle.outDir,
      env: {
        PATH: process.env.PATH ?? '',
        DATABASE_URL: databaseUrl.toString(),
        KAFKA_BROKERS: env.kafkaBrokers.join(','),
        SCHEMA_REGISTRY_URL: schemaRegistryUrl(),
        PRINCIPAL_PRIVATE_KEY: generateKeyPairSync('ed25519')
          .privateKey.export({ type: 'pkcs8', format: 'pem' })
          .toString(),
        ADMIN_TOKEN: adminToken,
        PORT: String(port),
        KAFKAJS_NO_PARTITIONER_WARNING: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  }, 60_000);

  afterAll(async () => {
    if (child !== null && child.exitCode === null) {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
    const client = await admin();
    try {
      await client.query(`drop database if exists ${database} with (force)`);
    } finally {
      await client.end();
    }
    rmSync(work, { recursive: true, force: true });
  });

  it('answers /api/v1/health once started', async () => {
    const body = await waitFor(
      async () => {
        if (child?.exitCode !== null) throw new Error(`the bundle exited: ${output}`);
        const res = await fetch(`http://127.0.0.1:${port}/api/v1/health`).catch(() => null);
        return res?.ok ? ((await res.json()) as { status: string }) : undefined;
      },
      30_000,
      'the gateway bundle to answer its health',
    );
    expect(body.status).toBe('ok');
  });

  it('writes through PostgreSQL and publishes the directory event to Kafka (pg and kafkajs from the kept packages)', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/admin/v1/tenants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Bundle Ltda' }),
    });
    expect(res.status).toBe(201);
    const client = new Client({ connectionString: databaseUrl.toString() });
    await client.connect();
    try {
      await waitFor(
        async () => {
          const rows = await client.query<{ sent: number }>(
            `select count(*)::int as sent from gateway.outbox where sent_at is not null`,
          );
          return (rows.rows[0]?.sent ?? 0) > 0 ? true : undefined;
        },
        30_000,
        'the relay to publish the tenant event',
      );
    } finally {
      await client.end();
    }
  });

  it('stops with exit code 0 on SIGTERM', async () => {
    child?.kill('SIGTERM');
    const [code] = (await once(child!, 'exit')) as [number | null];
    expect(code).toBe(0);
  });
});
