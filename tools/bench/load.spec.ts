// The smoke test of tools/bench: the load generators, at a tiny size against a local server, produce
// figures (nothing is asserted about their values: benchmarks are not tests); and how an open loop's
// answers are sliced by when they were sent.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closedLoop, destroyAgents, openLoop, overTime, send } from './load';
import { packageOf } from './profile';

describe('tools/bench load generators', () => {
  let server: Server;
  let url: string;

  beforeAll(async () => {
    server = createServer((_req, res) => res.end('{}'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });

  afterAll(async () => {
    destroyAgents();
    await new Promise((resolve) => server.close(resolve));
  });

  it('produce a rate and percentiles at a tiny size', async () => {
    const closed = await closedLoop(() => ({ method: 'GET', url }), {
      concurrency: 2,
      durationMs: 200,
    });
    expect(closed.ok).toBeGreaterThan(0);
    expect(Number.isFinite(closed.p99_ms)).toBe(true);
    const open = await openLoop(() => ({ method: 'GET', url }), {
      ratePerSecond: 50,
      durationMs: 200,
    });
    expect(open.sent).toBe(10);
    expect(Number.isFinite(open.p50_ms)).toBe(true);
    expect(open.over_time.reduce((n, slice) => n + slice.count, 0)).toBe(open.ok);
  });

  it("slices an open loop's answers by when they were sent, so that a moment's tail shows as one", () => {
    const samples = [
      { atMs: 10, latencyMs: 600 }, // the start
      { atMs: 400, latencyMs: 100 },
      { atMs: 700, latencyMs: 90 },
      { atMs: 2_100, latencyMs: 310 }, // a stall, after an empty second
      { atMs: 2_200, latencyMs: 330 },
      { atMs: 2_300, latencyMs: 320 },
    ];
    expect(overTime(samples, 500)).toEqual([
      { from_s: 0, count: 2, p50_ms: 100, max_ms: 600 },
      { from_s: 0.5, count: 1, p50_ms: 90, max_ms: 90 },
      { from_s: 2, count: 3, p50_ms: 320, max_ms: 330 },
    ]);
  });

  it('refuses any address but 127.0.0.1, before it sends anything', async () => {
    // The refusal names the guard: without it, this would be a connection error (nothing listens on port 1).
    await expect(async () => send({ method: 'GET', url: 'http://localhost:1/' })).rejects.toThrow(
      'benchmarks only load 127.0.0.1, not localhost',
    );
    await expect(async () => send({ method: 'GET', url: 'http://10.0.0.1:1/' })).rejects.toThrow(
      'benchmarks only load 127.0.0.1, not 10.0.0.1',
    );
  });

  it('names the package of a profiled function', () => {
    expect(packageOf('file:///w/node_modules/@fastify/http-proxy/index.js', 'f')).toBe(
      '@fastify/http-proxy',
    );
    expect(packageOf('file:///w/libs/platform/bus/src/outbox.ts', 'f')).toBe('libs/platform/bus');
  });
});
