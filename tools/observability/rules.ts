// The Prometheus rule files shipped in deploy/observability/rules: read once here for the specs and for the
// PrometheusRule that tools/deploy embeds them in, so that compose and Kubernetes load the same rules.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

export const OBSERVABILITY_DIR = join(__dirname, '..', '..', 'deploy', 'observability');
export const RULES_DIR = join(OBSERVABILITY_DIR, 'rules');
export const DASHBOARDS_DIR = join(OBSERVABILITY_DIR, 'dashboards');
/** The promtool unit tests of the rule files, which expect every annotation, runbook_url included. */
export const RULE_TESTS_DIR = __dirname;

/**
 * Every alert's runbook_url is `<runbook>#<its section>`, one heading per alert in docs/runbook.md. The
 * runbook is by default the repository's own file, as a path: true wherever the repository is, and the
 * repository's web address is the deployer's to give. `npx tsx tools/observability/generate.ts
 * --runbook-url https://<git host>/<repo>/blob/main/docs/runbook.md` (or RUNBOOK_URL=…) writes that address
 * into every rule file and its tests, so that each alert links to its section; the files then keep it.
 */
export const RUNBOOK_URL_DEFAULT = 'docs/runbook.md';

const RUNBOOK_LINK = /^(\s*runbook_url:\s*)(\S+)#([\w-]+)[ \t]*$/gm;

/** Why `url` cannot be the runbook's address, or undefined when it can: the default path or an http(s) URL. */
export function runbookUrlProblem(url: string): string | undefined {
  if (url === RUNBOOK_URL_DEFAULT) return undefined;
  if (!/^https?:\/\/[^\s/#?]+\/\S*$/.test(url))
    return `the runbook URL must be ${RUNBOOK_URL_DEFAULT} or an http(s) URL with a path: ${url}`;
  if (/[#\s]/.test(url))
    return `the runbook URL must hold no '#' (each alert adds its own): ${url}`;
  return undefined;
}

/** The runbook of each runbook_url in a file's text (the part before `#`), in order. */
export function runbookLinks(text: string): Array<{ runbook: string; section: string }> {
  return [...text.matchAll(RUNBOOK_LINK)].map((m) => ({ runbook: m[2]!, section: m[3]! }));
}

/** The text with every runbook_url pointing into `runbook`, each at the section it named. */
export function withRunbook(text: string, runbook: string): string {
  return text.replace(RUNBOOK_LINK, (_line, key: string, _old: string, section: string) => {
    return `${key}${runbook}#${section}`;
  });
}

/** The files that hold runbook links: the rule files and their promtool tests. */
export function runbookLinkFiles(): string[] {
  return [
    ...readdirSync(RULES_DIR)
      .filter((f) => f.endsWith('.rules.yaml'))
      .map((f) => join(RULES_DIR, f)),
    ...readdirSync(RULE_TESTS_DIR)
      .filter((f) => f.endsWith('.rules.test.yaml'))
      .map((f) => join(RULE_TESTS_DIR, f)),
  ].sort();
}

/** The runbook every alert links to: the one the files share (an error when they disagree). */
export function runbookUrl(): string {
  const runbooks = new Set(
    runbookLinkFiles().flatMap((f) => runbookLinks(readFileSync(f, 'utf8')).map((l) => l.runbook)),
  );
  if (runbooks.size !== 1)
    throw new Error(
      `the rule files link to ${runbooks.size} runbooks: ${[...runbooks].join(', ')}`,
    );
  return [...runbooks][0]!;
}

export interface RecordingRule {
  record: string;
  expr: string;
  labels?: Record<string, string>;
}
export interface AlertingRule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
export type Rule = RecordingRule | AlertingRule;
export interface RuleGroup {
  name: string;
  interval?: string;
  rules: Rule[];
}
export interface RuleFile {
  /** File name under deploy/observability/rules. */
  file: string;
  groups: RuleGroup[];
}

export const isAlert = (rule: Rule): rule is AlertingRule => 'alert' in rule;

/** Every `*.rules.yaml` of deploy/observability/rules, in name order. */
export function ruleFiles(): RuleFile[] {
  return readdirSync(RULES_DIR)
    .filter((f) => f.endsWith('.rules.yaml'))
    .sort()
    .map((file) => ({
      file,
      groups: (parse(readFileSync(join(RULES_DIR, file), 'utf8')) as { groups: RuleGroup[] })
        .groups,
    }));
}
