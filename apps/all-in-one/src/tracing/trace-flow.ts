// One card charge through the distributed topology, traced: every service on its own HTTP port and its own
// PostgreSQL schema, Kafka between them, the gateway forwarding over @fastify/http-proxy. Telemetry starts
// before anything it instruments is loaded (as each app's instrument.ts does), with an in-memory exporter;
// at the end the finished spans are written to stdout as one JSON line for tracing.int.spec.ts to check.
//
//   DATABASE_URL=… KAFKA_BROKERS=… node node_modules/tsx/dist/cli.mjs apps/all-in-one/src/tracing/trace-flow.ts
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { startTelemetry } from '@pgw/platform-telemetry';

const exporter = new InMemorySpanExporter();
const telemetry = startTelemetry({ serviceName: 'trace-flow', spanExporter: exporter, env: {} });

export interface FlowSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  kind: number;
  attributes: Record<string, unknown>;
}

export interface FlowResult {
  chargeId: string;
  ports: Record<string, number>;
  spans: FlowSpan[];
}

async function main(): Promise<void> {
  // Loaded only now, so that the instrumentation patches them.
  const { randomBytes } = await import('node:crypto');
  const { acquirerSimService } = await import('@pgw/acquirer-sim');
  const { chargesService } = await import('@pgw/charges');
  const { generateCpf } = await import('@pgw/domain');
  const { startGateway } = await import('@pgw/gateway');
  const { ledgerService } = await import('@pgw/ledger');
  const { KafkaBus } = await import('@pgw/platform-bus');
  const { createPgDb } = await import('@pgw/platform-db');
  const { HttpPeers, startService, systemClock } = await import('@pgw/platform-service');
  const { receivablesService } = await import('@pgw/receivables');
  const { uniqueName, waitFor } = await import('@pgw/testing');
  const { vaultService } = await import('@pgw/vault');
  const { webhooksService } = await import('@pgw/webhooks');

  const databaseUrl = process.env.DATABASE_URL;
  const brokers = process.env.KAFKA_BROKERS;
  if (!databaseUrl || !brokers) throw new Error('DATABASE_URL and KAFKA_BROKERS are required');
  const principalSecret = randomBytes(32).toString('hex');
  const adminToken = randomBytes(24).toString('hex');
  const run = uniqueName('trace');
  const env = { ...process.env, ACQUIRER_TIMEOUT_MS: '5000', CHARGES_RECOVERY_INTERVAL_MS: '0' };
  const urls: Record<string, string> = {};
  const ports: Record<string, number> = {};
  const peers = new HttpPeers(urls);
  const closers: Array<() => Promise<void>> = [];

  try {
    for (const definition of [acquirerSimService, vaultService, chargesService, receivablesService, ledgerService, webhooksService]) {
      const db = createPgDb({ url: databaseUrl, schema: `${run}_${definition.name.replace(/-/g, '_')}` });
      const bus = new KafkaBus({ brokers: brokers.split(','), clientId: `${run}-${definition.name}` });
      const service = await startService(definition, { db, bus, clock: systemClock, principalSecret, peers, env, log: { level: 'silent' } });
      const address = await service.app.listen({ port: 0, host: '127.0.0.1' });
      urls[definition.name] = address;
      ports[definition.name] = Number(new URL(address).port);
      closers.push(async () => {
        await service.stop();
        await bus.close();
        await db.close();
      });
    }
    const gatewayDb = createPgDb({ url: databaseUrl, schema: `${run}_gateway` });
    const gatewayBus = new KafkaBus({ brokers: brokers.split(','), clientId: `${run}-gateway` });
    const gateway = await startGateway({
      db: gatewayDb,
      bus: gatewayBus,
      clock: systemClock,
      principalSecret,
      adminToken,
      upstreams: { mode: 'http', baseUrls: { ...urls } },
      env,
      log: { level: 'silent' },
    });
    const base = await gateway.app.listen({ port: 0, host: '127.0.0.1' });
    ports.gateway = Number(new URL(base).port);
    closers.push(async () => {
      await gateway.stop();
      await gatewayBus.close();
      await gatewayDb.close();
    });

    const call = async (method: string, path: string, bearer: string, body?: unknown): Promise<any> => {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${bearer}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const json = (await res.json()) as any;
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };

    const tenant = await call('POST', '/admin/v1/tenants', adminToken, { name: 'Trace' });
    const seller = await call('POST', `/admin/v1/tenants/${tenant.id}/sellers`, adminToken, { name: 'Loja', document: generateCpf(77), kyc_status: 'approved' });
    await call('POST', `/admin/v1/tenants/${tenant.id}/webhook-endpoints`, adminToken, { url: 'http://127.0.0.1:9/hook' });
    const key = await call('POST', '/admin/v1/api-keys', adminToken, {
      tenant_id: tenant.id,
      seller_id: seller.id,
      environment: 'test',
      permissions: ['payment_methods:tokenize', 'charges:create', 'charges:read', 'balance:read'],
    });
    // The directory reaches the vault and charges through Kafka: wait until tokenize passes the KYC gate.
    const token = await waitFor(async () => {
      try {
        return await call('POST', '/api/v1/payment-methods/tokenize', key.secret, { card: { number: '4111111111111111', exp_month: 12, exp_year: 2031, cvv: '123', holder_name: 'ANA' } });
      } catch {
        return undefined;
      }
    }, 60_000, 'the seller to reach the vault');
    exporter.reset();

    const charge = await waitFor(async () => {
      try {
        return await call('POST', '/api/v1/charges', key.secret, {
          amount: 12_345,
          payment_method: 'CREDIT_CARD',
          installments: 1,
          card_token: token.id,
          buyer: { name: 'Ana Souza', email: 'ana@example.com', phone: '11987654321', document: generateCpf(78), address: { line_1: 'Rua A, 1', zip_code: '01001000', city: 'São Paulo', state: 'SP' } },
        });
      } catch {
        return undefined;
      }
    }, 60_000, 'the charge');
    // The balance shows the charge once receivables and the ledger applied its events.
    await waitFor(async () => ((await call('GET', '/api/v1/balance', key.secret)).pending_cents > 0 ? true : undefined), 60_000, 'the balance');
    await waitFor(() => (exporter.getFinishedSpans().some((s) => s.name.startsWith(`${run}_webhooks.`)) ? true : undefined), 60_000, 'the webhooks consumer');

    const spans: FlowSpan[] = exporter.getFinishedSpans().map((s) => ({
      name: s.name,
      traceId: s.spanContext().traceId,
      spanId: s.spanContext().spanId,
      parentSpanId: s.parentSpanContext?.spanId ?? null,
      kind: s.kind,
      attributes: { ...s.attributes },
    }));
    const result: FlowResult = { chargeId: charge.id, ports, spans };
    process.stdout.write(`TRACE_FLOW_RESULT ${JSON.stringify(result)}\n`);
  } finally {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    await telemetry.shutdown();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`trace flow failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
