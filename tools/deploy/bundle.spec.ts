// The image's build stage without Docker: each app that has a src/main.ts bundles into a directory that
// holds only its own code, the libraries, the Avro schemas and the packages that must stay packages, and
// that directory loads in plain Node far enough to read its configuration. (bundle.int.spec.ts starts the
// gateway's bundle on the real PostgreSQL and Kafka and asks it for its health.)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { APPS } from './apps';
import {
  APP_ASSETS,
  APP_SITES,
  bundleApps,
  RUNTIME_PACKAGES,
  SCHEMAS_SOURCE,
  type BundleResult,
} from './bundle';
import { ROOT } from './manifests';

const APPS_WITH_MAIN = APPS.filter((app) => existsSync(join(ROOT, 'apps', app, 'src', 'main.ts')));
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { dev?: boolean; devOptional?: boolean }>;
};

function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();
}

describe('each app bundles into its own runnable directory (the Dockerfile build stage)', () => {
  const work = mkdtempSync(join(tmpdir(), 'pgw-bundle-'));
  const results = new Map<string, BundleResult>();

  beforeAll(async () => {
    const bundles = await bundleApps(APPS_WITH_MAIN, (app) => join(work, app));
    APPS_WITH_MAIN.forEach((app, i) => results.set(app, bundles[i]!));
  }, 60_000);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('there is at least the gateway to bundle', () => {
    expect(APPS_WITH_MAIN).toContain('gateway');
  });

  it.each(APPS_WITH_MAIN)(
    '%s: holds its own sources and the libraries, never another app',
    (app) => {
      const inputs = results.get(app)!.inputs;
      expect(inputs).toContain(`apps/${app}/src/main.ts`);
      expect(inputs.filter((p) => p.startsWith('apps/') && !p.startsWith(`apps/${app}/`))).toEqual(
        [],
      );
      // Besides apps and libs, only the committed OpenAPI and AsyncAPI documents, which the gateway serves.
      expect(
        inputs.filter(
          (p) =>
            !p.startsWith('apps/') &&
            !p.startsWith('libs/') &&
            p !== 'docs/openapi.json' &&
            p !== 'docs/asyncapi.json',
        ),
      ).toEqual([]);
      expect(inputs.filter((p) => /\.spec\.ts$/.test(p))).toEqual([]);
    },
  );

  it('the gateway carries the documents it serves at /api/v1/openapi.json and /api/v1/asyncapi.json in its bundle', () => {
    expect(results.get('gateway')!.inputs).toEqual(
      expect.arrayContaining(['docs/openapi.json', 'docs/asyncapi.json']),
    );
  });

  it('the gateway carries the script of its API reference page (GET /docs) beside its bundle, as the route reads it', () => {
    const script = readFileSync(join(work, 'gateway', 'dist', 'api-reference.js'), 'utf8');
    expect(APP_ASSETS.gateway).toEqual([
      {
        from: 'node_modules/@scalar/api-reference/dist/browser/standalone.js',
        to: 'dist/api-reference.js',
      },
    ]);
    expect(script).toContain('createApiReference');
  });

  it('the gateway carries the dashboard built by Vite beside its bundle, where its route looks first, with no source map', () => {
    const dir = join(work, 'gateway', 'dist', 'dashboard');
    expect(APP_SITES.gateway).toEqual([{ project: 'apps/dashboard', to: 'dist/dashboard' }]);
    const index = readFileSync(join(dir, 'index.html'), 'utf8');
    const script = /src="\/dashboard\/(assets\/[^"]+\.js)"/.exec(index)?.[1];
    expect(script).toBeDefined();
    expect(readFileSync(join(dir, script!), 'utf8')).toContain('sessionStorage');
    // React's production build: the development one warns in the console and is twice the size.
    expect(readFileSync(join(dir, script!), 'utf8')).not.toContain('Download the React DevTools');
    expect(readdirSync(join(dir, 'assets')).filter((f) => f.endsWith('.map'))).toEqual([]);
  });

  it.each(APPS_WITH_MAIN)(
    '%s: keeps only the runtime packages (pg, kafkajs, OpenTelemetry) and their dependencies, all production dependencies of the lock file',
    (app) => {
      const packages = results.get(app)!.packages;
      for (const name of RUNTIME_PACKAGES) expect(packages).toContain(name);
      expect(
        packages.filter((p) =>
          /pglite|sqlite|mysql|oracledb|tedious|esbuild|typescript|jest/.test(p),
        ),
      ).toEqual([]);
      for (const p of packages) {
        const entry = lock.packages[`node_modules/${p}`];
        expect([
          p,
          entry !== undefined,
          entry?.dev === true || entry?.devOptional === true,
        ]).toEqual([p, true, false]);
      }
    },
  );

  it.each(APPS_WITH_MAIN)(
    '%s: carries the Avro schemas where libs/contracts looks for them (<bundle dir>/../schemas)',
    (app) => {
      const out = results.get(app)!.outDir;
      expect(files(join(out, 'schemas'))).toEqual(files(SCHEMAS_SOURCE));
      expect(existsSync(join(out, 'dist', 'main.js'))).toBe(true);
    },
  );

  it("the vault's rewrap command (src/rewrap.main.ts) is bundled beside its main, to run in a vault pod", () => {
    expect(existsSync(join(results.get('vault')!.outDir, 'dist', 'rewrap.main.js'))).toBe(true);
    const run = spawnSync(process.execPath, ['dist/rewrap.main.js'], {
      cwd: results.get('vault')!.outDir,
      env: { PATH: process.env.PATH ?? '' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(run.stderr).toMatch(/VAULT_KEK is required/);
  });

  it.each(APPS_WITH_MAIN)(
    '%s: loads in plain Node from its directory alone and stops on missing configuration with a clear message',
    (app) => {
      const out = results.get(app)!.outDir;
      const run = spawnSync(process.execPath, ['--enable-source-maps', 'dist/main.js'], {
        cwd: out,
        env: { PATH: process.env.PATH ?? '' },
        encoding: 'utf8',
        timeout: 20_000,
      });
      expect(run.stderr).toMatch(/is required/);
      expect(run.stderr).not.toMatch(/Cannot find module|MODULE_NOT_FOUND/);
      expect(run.status).toBe(1);
    },
  );
});
