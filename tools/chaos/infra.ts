// A private PostgreSQL and Kafka broker, on ports of their own and in a directory of their own, so that
// stopping and restarting them never touches the shared ones (5432, 9092) the other runs use: the fault
// run's (thrown away after it) and `npm run start:distributed`'s (kept in its DATA_DIR).
import { execFile } from 'node:child_process';
import {
  chownSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { waitFor } from '@pgw/testing';
import { ROOT } from '../bench/cluster';

const run = promisify(execFile);

async function sh(
  file: string,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  try {
    const { stdout, stderr } = await run(file, args, { env, maxBuffer: 16 * 1024 * 1024 });
    return `${stdout}${stderr}`;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(
      `${file} ${args.join(' ')}: ${e.message}\n${e.stdout ?? ''}${e.stderr ?? ''}`.slice(0, 4000),
    );
  }
}

export interface PrivatePostgres {
  adminUrl: string;
  /** `immediate` is the crash (no checkpoint, recovery on start); `fast` a clean stop. */
  restart(mode: 'immediate' | 'fast'): Promise<number>;
  /** Stops the server (default `immediate`: the fault run throws its data away). */
  stop(mode?: 'immediate' | 'fast'): Promise<void>;
}

/** The newest PostgreSQL's binaries under /usr/lib/postgresql (Debian's layout), else those on PATH. */
function bin(name: string): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => /^\d+$/.test(v))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  return versions.length === 0 ? name : join(root, versions[0] as string, 'bin', name);
}

/**
 * initdb + pg_ctl in dir/pg, listening on 127.0.0.1:port only; as the postgres user when run as root
 * (PostgreSQL refuses root), else as the caller. `keepData` starts the cluster already in dir/pg, if any.
 */
export async function startPostgres(
  dir: string,
  port: number,
  options: { keepData?: boolean } = {},
): Promise<PrivatePostgres> {
  const data = join(dir, 'pg');
  const socketDir = join(dir, 'pg-socket');
  const initialise = options.keepData !== true || !existsSync(join(data, 'PG_VERSION'));
  mkdirSync(data, { recursive: true, mode: 0o700 });
  mkdirSync(socketDir, { recursive: true });
  const asRoot = process.getuid?.() === 0;
  const own = async (path: string) => {
    if (!asRoot) return;
    chownSync(
      path,
      Number((await sh('id', ['-u', 'postgres'])).trim()),
      Number((await sh('id', ['-g', 'postgres'])).trim()),
    );
  };
  for (const d of [dir, data, socketDir]) await own(d);
  const asPostgres = (args: string[]) =>
    asRoot
      ? sh('runuser', ['-u', 'postgres', '--', ...args])
      : sh(args[0] as string, args.slice(1));
  if (initialise)
    await asPostgres([
      bin('initdb'),
      '-D',
      data,
      '-U',
      'postgres',
      '--auth=trust',
      '-E',
      'UTF8',
      '--no-instructions',
    ]);
  // Eight services with pools of ten, the checks and the load: more than the default 100 connections.
  writeFileSync(
    join(data, 'postgresql.auto.conf'),
    `listen_addresses = '127.0.0.1'\nport = ${port}\nunix_socket_directories = '${socketDir}'\nmax_connections = 300\n`,
  );
  await own(join(data, 'postgresql.auto.conf'));
  const log = join(dir, 'postgres.log');
  const pgCtl = (args: string[]) =>
    asPostgres([bin('pg_ctl'), '-D', data, '-l', log, '-w', '-t', '60', ...args]);
  await pgCtl(['start']);
  const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let stopped = false;
  return {
    adminUrl,
    async restart(mode) {
      const t0 = performance.now();
      await pgCtl(['restart', '-m', mode]);
      return performance.now() - t0;
    },
    async stop(mode = 'immediate') {
      if (stopped) return;
      stopped = true;
      await pgCtl(['stop', '-m', mode]).catch(() => undefined);
    },
  };
}

/** A server a tools/<name>/start and stop script runs: each call answers how long it took, in ms. */
export interface PrivateServer {
  start(keepData: boolean): Promise<number>;
  stop(): Promise<number>;
}

