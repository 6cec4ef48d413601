// `npx tsx tools/deploy/generate.ts` writes deploy/base and deploy/overlays from tools/deploy/*.ts;
// `--check` writes nothing and exits 1 when a file differs (what the spec asserts too).
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { DEPLOY_DIR } from './manifests';
import { deployFiles } from './overlays';
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';

/** Generated files on disk under deploy/base and deploy/overlays (relative to deploy/). */
export function filesOnDisk(): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    let entries: string[];
    try {
      entries = readdirSync(dir);
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
      else out.set(relative(DEPLOY_DIR, path), readFileSync(path, 'utf8'));
    }
  };
  walk(join(DEPLOY_DIR, 'base'));
  walk(join(DEPLOY_DIR, 'overlays'));
  return out;
}

/** Paths that differ between the generator and deploy/: missing, stale or extra. */
export function drift(): string[] {
  const wanted = deployFiles();
  const actual = filesOnDisk();
  const paths = new Set([...wanted.keys(), ...actual.keys()]);
  return [...paths].filter((p) => wanted.get(p) !== actual.get(p)).sort();
}

/**
 * node:util parseArgs, strict: an unknown flag stops the tool with its usage (exit 2), `--help` prints it.
 * (tools/bench/args.ts holds the same for the other tools; a project does not import another's files.)
 */
export function cliArgs<O extends ParseArgsOptionsConfig>(
  usage: string,
  options: O,
  positionals = false,
) {
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    process.stdout.write(`usage: ${usage}\n`);
    process.exit(0);
  }
  try {
    return parseArgs({
      args: process.argv.slice(2),
      options,
      strict: true,
      allowPositionals: positionals,
    });
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\nusage: ${usage}\n`);
    process.exit(2);
  }
}

function main(): void {
  const { check } = cliArgs('npx tsx tools/deploy/generate.ts [--check]', {
    check: { type: 'boolean' },
  }).values;
  if (check === true) {
    const differing = drift();
    if (differing.length > 0) {
      process.stderr.write(
        `deploy/ is out of date; run npx tsx tools/deploy/generate.ts\n  ${differing.join('\n  ')}\n`,
      );
      process.exit(1);
    }
    return;
  }
  rmSync(join(DEPLOY_DIR, 'base'), { recursive: true, force: true });
  rmSync(join(DEPLOY_DIR, 'overlays'), { recursive: true, force: true });
  for (const [path, content] of deployFiles()) {
    const full = join(DEPLOY_DIR, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, content);
  }
  process.stdout.write(`wrote ${deployFiles().size} files under deploy/\n`);
}

if (require.main === module) main();
