// `npx tsx tools/deploy/generate.ts` writes deploy/base and deploy/overlays from tools/deploy/*.ts;
// `--check` writes nothing and exits 1 when a file differs (what the spec asserts too).
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { DEPLOY_DIR } from './manifests';
import { deployFiles } from './overlays';

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

function main(): void {
  if (process.argv.includes('--check')) {
    const differing = drift();
    if (differing.length > 0) {
      process.stderr.write(`deploy/ is out of date; run npx tsx tools/deploy/generate.ts\n  ${differing.join('\n  ')}\n`);
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
