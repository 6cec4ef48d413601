// The metric names a PromQL expression reads, and the names docs/metrics.md promises: what the
// dashboards and rules spec compares, so that a panel or an alert on a metric nobody emits fails CI rather
// than showing "No data" at 3 a.m.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const METRICS_CATALOG = join(__dirname, '..', '..', 'docs', 'metrics.md');

/** Words of PromQL that look like metric names: operators, modifiers and the special floats. */
const KEYWORDS = new Set([
  'and',
  'or',
  'unless',
  'bool',
  'offset',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'inf',
  'nan',
  'atan2',
]);

/**
 * The metric names an expression selects: what is left once strings, label matchers, range and
 * subquery brackets, grouping label lists, Grafana variables ($service, ${datasource}) and function calls
 * are set aside. Enough for the expressions written here (no `{__name__=…}` selectors); not a parser.
 */
export function metricNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, ' ')
    .replace(/\{[^{}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\$\{?\w+\}?/g, ' ');
  const names = new Set<string>();
  for (const match of stripped.matchAll(/(?<![\w.:$])[a-zA-Z_:][\w:]*(?![\w:])(?!\s*\()/g)) {
    if (!KEYWORDS.has(match[0].toLowerCase())) names.add(match[0]);
  }
  return [...names].sort();
}

/** The Prometheus names of docs/metrics.md: every backticked name in the "Prometheus" column of its tables. */
export function catalogPrometheusNames(
  markdown: string = readFileSync(METRICS_CATALOG, 'utf8'),
): Set<string> {
  const names = new Set<string>();
  let column = -1;
  for (const line of markdown.split('\n')) {
    if (!line.startsWith('|')) {
      column = -1;
      continue;
    }
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
    if (column === -1) {
      column = cells.findIndex((c) => c.toLowerCase() === 'prometheus');
      continue;
    }
    for (const name of (cells[column] ?? '').matchAll(/`([a-zA-Z_:][\w:]*)`/g)) names.add(name[1]!);
  }
  return names;
}
