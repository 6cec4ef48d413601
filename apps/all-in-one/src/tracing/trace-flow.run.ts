// The traced flow itself; trace-flow.ts starts telemetry first and then loads this file, so that http,
// fastify, pg and kafkajs are patched before they load.
import { SpanKind } from '@opentelemetry/api';
import type { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { HttpPeers, startService, systemClock } from '@pgw/platform-service';
import { EventWire, HttpSchemaRegistry } from '@pgw/contracts';
import { KafkaBus, SchemaRegistryBus } from '@pgw/platform-bus';
import { createPgDb } from '@pgw/platform-db';
import { generatePrincipalKeys } from '@pgw/platform-http';
import { generateCpf } from '@pgw/domain';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { startGateway } from '@pgw/gateway';
import { schemaRegistryUrl, uniqueName, waitFor } from '@pgw/testing';
import { SERVICES } from '../services';
import type { FlowResult, FlowSpan } from './trace-flow';

/**
 * The integrator's own trace context on the charge, marked not sampled (flags 00): the gateway starts the
 * payment's trace anyway and keeps this one only as a link.
 */
export const CLIENT_TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00';

export async function runFlow(exporter: InMemorySpanExporter): Promise<FlowResult> {
  const databaseUrl = process.env.DATABASE_URL;
  const brokers = process.env.KAFKA_BROKERS;
  if (!databaseUrl || !brokers) throw new Error('DATABASE_URL and KAFKA_BROKERS are required');
  const principalKeys = generatePrincipalKeys();
  const adminToken = randomBytes(24).toString('hex');
  const run = uniqueName('trace');
  const env = {
    ...process.env,
    ACQUIRER_TIMEOUT_MS: '5000',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: '1',
    CHARGES_RECOVERY_INTERVAL_MS: '0',
  };
  const urls: Record<string, string> = {};
  const ports: Record<string, number> = {};
  const peers = new HttpPeers(urls);
  const closers: Array<() => Promise<void>> = [];
  // The real registry, as the topics are the broker's real ones: ids of a registry of this process alone
  // would mean other schemas to every other reader of those topics.
  const wire = new EventWire(new HttpSchemaRegistry(schemaRegistryUrl()));

  try {
    // Every service but anticipation: the payment followed here does not reach it.
    for (const definition of SERVICES.filter((d) => d.name !== 'anticipation')) {
      const db = createPgDb({
        url: databaseUrl,
        schema: `${run}_${definition.name.replace(/-/g, '_')}`,
      });
      const bus = new SchemaRegistryBus(
        new KafkaBus({ brokers: brokers.split(','), clientId: `${run}-${definition.name}` }),
        wire,
      );
      const service = await startService(definition, {
        db,
        bus,
        clock: systemClock,
        principalPublicKey: principalKeys.publicKey,
        peers,
        env,
        log: { level: 'silent' },
      });
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
    const gatewayBus = new SchemaRegistryBus(
      new KafkaBus({ brokers: brokers.split(','), clientId: `${run}-gateway` }),
      wire,
    );
    const gateway = await startGateway({
      db: gatewayDb,
      bus: gatewayBus,
      clock: systemClock,
      principalPrivateKey: principalKeys.privateKey,
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

    // The answers are read field by field as an integrator would; their shapes are the API's own.
    const call = async (
      method: string,
      path: string,
      bearer: string,
      body?: unknown,
      headers: Record<string, string> = {},
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
    ): Promise<any> => {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${bearer}`,
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...headers,
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      const json = (await res.json()) as any;
      if (res.status >= 300)
        throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };

    const tenant = await call('POST', '/admin/v1/tenants', adminToken, { name: 'Trace' });
    const seller = await call('POST', `/admin/v1/tenants/${tenant.id}/sellers`, adminToken, {
      name: 'Loja',
      document: generateCpf(77),
      kyc_status: 'approved',
    });
    await call('POST', `/admin/v1/tenants/${tenant.id}/webhook-endpoints`, adminToken, {
      url: 'http://127.0.0.1:9/hook',
    });
    const key = await call('POST', '/admin/v1/api-keys', adminToken, {
      tenant_id: tenant.id,
      seller_id: seller.id,
      environment: 'test',
      permissions: ['payment_methods:tokenize', 'charges:create', 'charges:read', 'balance:read'],
    });
    // The directory reaches receivables through Kafka, on a topic not ordered with the charges': a charge
    // that came first would wait for its seller and be scheduled by the seller's event, in the seller's
    // trace, not the charge's. Wait for receivables' copy of the seller (on a fresh broker this took seconds).
    await waitFor(
      async () =>
        (await sellerKnownTo(databaseUrl, `${run}_receivables`, seller.id)) ? true : undefined,
      60_000,
      'the seller to reach receivables',
    );
    const token = await waitFor(
      async () => {
        try {
          return await call('POST', '/api/v1/payment-methods/tokenize', key.secret, {
            card: {
              number: '4111111111111111',
              exp_month: 12,
              exp_year: 2031,
              cvv: '123',
              holder_name: 'ANA',
            },
          });
        } catch {
          return undefined;
        }
      },
      60_000,
      'the tokenize',
    );
    exporter.reset();

    const charge = await waitFor(
      async () => {
        try {
          return await call(
            'POST',
            '/api/v1/charges',
            key.secret,
            {
              amount: 12_345,
              payment_method: 'CREDIT_CARD',
              installments: 1,
              card_token: token.id,
              buyer: {
                name: 'Ana Souza',
                email: 'ana@example.com',
                phone: '11987654321',
                document: generateCpf(78),
                address: {
                  line_1: 'Rua A, 1',
                  zip_code: '01001000',
                  city: 'São Paulo',
                  state: 'SP',
                },
              },
            },
            { traceparent: CLIENT_TRACEPARENT },
          );
        } catch {
          return undefined;
        }
      },
      60_000,
      'the charge',
    );
    // The balance shows the charge once receivables and the ledger applied its events; a failed wait says
    // what each of them applied and parked.
    await waitFor(
      async () =>
        (await call('GET', '/api/v1/balance', key.secret)).pending_cents > 0 ? true : undefined,
      60_000,
      'the balance',
    ).catch(async (error: unknown) => {
      throw new Error(`${String(error)}; ${await consumerProgress(databaseUrl, run)}`);
    });
    // The topics hold every earlier run's events too, which these fresh consumer groups read from the
    // beginning: wait for this charge's own trace to reach the webhooks consumer.
    const chargeTraceId = await waitFor(
      () =>
        exporter
          .getFinishedSpans()
          .find(
            (s) =>
              s.kind === SpanKind.SERVER &&
              s.name === 'POST /api/v1/charges' &&
              s.attributes['server.port'] === ports.gateway,
          )
          ?.spanContext().traceId,
      60_000,
      'the gateway span',
    );
    await waitFor(
      () =>
        exporter
          .getFinishedSpans()
          .some(
            (s) =>
              s.spanContext().traceId === chargeTraceId &&
              String(s.attributes['messaging.consumer.group.name']).startsWith(`${run}_webhooks.`),
          )
          ? true
          : undefined,
      120_000,
      'the webhooks consumer of this charge',
    );

    const spans: FlowSpan[] = exporter.getFinishedSpans().map((s) => ({
      name: s.name,
      traceId: s.spanContext().traceId,
      spanId: s.spanContext().spanId,
      parentSpanId: s.parentSpanContext?.spanId ?? null,
      kind: s.kind,
      attributes: { ...s.attributes },
      links: s.links.map((l) => ({ traceId: l.context.traceId, spanId: l.context.spanId })),
    }));
    return { chargeId: charge.id, ports, spans };
  } finally {
    for (const close of closers.reverse()) await close().catch(() => undefined);
  }
}

/** Whether a service's copy of the directory (its `sellers` table) has the seller. */
async function sellerKnownTo(
  databaseUrl: string,
  schema: string,
  sellerId: string,
): Promise<boolean> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (
      (await client.query(`select 1 from "${schema}".sellers where seller_id = $1`, [sellerId]))
        .rowCount === 1
    );
  } finally {
    await client.end();
  }
}

/** What receivables and the ledger of this run have applied and parked, for a failed wait's message. */
async function consumerProgress(databaseUrl: string, run: string): Promise<string> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const parts: string[] = [];
    for (const service of ['receivables', 'ledger']) {
      const schema = `${run}_${service}`;
      const inbox = await client.query(
        `select consumer, count(*)::int as n from "${schema}".inbox group by consumer order by consumer`,
      );
      const parked = await client.query(
        `select reason, count(*)::int as n from "${schema}".dead_letters group by reason order by reason`,
      );
      parts.push(
        `${service}: applied ${JSON.stringify(inbox.rows)}, parked ${JSON.stringify(parked.rows)}`,
      );
    }
    return parts.join('; ');
  } catch (error) {
    return `consumer progress unknown: ${String(error)}`;
  } finally {
    await client.end();
  }
}
