// What every command shares: argument parsing (node:util parseArgs, strict), the test key, base URL and
// admin token resolved from flags then the config file, and printing (JSON by default, or a short table).
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { Gateway } from '@pgw/sdk';
import { AdminClient } from './admin';
import { configPath, DEFAULT_BASE_URL, readConfig, type Config } from './config';
import { renderTable } from './table';

/** A mistake in the command line: printed with the command's usage, exit code 1. */
export class UsageError extends Error {}

export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
  env: NodeJS.ProcessEnv;
}

export interface Command {
  /** One line for `pgw --help`. */
  summary: string;
  /** The whole `pgw <command> --help`. */
  usage: string;
  run: (argv: string[], io: Io) => Promise<void>;
}

type Options = NonNullable<ParseArgsConfig['options']>;

/** Flags that each take one text value (ids, amounts, pages), by name. */
export function stringFlags<const N extends string>(...names: N[]): Record<N, { type: 'string' }> {
  return Object.fromEntries(names.map((name) => [name, { type: 'string' }])) as Record<
    N,
    { type: 'string' }
  >;
}

/** The flags every command that calls the gateway takes. */
export const CONNECTION_OPTIONS = {
  'api-key': { type: 'string' },
  'base-url': { type: 'string' },
  format: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies Options;

export const ADMIN_OPTIONS = {
  ...CONNECTION_OPTIONS,
  'admin-token': { type: 'string' },
  tenant: { type: 'string' },
} as const satisfies Options;

export const CONNECTION_HELP = `Connection (each defaults to the config file that pgw login writes):
  --api-key sk_test_…     a test secret key
  --base-url URL          the gateway (default ${DEFAULT_BASE_URL})
  --format json|table     output (default json)
  -h, --help              this help`;

export const ADMIN_HELP = `${CONNECTION_HELP}
  --admin-token TOKEN     the operator token (ADMIN_TOKEN, printed by npm start)
  --tenant ten_…          the tenant of the key (printed by npm start as "Demo tenant")`;

/** parseArgs in strict mode: an unknown flag or a missing value is a UsageError, not a stack trace. */
export function parse<O extends Options>(argv: string[], options: O, positionalsMax: number) {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  if (parsed.positionals.length > positionalsMax)
    throw new UsageError(`unexpected argument: ${parsed.positionals[positionalsMax]}`);
  return parsed;
}

export function loadConfig(io: Io): Config {
  return readConfig(configPath(io.env));
}

/** A live key moves real money: the sandbox CLI refuses it everywhere, not only at login. */
export function assertTestKey(apiKey: string): void {
  if (apiKey.startsWith('sk_live_'))
    throw new UsageError(
      'pgw works with test keys only (sk_test_…); a live key (sk_live_…) is refused',
    );
  if (!apiKey.startsWith('sk_test_')) throw new UsageError('an API key starts with sk_test_');
}

interface ConnectionValues {
  'api-key'?: string | undefined;
  'base-url'?: string | undefined;
}

export function baseUrlOf(values: ConnectionValues, config: Config): string {
  return values['base-url'] ?? config.base_url ?? DEFAULT_BASE_URL;
}

export function gatewayOf(values: ConnectionValues, io: Io): Gateway {
  const config = loadConfig(io);
  const apiKey = values['api-key'] ?? config.api_key;
  if (apiKey === undefined)
    throw new UsageError('no API key: run pgw login, or pass --api-key sk_test_…');
  assertTestKey(apiKey);
  return new Gateway({ apiKey, baseUrl: baseUrlOf(values, config) });
}

export function adminOf(
  values: ConnectionValues & { 'admin-token'?: string | undefined },
  io: Io,
): AdminClient {
  const config = loadConfig(io);
  const token = values['admin-token'] ?? config.admin_token;
  if (token === undefined)
    throw new UsageError(
      'no admin token: pass --admin-token (the ADMIN_TOKEN npm start prints), or save it with pgw login --admin-token',
    );
  return new AdminClient(baseUrlOf(values, config), token);
}

export function tenantOf(values: { tenant?: string | undefined }, io: Io): string {
  const tenant = values.tenant ?? loadConfig(io).tenant_id;
  if (tenant === undefined)
    throw new UsageError(
      'no tenant: pass --tenant ten_… (npm start prints it as "Demo tenant"), or save it with pgw login --tenant',
    );
  return tenant;
}

export type Format = 'json' | 'table';

export function formatOf(values: { format?: string | undefined }): Format {
  const format = values.format ?? 'json';
  if (format !== 'json' && format !== 'table')
    throw new UsageError(`--format is json or table, not ${format}`);
  return format;
}

export function print(io: Io, value: unknown, format: Format): void {
  io.out(format === 'json' ? `${JSON.stringify(value, null, 2)}\n` : renderTable(value));
}

/** A positive integer flag (cents, installments, milliseconds). */
export function integerFlag(name: string, value: string | undefined, fallback?: number): number {
  if (value === undefined) {
    if (fallback === undefined) throw new UsageError(`--${name} is required`);
    return fallback;
  }
  if (!/^[0-9]+$/.test(value) || Number(value) < 1 || !Number.isSafeInteger(Number(value)))
    throw new UsageError(`--${name} must be a positive integer, not ${value}`);
  return Number(value);
}

/** The one required positional (an id): named in the error when it is missing. */
export function positional(positionals: string[], index: number, name: string): string {
  const value = positionals[index];
  if (value === undefined) throw new UsageError(`missing ${name}`);
  return value;
}

/**
 * A command's arguments parsed (`parse`), with what its actions do with them: the required positionals,
 * the SDK client the flags or the config file name, and printing in the chosen `--format`. Nothing is
 * read or checked before it is asked for, so each action keeps the order of its own checks.
 */
export function invocation<O extends typeof CONNECTION_OPTIONS & Options>(
  argv: string[],
  io: Io,
  options: O,
  positionalsMax: number,
) {
  const { values, positionals } = parse(argv, options, positionalsMax);
  // The connection flags are among `options` (the constraint), so these are among the values.
  const connection = values as ConnectionValues & { format?: string | undefined };
  return {
    values,
    /** The positional at `index`, required: `name` says what was missing. */
    arg: (index: number, name: string) => positional(positionals, index, name),
    gateway: () => gatewayOf(connection, io),
    /** `--format`, checked (json when not given). */
    format: () => formatOf(connection),
    /** Prints `value` in `format` (by default `--format`, checked now). */
    print: (value: unknown, format: Format = formatOf(connection)) => print(io, value, format),
  };
}
