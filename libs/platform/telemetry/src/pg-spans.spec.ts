import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { childEnv } from '@pgw/testing';

const ROOT = join(__dirname, '..', '..', '..', '..');

/** Whether the fixture's pg came out wrapped by the pg instrumentation, under `env`. */
async function pgWrapped(env: Record<string, string>): Promise<boolean> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', join(__dirname, 'testing', 'pg-spans.fixture.ts')],
    { cwd: ROOT, env: childEnv({ LOG_LEVEL: 'silent', ...env }), timeout: 60_000 },
  );
  const line = stdout.split('\n').find((l) => l.startsWith('PG_SPANS '));
  if (line === undefined) throw new Error(`pg-spans fixture wrote no result:\n${stdout}`);
  return (JSON.parse(line.slice('PG_SPANS '.length)) as { wrapped: boolean }).wrapped;
}

describe("pg's spans", () => {
  jest.setTimeout(120_000);

  it('wraps no query in a process that exports no spans, and every query in one that does', async () => {
    expect(await pgWrapped({})).toBe(false);
    // Nothing listens there: the fixture makes no span, so nothing is sent.
    expect(await pgWrapped({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' })).toBe(true);
  });
});
