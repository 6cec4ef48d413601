import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { childEnv } from '@pgw/testing';
import type { EdgeResult, EdgeSpan } from './testing/edge-trace.fixture';

const ROOT = join(__dirname, '..', '..', '..');
const SERVER = 1;

/** The fixture in a process of its own, so that telemetry patches http and fastify before they load. */
function runEdge(
  requests: Array<{ target: 'gateway' | 'service'; traceparent: string }>,
  sampler: Record<string, string> = {},
): EdgeResult {
  const run = spawnSync(
    process.execPath,
    ['--import', 'tsx', join(__dirname, 'testing', 'edge-trace.fixture.ts')],
    {
      cwd: ROOT,
      env: childEnv({ EDGE_REQUESTS: JSON.stringify(requests), LOG_LEVEL: 'silent', ...sampler }),
      encoding: 'utf8',
      timeout: 120_000,
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  const line = run.stdout.split('\n').find((l) => l.startsWith('EDGE_RESULT '));
  if (run.status !== 0 || line === undefined)
    throw new Error(`edge fixture failed (${String(run.status)}):\n${run.stderr.slice(-4000)}`);
  return JSON.parse(line.slice('EDGE_RESULT '.length)) as EdgeResult;
}

/** An integrator's W3C trace context, with the sampled flag it chooses. */
function clientTrace(flags: '00' | '01') {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-${flags}` };
}

const serverSpan = (result: EdgeResult, service: 'gateway' | 'charges') =>
  result.spans.filter((s) => s.kind === SERVER && s.port === result.ports[service]);

function ancestors(spans: EdgeSpan[], span: EdgeSpan): EdgeSpan[] {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const chain: EdgeSpan[] = [];
  for (
    let current = byId.get(span.parentSpanId ?? '');
    current !== undefined;
    current = byId.get(current.parentSpanId ?? '')
  )
    chain.push(current);
  return chain;
}

describe('sampling is decided at the gateway, the edge of the trace', () => {
  it("traces a request whose integrator sent traceparent flags 00, in a new trace that links the integrator's", () => {
    // Proves an integrator cannot turn tracing off for a payment, and that its trace id goes no further than a link.
    const client = clientTrace('00');
    const result = runEdge([{ target: 'gateway', traceparent: client.traceparent }]);
    expect(result.statuses).toEqual([200]);
    const [gateway] = serverSpan(result, 'gateway');
    expect(gateway).toMatchObject({
      name: 'POST /api/v1/charges',
      parentSpanId: null,
      sampled: true,
    });
    expect(gateway!.traceId).not.toBe(client.traceId);
    expect(gateway!.links).toEqual([{ traceId: client.traceId, spanId: client.spanId }]);
    // The payment's trace is complete: the service's span is in it, under the gateway's.
    const [charges] = serverSpan(result, 'charges');
    expect(charges?.traceId).toBe(gateway!.traceId);
    expect(ancestors(result.spans, charges!)).toContainEqual(gateway);
    expect(result.spans.filter((s) => s.traceId === client.traceId)).toEqual([]);
  }, 150_000);

  it("follows OTEL_TRACES_SAMPLER at the edge whatever the integrator's flag, while a service keeps following its caller", () => {
    // Proves the standard variables configure a parent-based ratio sampler: a ratio of 0 drops the public
    // request its integrator marked sampled, and a service still records a hop whose caller sampled it.
    const client = clientTrace('01');
    const caller = clientTrace('01');
    const result = runEdge(
      [
        { target: 'gateway', traceparent: client.traceparent },
        { target: 'service', traceparent: caller.traceparent },
      ],
      { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' },
    );
    // The service refuses a request that carries no principal of the gateway's; its span is what counts here.
    expect(result.statuses).toEqual([200, 401]);
    expect(serverSpan(result, 'gateway')).toEqual([]);
    expect(
      serverSpan(result, 'charges').map((s) => [s.traceId, s.parentSpanId, s.sampled]),
    ).toEqual([[caller.traceId, caller.spanId, true]]);
    expect(result.spans.filter((s) => s.traceId === client.traceId)).toEqual([]);
  }, 150_000);
});
