import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { childEnv } from '@pgw/testing';

const ROOT = join(__dirname, '..', '..', '..');

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address !== null
          ? resolve(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}

interface Started {
  child: ChildProcess;
  output: () => string;
  healthyAfterMs: number;
}

/**
 * How long `npm start` may take to answer before the test calls it hung. Not a speed check (a first start
 * runs initdb for every service's PGlite database: 6–15 s here, more on a loaded host); the time is printed.
 */
const START_DEADLINE_MS = 45_000;

/** Runs `npm start` as a user would, and waits for /api/v1/health to answer 200. */
async function npmStart(dataDir: string, port: number): Promise<Started> {
  const startedAt = Date.now();
  const child = spawn('npm', ['start', '--silent'], {
    cwd: ROOT,
    // Only what the test means: an ADMIN_TOKEN or DEMO=0 in the caller's shell must not change what it proves.
    env: childEnv({ PORT: String(port), DATA_DIR: dataDir, DEMO: '1', LOG_LEVEL: 'warn' }),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const deadline = startedAt + START_DEADLINE_MS;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/health`);
      if (res.status === 200)
        return { child, output: () => out, healthyAfterMs: Date.now() - startedAt };
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  await stop(child);
  throw new Error(
    `npm start did not answer /api/v1/health within ${START_DEADLINE_MS / 1000} s:\n${out}`,
  );
}

/** Runs `check` against a started `npm start`; a failure carries what the process printed (a crash says why). */
async function against(run: Started, check: () => Promise<void>): Promise<void> {
  try {
    await check();
  } catch (error) {
    const { exitCode, signalCode } = run.child;
    throw new Error(
      `${String(error)}\n--- npm start (exit ${exitCode ?? '-'}, signal ${signalCode ?? '-'}) printed ---\n${run.output()}`,
      { cause: error },
    );
  }
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.pid === undefined) return resolve();
    child.once('exit', () => resolve());
    process.kill(-child.pid, 'SIGTERM'); // the whole group: npm and the node process it started
  });
}

describe('npm start (all-in-one)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'pgw-start-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('answers /api/v1/health on an empty DATA_DIR, and keeps its data across a restart', async () => {
    const port = await freePort();
    const first = await npmStart(dataDir, port);
    console.log(`npm start on an empty DATA_DIR: healthy after ${first.healthyAfterMs} ms`);
    let demoKey = '';
    try {
      await against(first, async () => {
        const health = await fetch(`http://127.0.0.1:${port}/api/v1/health`);
        const body = (await health.json()) as Record<string, unknown>;
        expect(body).toEqual({
          object: 'health',
          service: 'service-gateway',
          status: 'ok',
          version: 'v1',
          request_id: expect.stringMatching(/^req_/),
        });
        expect(health.headers.get('x-request-id')).toBe(body.request_id);
        const banner = first.output();
        expect(banner).toMatch(/ADMIN_TOKEN \(generated\) adm_/);
        const match = /Demo key\s+(sk_test_[A-Za-z0-9]+)/.exec(banner);
        expect(match).not.toBeNull();
        demoKey = match![1]!;
        // The demo key authenticates: an unknown charge is a 404, not a 401.
        const probe = await fetch(`http://127.0.0.1:${port}/api/v1/chargebacks/cb_unknown`, {
          headers: { authorization: `Bearer ${demoKey}` },
        });
        expect(probe.status).not.toBe(401);
      });
    } finally {
      await stop(first.child);
    }

    const second = await npmStart(dataDir, port);
    try {
      await against(second, async () => {
        // The key was stored (as a hash) in the first run's database: it still authenticates after the restart.
        const probe = await fetch(`http://127.0.0.1:${port}/api/v1/chargebacks/cb_unknown`, {
          headers: { authorization: `Bearer ${demoKey}` },
        });
        expect(probe.status).not.toBe(401);
        const unknownKey = await fetch(`http://127.0.0.1:${port}/api/v1/chargebacks/cb_unknown`, {
          headers: { authorization: 'Bearer sk_test_00000000000000000000000000000000' },
        });
        expect(unknownKey.status).toBe(401);
        expect(second.output()).toContain(demoKey);
      });
    } finally {
      await stop(second.child);
    }
  }, 120_000);

  // Proves the all-in-one holds ADMIN_TOKEN to the distributed gateway's rule (at least 16 characters).
  it('refuses to start with an ADMIN_TOKEN shorter than 16 characters, saying why', () => {
    const run = spawnSync('npm', ['start', '--silent'], {
      cwd: ROOT,
      env: childEnv({
        PORT: '0',
        DATA_DIR: dataDir,
        ADMIN_TOKEN: 'short-token',
        LOG_LEVEL: 'warn',
      }),
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('ADMIN_TOKEN must have at least 16 characters');
    expect(run.stderr).not.toContain('short-token');
  }, 40_000);
});
