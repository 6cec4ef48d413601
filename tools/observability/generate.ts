// `npx tsx tools/observability/generate.ts` writes the dashboards of dashboards.ts to
// deploy/observability/dashboards; `--check` writes nothing and exits 1 when a file differs (what the spec
// asserts too). `--runbook-url <url>` (or RUNBOOK_URL) first points every alert's runbook_url into that
// runbook, in the rule files and their tests (rules.ts, RUNBOOK_URL_DEFAULT); without it they keep theirs.
// Run `npx tsx tools/deploy/generate.ts` after it: the Kubernetes ConfigMap and PrometheusRule embed them.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dashboardFiles } from './dashboards';
import { DASHBOARDS_DIR, runbookLinkFiles, runbookUrlProblem, withRunbook } from './rules';
import { toolArgs, UsageError } from '../bench/args';

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
  return [...names]
    .filter(
      (name) =>
        !actual.includes(name) ||
        wanted.get(name) !== readFileSync(join(DASHBOARDS_DIR, name), 'utf8'),
    )
    .sort();
}

/** Points every runbook_url of the rule files and their tests into `runbook`; the files it changed. */
export function setRunbook(runbook: string, files: string[] = runbookLinkFiles()): string[] {
  const problem = runbookUrlProblem(runbook);
  if (problem !== undefined) throw new UsageError(problem);
  return files.filter((file) => {
    const text = readFileSync(file, 'utf8');
    const linked = withRunbook(text, runbook);
    if (linked !== text) writeFileSync(file, linked);
    return linked !== text;
  });
}

function main(): void {
  const { check, runbook } = toolArgs(
    'npx tsx tools/observability/generate.ts [--check] [--runbook-url <url>]',
    { check: { type: 'boolean' }, 'runbook-url': { type: 'string' } },
    ({ values }) => {
      const check = values.check === true;
      if (check && values['runbook-url'] !== undefined)
        throw new UsageError('--check writes nothing: give --runbook-url without it');
      const runbook = check ? undefined : (values['runbook-url'] ?? process.env['RUNBOOK_URL']);
      const problem = runbook === undefined ? undefined : runbookUrlProblem(runbook);
      if (problem !== undefined) throw new UsageError(problem);
      return { check, runbook };
    },
  );
  if (runbook !== undefined) {
    const changed = setRunbook(runbook);
    process.stdout.write(`runbook ${runbook}: ${changed.length} files changed\n`);
  }
  if (check) {
    const differing = dashboardDrift();
    if (differing.length > 0) {
      process.stderr.write(
        `deploy/observability/dashboards is out of date; run npx tsx tools/observability/generate.ts\n  ${differing.join('\n  ')}\n`,
      );
      process.exit(1);
    }
    return;
  }
  rmSync(DASHBOARDS_DIR, { recursive: true, force: true });
  mkdirSync(DASHBOARDS_DIR, { recursive: true });
  for (const [name, content] of dashboardFiles())
    writeFileSync(join(DASHBOARDS_DIR, name), content);
  process.stdout.write(
    `wrote ${dashboardFiles().size} dashboards under deploy/observability/dashboards\n`,
  );
}

if (require.main === module) main();
