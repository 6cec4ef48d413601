import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { installPackedSdk } from './packed';

// The SDK quickstart of the root README is what an integrator runs first: this runs that very block,
// with the packed package, against `npm start` started as the README says, with the banner's credentials.

const ROOT = join(__dirname, '..', '..', '..');
const START_MS_MAX = 30_000;

function quickstart(markdown: string): string {
  const match =
    /<!-- sdk-quickstart:start -->\n```js\n([\s\S]*?)```\n<!-- sdk-quickstart:end -->/.exec(
      markdown,
    );
  if (match?.[1] === undefined) throw new Error('README has no sdk-quickstart block');
  return match[1];
}

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

// Only what the test means, and what npm and node need to run: a caller's ADMIN_TOKEN or DEMO=0 must not change it.
const baseEnv = (): NodeJS.ProcessEnv =>
  Object.fromEntries(
    ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ']
      .filter((name) => process.env[name] !== undefined)
      .map((name) => [name, process.env[name]]),
  );

let dir: string;
let npmStart: ChildProcess | undefined;
let banner = '';

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'pgw-quickstart-'));
});

afterAll(async () => {
  const child = npmStart;
  if (child?.pid !== undefined && child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    process.kill(-child.pid, 'SIGTERM'); // the whole group: npm and the node process it started
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('the README SDK quickstart', () => {
  it('runs as written against npm start: token, charge, typed error, receivables across pages, a verified webhook', async () => {
    // Proves the quickstart an integrator copies works with the published package and the real all-in-one.
    const port = await freePort();
    npmStart = spawn('npm', ['start', '--silent'], {
      cwd: ROOT,
      env: {
        ...baseEnv(),
        PORT: String(port),
        DATA_DIR: join(dir, 'data'),
        DEMO: '1',
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    npmStart.stdout?.on('data', (chunk: Buffer) => (banner += chunk.toString()));
    npmStart.stderr?.on('data', (chunk: Buffer) => (banner += chunk.toString()));

    const packed = await installPackedSdk(dir);
    writeFileSync(
      join(packed.appDir, 'quickstart.mjs'),
      quickstart(readFileSync(join(ROOT, 'README.md'), 'utf8')),
    );

    const deadline = Date.now() + START_MS_MAX;
    while (
      !/Demo key\s+sk_test_/.test(banner) &&
      Date.now() < deadline &&
      npmStart.exitCode === null
    )
      await new Promise((r) => setTimeout(r, 100));
    const adminToken = /ADMIN_TOKEN \(generated\) (\S+)/.exec(banner)?.[1];
    const tenantId = /Demo tenant (ten_[A-Za-z0-9]+)/.exec(banner)?.[1];
    const apiKey = /Demo key\s+(sk_test_[A-Za-z0-9]+)/.exec(banner)?.[1];
    expect({ adminToken, tenantId, apiKey }).toEqual({
      adminToken: expect.any(String),
      tenantId: expect.any(String),
      apiKey: expect.any(String),
    });

    const { stdout } = await promisify(execFile)(process.execPath, ['quickstart.mjs'], {
      cwd: packed.appDir,
      env: {
        ...baseEnv(),
        PGW_BASE_URL: `http://127.0.0.1:${port}`,
        PGW_API_KEY: apiKey,
        ADMIN_TOKEN: adminToken,
        TENANT_ID: tenantId,
      },
      timeout: 30_000,
    });
    const chargeId = /^charge (ch_[A-Za-z0-9]+): paid, 10000 cents$/m.exec(stdout)?.[1];
    expect(chargeId).toEqual(expect.any(String));
    expect(stdout).toContain(
      'refund refused: invalid_request_error refund_amount_exceeds_remaining',
    );
    expect(stdout).toContain(`webhook verified: charge.paid ${chargeId}`);
    expect(
      stdout.match(/^receivable [12]\/2: \d+ cents net, due \d{4}-\d{2}-\d{2}$/gm),
    ).toHaveLength(2);
    expect(stdout).not.toContain('webhook refused');
  }, 120_000);
});
