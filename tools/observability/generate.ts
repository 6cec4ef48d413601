// `npx tsx tools/observability/generate.ts` writes the dashboards of dashboards.ts to
// deploy/observability/dashboards; `--check` writes nothing and exits 1 when a file differs (what the spec
// asserts too). Run `npx tsx tools/deploy/generate.ts` after it: the Kubernetes ConfigMap embeds them.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dashboardFiles } from './dashboards';
import { DASHBOARDS_DIR } from './rules';

/** Files under deploy/observability/dashboards that differ from the generator: missing, stale or extra. */
export function dashboardDrift(): string[] {
  const wanted = dashboardFiles();
  let actual: string[] = [];
  try {
    actual = readdirSync(DASHBOARDS_DIR);
  } catch {
    // No directory yet: every file is missing.
  }
  const names = new Set([...wanted.keys(), ...actual]);
  return [...names].filter((name) => !actual.includes(name) || wanted.get(name) !== readFileSync(join(DASHBOARDS_DIR, name), 'utf8')).sort();
}

function main(): void {
  if (process.argv.includes('--check')) {
    const differing = dashboardDrift();
    if (differing.length > 0) {
      process.stderr.write(`deploy/observability/dashboards is out of date; run npx tsx tools/observability/generate.ts\n  ${differing.join('\n  ')}\n`);
      process.exit(1);
    }
    return;
  }
  rmSync(DASHBOARDS_DIR, { recursive: true, force: true });
  mkdirSync(DASHBOARDS_DIR, { recursive: true });
  for (const [name, content] of dashboardFiles()) writeFileSync(join(DASHBOARDS_DIR, name), content);
  process.stdout.write(`wrote ${dashboardFiles().size} dashboards under deploy/observability/dashboards\n`);
}

if (require.main === module) main();