/** tools/<tool>/start and stop with `env`; `keepVariable` tells start whether to keep the data it finds. */
function scriptedServer(tool: string, env: NodeJS.ProcessEnv, keepVariable: string): PrivateServer {
  const script = (name: string) => join(ROOT, 'tools', tool, name);
  const timed = async (name: string, scriptEnv: NodeJS.ProcessEnv) => {
    const t0 = performance.now();
    await sh(script(name), [], scriptEnv);
    return performance.now() - t0;
  };
  return {
    start: (keepData) => timed('start', { ...env, [keepVariable]: keepData ? '1' : '0' }),
    stop: () => timed('stop', env),
  };
}

export interface PrivateKafka extends PrivateServer {
  brokers: string;
  /**
   * Pauses the running broker (SIGSTOP) and answers once every one of its threads is stopped. The kernel stops
   * a process's threads only after one of them has taken the signal: until then, on a busy host, its network
   * and request threads can still answer a request sent after kill() returned (CI, 29 Nov 2026).
   */
  pause(): Promise<void>;
  /** Lets the paused broker run on (SIGCONT). */
  resume(): void;
}

/**
 * Whether every thread of the process is stopped (state T in /proc/<pid>/task/<tid>/stat); a thread that
 * ended between the listing and the read counts as stopped.
 */
function allThreadsStopped(pid: number): boolean {
  const tasks = join('/proc', String(pid), 'task');
  return readdirSync(tasks).every((tid) => {
    let stat: string;
    try {
      stat = readFileSync(join(tasks, tid, 'stat'), 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ESRCH') return true;
      throw err;
    }
    return /^[Tt]$/.test(stat.charAt(stat.lastIndexOf(')') + 2));
  });
}

/** tools/kafka/start and stop on the given ports, with dir/kafka as the run directory. */
export function privateKafka(dir: string, port: number): PrivateKafka {
  const env = {
    ...process.env,
    KAFKA_PORT: String(port),
    KAFKA_CONTROLLER_PORT: String(port + 1),
    KAFKA_RUN_DIR: join(dir, 'kafka'),
  };
  const pid = () => Number(readFileSync(join(env.KAFKA_RUN_DIR, 'kafka.pid'), 'utf8').trim());
  return {
    brokers: `127.0.0.1:${port}`,
    async pause() {
      const broker = pid();
      process.kill(broker, 'SIGSTOP');
      try {
        await waitFor(
          () => (allThreadsStopped(broker) ? true : undefined),
          10_000,
          `every thread of broker ${broker} stopped after SIGSTOP`,
        );
      } catch (error) {
        process.kill(broker, 'SIGCONT');
        throw error;
      }
    },
    resume: () => process.kill(pid(), 'SIGCONT'),
    ...scriptedServer('kafka', env, 'KAFKA_KEEP_DATA'),
  };
}

export interface PrivateRegistry extends PrivateServer {
  /** The Confluent-compatible API, as SCHEMA_REGISTRY_URL. */
  url: string;
}

/**
 * tools/registry/start and stop on the given port (and the next, its management port), with dir/registry as
 * the run directory and file storage there: schema ids kept with keepData, as the broker keeps the messages
 * that carry them.
 */
export function privateRegistry(dir: string, port: number): PrivateRegistry {
  const env = {
    ...process.env,
    REGISTRY_PORT: String(port),
    REGISTRY_MANAGEMENT_PORT: String(port + 1),
    REGISTRY_RUN_DIR: join(dir, 'registry'),
    REGISTRY_STORAGE: 'file',
  };
  return {
    url: `http://127.0.0.1:${port}/apis/ccompat/v7`,
    ...scriptedServer('registry', env, 'REGISTRY_KEEP_DATA'),
  };
}

/** Reads with a short-lived client (the checks), so that a restarted server costs nothing to the next read. */
export async function query<T = Record<string, unknown>>(
  url: string,
  sql: string,
  params: unknown[] = [],
): Promise<T[]> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(sql, params)).rows as T[];
  } finally {
    await c.end();
  }
}
