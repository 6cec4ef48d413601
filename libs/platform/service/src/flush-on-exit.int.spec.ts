// A real service's main (the acquirer simulator's, the smallest) as Kubernetes runs it: its own process on
// the real PostgreSQL, Kafka and registry, exporting over OTLP http/protobuf to a collector of this spec. It
// answers one request and is sent SIGTERM at once; the span of that request must reach the collector, though
// the batch was not due for ten minutes.
import { spawn } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Client } from 'pg';
import { childEnv, integrationEnv, schemaRegistryUrl, uniqueName, waitFor } from '@pgw/testing';
import { freePort, otlpReceiver } from './testing/otlp-receiver';

const ROOT = join(__dirname, '..', '..', '..', '..');

describe("a service's telemetry on SIGTERM", () => {
  const env = integrationEnv();
  const database = uniqueName('pgw_flush');
  const databaseUrl = new URL(env.databaseUrl);
  databaseUrl.pathname = `/${database}`;

  const admin = async (sql: string) => {
    const client = new Client({ connectionString: env.databaseUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };

  beforeAll(() => admin(`create database ${database}`));
  afterAll(() => admin(`drop database if exists ${database} with (force)`));

  it('the span of the last request reaches the collector before the process exits 0', async () => {
    // Proves a rollout loses no telemetry: the main hands the SDK to runMain, which flushes before exit.
    const receiver = await otlpReceiver();
    const port = await freePort();
    const { publicKey } = generateKeyPairSync('ed25519');
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join('apps', 'acquirer-sim', 'src', 'main.ts')],
      {
        cwd: ROOT,
        env: childEnv({
          DATABASE_URL: databaseUrl.toString(),
          KAFKA_BROKERS: env.kafkaBrokers.join(','),
          SCHEMA_REGISTRY_URL: schemaRegistryUrl(),
          PRINCIPAL_PUBLIC_KEY: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
          PORT: String(port),
          HOST: '127.0.0.1',
          LOG_LEVEL: 'warn',
          KAFKAJS_NO_PARTITIONER_WARNING: '1',
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
          OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
          OTEL_BSP_SCHEDULE_DELAY: '600000',
          OTEL_LOGS_EXPORTER: 'none',
        }),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const exited = new Promise<number | null>((resolve) =>
      child.on('exit', (code) => resolve(code)),
    );
    try {
      await waitFor(
        async () =>
          (await fetch(`http://127.0.0.1:${port}/readyz`)
            .then((r) => r.status)
            .catch(() => 0)) === 200
            ? true
            : undefined,
        90_000,
        'acquirer-sim ready',
      );
      const traceId = randomBytes(16);
      const res = await fetch(`http://127.0.0.1:${port}/livez`, {
        headers: {
          traceparent: `00-${traceId.toString('hex')}-${randomBytes(8).toString('hex')}-01`,
        },
      });
      expect(res.status).toBe(200);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(receiver.traces.some((body) => body.includes(traceId))).toBe(true);
    } catch (error) {
      throw new Error(`${String(error)}\n${output.slice(-4000)}`);
    } finally {
      child.kill('SIGKILL');
      receiver.close();
    }
  }, 150_000);
});
