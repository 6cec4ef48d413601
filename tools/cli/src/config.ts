// The CLI's one file of state: the test key and where the gateway is, and for the operator commands
// (trigger, listen, logs) the admin token and tenant id that `npm start` prints. It holds secrets, so it
// is written readable by its owner only (0600, in a 0700 directory), and a key is never printed whole.
import {
  chmodSync,
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  writeSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

export interface Config {
  api_key?: string;
  base_url?: string;
  admin_token?: string;
  tenant_id?: string;
}

const FIELDS = ['api_key', 'base_url', 'admin_token', 'tenant_id'] as const;

/** The default of `npm start` (contract §1: PORT 8080). */
export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';

/** `$XDG_CONFIG_HOME/pgw/config.json`, or `~/.config/pgw/config.json`. */
export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  const base =
    env['XDG_CONFIG_HOME'] !== undefined && env['XDG_CONFIG_HOME'] !== ''
      ? env['XDG_CONFIG_HOME']
      : join(homedir(), '.config');
  return join(base, 'pgw', 'config.json');
}

export function readConfig(path: string): Config {
  if (!existsSync(path)) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    throw new Error(`${path} is not JSON: run pgw login again`);
  }
  if (typeof parsed !== 'object' || parsed === null)
    throw new Error(`${path} is not a JSON object: run pgw login again`);
  const config: Config = {};
  for (const field of FIELDS) {
    const value = (parsed as Record<string, unknown>)[field];
    if (typeof value === 'string') config[field] = value;
  }
  return config;
}

/**
 * Writes the whole file through a temporary one created 0600 and renamed over the old: no moment where
 * the secrets sit in a file others can read, nor a half-written file after a crash.
 */
export function writeConfig(path: string, config: Config): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  const fd = openSync(temporary, 'w', 0o600);
  try {
    writeSync(fd, `${JSON.stringify(config, null, 2)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  // The mode given to open is masked by the umask; this one is not.
  chmodSync(temporary, 0o600);
  renameSync(temporary, path);
}

/** `sk_test_…wxyz`: enough to tell keys apart, not enough to use one. */
export function maskSecret(secret: string): string {
  const prefix = /^(sk_test_|sk_live_|adm_)/.exec(secret)?.[1] ?? '';
  return `${prefix}…${secret.slice(-4)}`;
}
