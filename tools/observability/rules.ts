// The Prometheus rule files shipped in deploy/observability/rules: read once here for the specs and for the
// PrometheusRule that tools/deploy embeds them in, so that compose and Kubernetes load the same rules.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

export const OBSERVABILITY_DIR = join(__dirname, '..', '..', 'deploy', 'observability');
export const RULES_DIR = join(OBSERVABILITY_DIR, 'rules');
export const DASHBOARDS_DIR = join(OBSERVABILITY_DIR, 'dashboards');
/**
 * Where every alert's runbook_url points: docs/runbook.md as the repository's web view renders it, one
 * heading per alert. The host is a placeholder, like the Ingress host: set it to your repository's.
 */
export const RUNBOOK_URL = 'https://git.pgw.example.com/payment-gateway/blob/main/docs/runbook.md';

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
    .map((file) => ({ file, groups: (parse(readFileSync(join(RULES_DIR, file), 'utf8')) as { groups: RuleGroup[] }).groups }));
}
