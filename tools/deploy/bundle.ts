// One app → one directory that runs with `node dist/main.js` and nothing else of the workspace: the app
// and the libraries it imports bundled by esbuild, the Avro schemas beside the bundle, and in node_modules
// only the packages that must stay packages. The Dockerfile's build stage runs it:
//   node node_modules/tsx/dist/cli.mjs tools/deploy/bundle.ts <app> <out-dir>
// It imports nothing of the workspace (the image build copies this file alone).
import { execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { build } from 'esbuild';
import { parseArgs } from 'node:util';

const ROOT = join(__dirname, '..', '..');

/**
 * Never loaded in the distributed mode, left out of the bundle: knex's other dialects' drivers, pg's native
 * binding, PGlite (the all-in-one's embedded database, required lazily by @pgw/platform-db), and ssh2's
 * optional native bindings.
 */
export const UNUSED_EXTERNALS = [
  'pg-native',
  'sqlite3',
  'better-sqlite3',
  'mysql',
  'mysql2',
  'mariadb',
  'mariadb/*',
  'oracledb',
  'tedious',
  'pg-query-stream',
  'knex-pglite',
  '@electric-sql/pglite',
  '@electric-sql/pglite/*',
  // ssh2's (the CNAB 240 SFTP drop folder) optional native helpers, each required inside a try with a
  // pure-JavaScript fallback; the image installs no build scripts, so they are absent there anyway.
  'cpu-features',
  '*.node',
];

/**
 * Kept as real packages in node_modules: OpenTelemetry instruments pg by patching `require('pg')`
 * (require-in-the-middle); inlined in the bundle it would run untraced. kafkajs is no longer instrumented (the
 * bus makes Kafka's spans itself) and stays a package as before.
 */
// pg and kafkajs stay packages (above); the OpenTelemetry SDK
// itself does not survive bundling (its ESM build calls createRequire(import.meta.url)), and @opentelemetry/api
// must be the one copy the SDK and the app share.
export const RUNTIME_PACKAGES = [
  'pg',
  'kafkajs',
  '@opentelemetry/api',
  '@opentelemetry/sdk-node',
  '@opentelemetry/sdk-trace',
  '@opentelemetry/sdk-metrics',
  '@opentelemetry/sdk-logs',
  // The OTLP exporters of each signal and protocol (libs/platform/telemetry exporters.ts): the gRPC ones
  // call createRequire(import.meta.url) too.
  '@opentelemetry/exporter-trace-otlp-grpc',
  '@opentelemetry/exporter-trace-otlp-http',
  '@opentelemetry/exporter-trace-otlp-proto',
  '@opentelemetry/exporter-metrics-otlp-grpc',
  '@opentelemetry/exporter-metrics-otlp-http',
  '@opentelemetry/exporter-metrics-otlp-proto',
  '@opentelemetry/exporter-logs-otlp-grpc',
  '@opentelemetry/exporter-logs-otlp-http',
  '@opentelemetry/exporter-logs-otlp-proto',
  // The exemplar exporter (libs/platform/telemetry exemplar-export.ts) builds on the exporters' own bases:
  // the gRPC one calls createRequire(import.meta.url) too.
  '@opentelemetry/otlp-exporter-base',
  '@opentelemetry/otlp-grpc-exporter-base',
  '@opentelemetry/otlp-transformer',
  '@opentelemetry/instrumentation-http',
  '@opentelemetry/instrumentation-pg',
  '@fastify/otel',
];

/**
 * Files an app serves as they are, copied from the installed packages to its bundle directory: the gateway's
 * API reference page runs Scalar's standalone script (apps/gateway/src/routes/docs.route.ts reads it beside
 * dist/main.js), and the package's other thousands of files stay out.
 */
export const APP_ASSETS: Readonly<Record<string, ReadonlyArray<{ from: string; to: string }>>> = {
  gateway: [
    {
      from: 'node_modules/@scalar/api-reference/dist/browser/standalone.js',
      to: 'dist/api-reference.js',
    },
  ],
};

/**
 * Single-page apps an app serves, built by Vite (a production dependency, as esbuild is) into its bundle
 * directory: the gateway serves the dashboard at /dashboard from dist/dashboard, beside dist/main.js, where
 * apps/gateway/src/routes/dashboard.route.ts looks first. The image's build stage copies apps/dashboard.
 */
export const APP_SITES: Readonly<Record<string, ReadonlyArray<{ project: string; to: string }>>> = {
  gateway: [{ project: 'apps/dashboard', to: 'dist/dashboard' }],
};

/** Where libs/contracts reads its schemas: `join(__dirname, '..', 'schemas')`, __dirname being the bundle's directory. */
export const SCHEMAS_SOURCE = join(ROOT, 'libs', 'contracts', 'schemas');

export interface BundleResult {
  outDir: string;
  entry: string;
  /** Workspace source files in the bundle (relative to the repository). */
  inputs: string[];
  /** node_modules packages copied beside the bundle (relative paths under node_modules). */
  packages: string[];
}

interface PackageJson {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

/** The directory of `name` as Node resolves it from `fromDir` (nested node_modules first). */
function packageDir(name: string, fromDir: string): string | null {
  let dir = fromDir;
  for (;;) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/** Copies the packages and everything they depend on (what npm installed of it), keeping node_modules' layout. */
function copyPackages(names: readonly string[], outDir: string): string[] {
  const copied = new Set<string>();
  const visit = (name: string, fromDir: string, optional: boolean) => {
    const dir = packageDir(name, fromDir);
    if (dir === null) {
      if (optional) return;
      throw new Error(`${name} is not installed (needed from ${relative(ROOT, fromDir) || '.'})`);
    }
    const rel = relative(ROOT, dir);
    if (copied.has(rel)) return;
    copied.add(rel);
    // Its own nested node_modules are copied below, dependency by dependency, only where needed.
    cpSync(dir, join(outDir, rel), {
      recursive: true,
      dereference: true,
      filter: (src) => !relative(dir, src).split('/').includes('node_modules'),
    });
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as PackageJson;
    for (const dep of Object.keys(pkg.dependencies ?? {})) visit(dep, dir, false);
    for (const dep of Object.keys(pkg.optionalDependencies ?? {})) visit(dep, dir, true);
  };
  for (const name of names) visit(name, ROOT, false);
  return [...copied].map((p) => p.replace(/^node_modules\//, '')).sort();
}

/** Bundles one app into outDir: dist/main.js (+ map), schemas/, node_modules/, package.json. */
export async function bundleApp(app: string, outDir: string): Promise<BundleResult> {
  const [result] = await bundleApps([app], (a) => (a === app ? outDir : join(outDir, a)));
  return result as BundleResult;
}

/**
 * Bundles several apps in one esbuild run (the libraries are parsed once), each into its own directory:
 * `outDirOf(app)`. Each output is complete by itself: nothing is shared between the apps' directories.
 */
export async function bundleApps(
  apps: readonly string[],
  outDirOf: (app: string) => string,
): Promise<BundleResult[]> {
  const entries = new Map<string, string>();
  for (const app of apps) {
    const entry = join(ROOT, 'apps', app, 'src', 'main.ts');
    if (!existsSync(entry)) throw new Error(`apps/${app}/src/main.ts does not exist`);
    const outDir = outDirOf(app);
    rmSync(outDir, { recursive: true, force: true });
    mkdirSync(join(outDir, 'dist'), { recursive: true });
    entries.set(app, entry);
  }
  // Besides main.ts, an app's one-off commands (`src/<name>.main.ts`, e.g. the vault's rewrap after a KEK
  // rotation) are bundled as dist/<name>.main.js, so they run in the app's own pod with its environment.
  const outputs = new Map<string, string>();
  const entryPoints: Array<{ in: string; out: string }> = [];
  for (const app of apps) {
    const src = join(ROOT, 'apps', app, 'src');
    for (const file of [
      'main.ts',
      ...readdirSync(src)
        .filter((f) => f.endsWith('.main.ts'))
        .sort(),
    ]) {
      const out = join(outDirOf(app), 'dist', file.replace(/\.ts$/, ''));
      entryPoints.push({ in: join(src, file), out });
      outputs.set(`${out}.js`, app);
    }
  }
  const result = await build({
    entryPoints,
    outdir: '/',
    bundle: true,
    platform: 'node',
    target: 'node24',
    format: 'cjs',
    tsconfig: join(ROOT, 'tsconfig.base.json'),
    external: [...UNUSED_EXTERNALS, ...RUNTIME_PACKAGES],
    sourcemap: 'linked',
    sourcesContent: false,
    keepNames: true,
    metafile: true,
    logLevel: 'error',
    absWorkingDir: ROOT,
  });
  const inputsOf = new Map<string, string[]>();
  for (const [output, meta] of Object.entries(result.metafile.outputs)) {
    const app = outputs.get(join(ROOT, output));
    if (app !== undefined)
      inputsOf.set(
        app,
        workspaceInputs([...(inputsOf.get(app) ?? []), ...Object.keys(meta.inputs)]),
      );
  }
  return apps.map((app) => {
    const outDir = outDirOf(app);
    cpSync(SCHEMAS_SOURCE, join(outDir, 'schemas'), { recursive: true });
    const packages = copyPackages(RUNTIME_PACKAGES, outDir);
    for (const asset of APP_ASSETS[app] ?? [])
      cpSync(join(ROOT, asset.from), join(outDir, asset.to));
    for (const site of APP_SITES[app] ?? []) {
      execFileSync(
        process.execPath,
        [
          join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'),
          'build',
          join(ROOT, site.project),
          '--outDir',
          join(outDir, site.to),
          '--emptyOutDir',
        ],
        {
          stdio: 'pipe',
          // Vite honours a NODE_ENV already set (jest's `test`): the image always ships React's production build.
          env: { ...process.env, NODE_ENV: 'production' },
        },
      );
    }
    writeFileSync(
      join(outDir, 'package.json'),
      `${JSON.stringify({ name: `pgw-${app}`, private: true, type: 'commonjs', main: 'dist/main.js' }, null, 2)}\n`,
    );
    const inputs = inputsOf.get(app);
    if (inputs === undefined) throw new Error(`esbuild wrote no bundle for ${app}`);
    return { outDir, entry: relative(ROOT, entries.get(app) as string), inputs, packages };
  });
}

function workspaceInputs(inputs: string[]): string[] {
  return [...new Set(inputs.filter((p) => !p.includes('node_modules/')))].sort();
}

async function main(): Promise<void> {
  // node:util parseArgs, strict, written out here rather than imported: the Dockerfile copies
  // this file alone into its build stage.
  const usage = 'usage: npx tsx tools/deploy/bundle.ts <app> <out-dir>';
  let positionals: string[];
  try {
    ({ positionals } = parseArgs({
      args: process.argv.slice(2),
      options: { help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: true,
    }));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${usage}\n`);
    process.exit(2);
  }
  const [app, out] = positionals;
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    process.stdout.write(`${usage}\n`);
    process.exit(0);
  }
  if (app === undefined || out === undefined || positionals.length > 2) {
    process.stderr.write(`${usage}\n`);
    process.exit(2);
  }
  const result = await bundleApp(app, out);
  process.stdout.write(
    `${app}: ${result.inputs.length} workspace files bundled; packages kept: ${result.packages.join(', ')}\n`,
  );
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(
      `bundle failed: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  });
}
