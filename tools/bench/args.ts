// The command line of the repository's tools (bench, chaos, soak, images, observability): node:util
// parseArgs in strict mode, so an unknown flag, a flag without its value or a value given to a switch stops
// the tool with its usage instead of being ignored. `--help` prints the usage. tools/deploy, a project of
// its own, has the same few lines (`cliArgs` in generate.ts; bundle.ts inline, as the Dockerfile copies it
// alone); tools/cli, the integrators' sandbox CLI, has its own, answering in the CLI's error format.
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';

export class UsageError extends Error {}

export interface ToolArgs<V> {
  values: V;
  positionals: string[];
}

type Values<O extends ParseArgsOptionsConfig> = {
  [K in keyof O]: O[K]['type'] extends 'boolean' ? boolean | undefined : string | undefined;
};

/** Parses `argv` (without node and the script) strictly; throws UsageError with the usage on a mistake. */
export function parseToolArgs<O extends ParseArgsOptionsConfig>(
  usage: string,
  options: O,
  argv: readonly string[],
  { positionals = 0 }: { positionals?: number } = {},
): ToolArgs<Values<O>> | 'help' {
  if (argv.includes('--help') || argv.includes('-h')) return 'help';
  let parsed: { values: Record<string, unknown>; positionals: string[] };
  try {
    parsed = parseArgs({
      args: [...argv],
      options,
      strict: true,
      allowPositionals: positionals > 0,
    });
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\nusage: ${usage}`);
  }
  if (parsed.positionals.length > positionals)
    throw new UsageError(`too many arguments: ${parsed.positionals.join(' ')}\nusage: ${usage}`);
  return { values: parsed.values as Values<O>, positionals: parsed.positionals };
}

/**
 * For a tool's main: what `read` makes of the parsed arguments (it may throw UsageError too), or, on
 * `--help`, the usage on stdout and exit 0, and on a mistake the error and the usage on stderr and exit 2
 * (no stack trace).
 */
export function toolArgs<O extends ParseArgsOptionsConfig, T>(
  usage: string,
  options: O,
  read: (args: ToolArgs<Values<O>>) => T,
  { positionals = 0 }: { positionals?: number } = {},
): T {
  try {
    const parsed = parseToolArgs(usage, options, process.argv.slice(2), { positionals });
    if (parsed !== 'help') return read(parsed);
    process.stdout.write(`usage: ${usage}\n`);
    process.exit(0);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(
      `${error.message.includes('usage: ') ? error.message : `${error.message}\nusage: ${usage}`}\n`,
    );
    process.exit(2);
  }
}

/** The options of parseArgs for flags that take a value (`strings`) and switches (`booleans`). */
export function flags<const S extends string, const B extends string = never>(
  strings: readonly S[],
  booleans: readonly B[] = [],
): { [K in S]: { type: 'string' } } & { [K in B]: { type: 'boolean' } } {
  const options: Record<string, { type: 'string' | 'boolean' }> = {};
  for (const name of strings) options[name] = { type: 'string' };
  for (const name of booleans) options[name] = { type: 'boolean' };
  return options as { [K in S]: { type: 'string' } } & { [K in B]: { type: 'boolean' } };
}

/** A flag's value as a number, or `fallback` when it was not given; `check` says what is refused. */
export function numberArg(
  name: string,
  value: string | undefined,
  fallback: number,
  check: (n: number) => boolean = Number.isFinite,
): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (value.trim() === '' || !check(n))
    throw new UsageError(`--${name}: ${value} is not an accepted number`);
  return n;
}
