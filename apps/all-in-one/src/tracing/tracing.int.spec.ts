import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { integrationEnv } from '@pgw/testing';
import type { FlowResult, FlowSpan } from './trace-flow';

const ROOT = join(__dirname, '..', '..', '..', '..');
const SERVER = 1;
const PRODUCER = 3;
const CONSUMER = 4;
// trace-flow.run.ts's CLIENT_TRACEPARENT: the integrator's trace, not sampled.
const CLIENT_TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CLIENT_SPAN_ID = '00f067aa0ba902b7';

describe('one trace follows a card charge across the services (distributed topology, real PostgreSQL and Kafka)', () => {
  let flow: FlowResult;

  beforeAll(() => {
    const env = integrationEnv();
    // A process of its own, so that OpenTelemetry patches http, fastify, pg and kafkajs before they load,
    // exactly as each app's instrument.ts does in production.
    const run = spawnSync(
      process.execPath,
      [join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(__dirname, 'trace-flow.ts')],
      {
        cwd: ROOT,
        env: {
          ...process.env,
          DATABASE_URL: env.databaseUrl,
          KAFKA_BROKERS: env.kafkaBrokers.join(','),
          KAFKAJS_NO_PARTITIONER_WARNING: '1',
        },
        encoding: 'utf8',
        timeout: 240_000,
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    const line = run.stdout.split('\n').find((l) => l.startsWith('TRACE_FLOW_RESULT '));
    if (run.status !== 0 || line === undefined)
      throw new Error(`trace flow failed (${String(run.status)}):\n${run.stderr.slice(-4000)}`);
    flow = JSON.parse(line.slice('TRACE_FLOW_RESULT '.length)) as FlowResult;
  }, 300_000);

  const serverSpan = (spans: FlowSpan[], service: string, name: string) =>
    spans.find(
      (s) =>
        s.kind === SERVER && s.name === name && s.attributes['server.port'] === flow.ports[service],
    );

  function chargeTrace(): FlowSpan[] {
    const root = serverSpan(flow.spans, 'gateway', 'POST /api/v1/charges');
    if (root === undefined) throw new Error('no gateway span for POST /api/v1/charges');
    return flow.spans.filter((s) => s.traceId === root.traceId);
  }

  /** The chain of service-level spans from a span up to the root, by parent ids. */
  function ancestors(spans: FlowSpan[], span: FlowSpan): FlowSpan[] {
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    const chain: FlowSpan[] = [];
    for (
      let current = byId.get(span.parentSpanId ?? '');
      current !== undefined;
      current = byId.get(current.parentSpanId ?? '')
    )
      chain.push(current);
    return chain;
  }

  it('starts at the gateway and forms one tree: every span of the trace has its parent in the trace', () => {
    const spans = chargeTrace();
    const roots = spans.filter((s) => s.parentSpanId === null);
    expect(roots.map((s) => [s.name, s.attributes['server.port']])).toEqual([
      ['POST /api/v1/charges', flow.ports.gateway],
    ]);
    const ids = new Set(spans.map((s) => s.spanId));
    expect(spans.filter((s) => s.parentSpanId !== null && !ids.has(s.parentSpanId))).toEqual([]);
  });

  it("is traced although the integrator's traceparent said not sampled, in a trace of the gateway's that links the integrator's", () => {
    // Proves sampling is decided at the edge: flags 00 from a client neither stop the trace nor lend it their id.
    const gateway = serverSpan(chargeTrace(), 'gateway', 'POST /api/v1/charges')!;
    expect(gateway.traceId).not.toBe(CLIENT_TRACE_ID);
    expect(gateway.links).toEqual([{ traceId: CLIENT_TRACE_ID, spanId: CLIENT_SPAN_ID }]);
    expect(flow.spans.filter((s) => s.traceId === CLIENT_TRACE_ID)).toEqual([]);
  });

  it('goes from the gateway to charges over HTTP, and from charges to the vault and the acquirer', () => {
    const spans = chargeTrace();
    const gateway = serverSpan(spans, 'gateway', 'POST /api/v1/charges')!;
    const charges = serverSpan(spans, 'charges', 'POST /api/v1/charges');
    expect(charges).toBeDefined();
    expect(ancestors(spans, charges!)).toContainEqual(gateway);
    const vault = spans.find(
      (s) => s.kind === SERVER && s.attributes['server.port'] === flow.ports.vault,
    );
    const acquirer = spans.find(
      (s) => s.kind === SERVER && s.attributes['server.port'] === flow.ports['acquirer-sim'],
    );
    expect(ancestors(spans, vault!)).toContainEqual(charges);
    expect(ancestors(spans, acquirer!)).toContainEqual(charges);
  });

  it('crosses the Kafka hops with the same trace id: charges → receivables → ledger, and charges → webhooks', () => {
    const spans = chargeTrace();
    const charges = serverSpan(spans, 'charges', 'POST /api/v1/charges')!;
    const consumer = (service: string) =>
      spans.filter(
        (s) =>
          s.kind === CONSUMER &&
          String(s.attributes['messaging.consumer.group.name']).includes(`_${service}.`),
      );
    const receivables = consumer('receivables');
    const ledger = consumer('ledger');
    const webhooks = consumer('webhooks');
    expect(receivables.length).toBeGreaterThan(0);
    expect(ledger.length).toBeGreaterThan(0);
    expect(webhooks.length).toBeGreaterThan(0);
    // receivables and webhooks applied events written in charges' request; the ledger applied events that
    // receivables wrote while applying those: each hop's parent chain leads back through the one before.
    for (const span of [...receivables, ...webhooks])
      expect(ancestors(spans, span)).toContainEqual(charges);
    for (const span of ledger)
      expect(ancestors(spans, span).some((a) => receivables.includes(a))).toBe(true);
  });

  it('opens no trace of its own for consuming: no root span of the run is a Kafka poll, receive or process span', () => {
    // Proves reading a message only adds to the trace that wrote it: kafkajs' per-batch `poll` traces are gone.
    const strays = flow.spans.filter(
      (s) =>
        s.parentSpanId === null &&
        s.attributes['messaging.system'] === 'kafka' &&
        ['receive', 'process'].includes(String(s.attributes['messaging.operation.type'])),
    );
    expect(strays.map((s) => s.name)).toEqual([]);
    // The run did consume: its process spans are all inside traces that a request started.
    const processed = flow.spans.filter((s) => s.kind === CONSUMER);
    expect(processed.length).toBeGreaterThan(0);
    expect(processed.filter((s) => s.parentSpanId === null)).toEqual([]);
  });

  it('shows each Kafka hop by the messaging conventions: a send span of the relay, linked from the process span of the consumer', () => {
    // Proves an SRE sees when the relay published each event and when each consumer applied it, in the payment's trace.
    const spans = chargeTrace();
    const consumers = spans.filter((s) => s.kind === CONSUMER);
    expect(consumers.length).toBeGreaterThan(0);
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    for (const processed of consumers) {
      const topic = String(processed.attributes['messaging.destination.name']);
      expect(processed.name).toBe(`process ${topic}`);
      expect(processed.attributes).toMatchObject({
        'messaging.system': 'kafka',
        'messaging.operation.type': 'process',
        'messaging.message.id': expect.any(String),
      });
      // The link leads to the relay's send span of the same message, in the same trace, under the same parent.
      expect(processed.links).toHaveLength(1);
      const send = byId.get(processed.links[0]!.spanId);
      expect(send).toMatchObject({
        kind: PRODUCER,
        name: `send ${topic}`,
        traceId: processed.traceId,
        parentSpanId: processed.parentSpanId,
      });
      expect(send!.attributes).toMatchObject({
        'messaging.system': 'kafka',
        'messaging.destination.name': topic,
        'messaging.operation.type': 'send',
        'messaging.message.id': processed.attributes['messaging.message.id'],
      });
    }
  });
});
