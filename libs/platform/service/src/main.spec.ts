import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { childEnv, waitFor } from '@pgw/testing';
import { freePort, otlpReceiver, type OtlpReceiver } from './testing/otlp-receiver';

const ROOT = join(__dirname, '..', '..', '..', '..');
const FIXTURE = join(__dirname, 'testing', 'exit-paths.fixture.ts');

/** The fixture as a process of its own, exporting to `collector` as the deployment does (OTLP http/protobuf). */
function startFixture(exitPath: string, collector: string, port: number) {
  const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE], {
    cwd: ROOT,
    env: childEnv({
      EXIT_PATH: exitPath,
      PORT: String(port),
      OTEL_EXPORTER_OTLP_ENDPOINT: collector,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      // The batch would otherwise go out by itself after 5 s: only the flush on the way out can deliver it.
      OTEL_BSP_SCHEDULE_DELAY: '600000',
      OTEL_LOGS_EXPORTER: 'none',
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, output: () => output };
}

/** A sampled W3C traceparent of the spec's own: the fixture's server span joins this trace. */
function traceparent(): { header: string; traceId: Buffer } {
  const traceId = randomBytes(16);
  return { header: `00-${traceId.toString('hex')}-${randomBytes(8).toString('hex')}-01`, traceId };
}

describe('runMain: every way out of a process exports its buffered telemetry first', () => {
  let receiver: OtlpReceiver;

  beforeEach(async () => {
    receiver = await otlpReceiver();
  });
  afterEach(() => {
    receiver.close();
  });

  it('on SIGTERM right after a request, the span of that request reaches the collector and the process exits 0', async () => {
    // Proves a rollout does not lose the last requests' spans: the batch was not due for minutes.
    const port = await freePort();
    const fixture = startFixture('signal', receiver.url, port);
    try {
      await waitFor(
        () => (fixture.output().includes('listening') ? true : undefined),
        30_000,
        `the fixture to listen: ${fixture.output()}`,
      );
      const { header, traceId } = traceparent();
      expect(
        (await fetch(`http://127.0.0.1:${port}/work`, { headers: { traceparent: header } })).status,
      ).toBe(200);
      fixture.child.kill('SIGTERM');
      expect(await fixture.exited).toBe(0);
      expect(receiver.traces.some((body) => body.includes(traceId))).toBe(true);
    } finally {
      fixture.child.kill('SIGKILL');
    }
  }, 60_000);

  it('on an uncaught exception, the span of the request before it reaches the collector and the process exits 1', async () => {
    // Proves a crash leaves its last trace behind, the one an SRE needs to see why it crashed.
    const port = await freePort();
    const fixture = startFixture('crash', receiver.url, port);
    try {
      await waitFor(
        () => (fixture.output().includes('listening') ? true : undefined),
        30_000,
        `the fixture to listen: ${fixture.output()}`,
      );
      const { header, traceId } = traceparent();
      expect(
        (await fetch(`http://127.0.0.1:${port}/crash`, { headers: { traceparent: header } }))
          .status,
      ).toBe(200);
      expect(await fixture.exited).toBe(1);
      expect(fixture.output()).toContain('exit-paths crashed: Error: a broken invariant');
      expect(receiver.traces.some((body) => body.includes(traceId))).toBe(true);
    } finally {
      fixture.child.kill('SIGKILL');
    }
  }, 60_000);

  it('on a failed start, the spans recorded so far reach the collector and the process exits 1 with the reason', async () => {
    // Proves a service that cannot start still reports what it did before failing.
    const fixture = startFixture('start-fails', receiver.url, await freePort());
    try {
      expect(await fixture.exited).toBe(1);
      expect(fixture.output()).toContain('exit-paths failed to start: the database is unreachable');
      expect(receiver.traces.some((body) => body.includes('exit-paths boot'))).toBe(true);
    } finally {
      fixture.child.kill('SIGKILL');
    }
  }, 60_000);
});
