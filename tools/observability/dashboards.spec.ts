// The dashboards an SRE opens at 3 a.m., checked before they ship: the files are what the generator
// writes, Grafana can load them, every query reads a metric that docs/metrics.md promises (or a recording
// rule of deploy/observability/rules) and parses as PromQL, and every metric of the catalog is on a panel.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { DASHBOARDS } from './dashboards';
import { dashboardDrift } from './generate';
import { catalogPrometheusNames, metricNames } from './promql';
import { DASHBOARDS_DIR, isAlert, ruleFiles } from './rules';

interface Target {
  expr: string;
  datasource: { uid: string };
  exemplar: boolean;
}
interface Panel {
  id: number;
  type: string;
  title: string;
  gridPos: { x: number; y: number; w: number; h: number };
  datasource?: { type: string; uid: string };
  targets?: Target[];
}
interface Dashboard {
  uid: string;
  title: string;
  panels: Panel[];
  templating: { list: Array<{ name: string; type: string; query?: unknown }> };
}

const files = readdirSync(DASHBOARDS_DIR)
  .filter((f) => f.endsWith('.json'))
  .sort();
const dashboards = files.map((f) => ({
  file: f,
  json: JSON.parse(readFileSync(join(DASHBOARDS_DIR, f), 'utf8')) as Dashboard,
}));
const queries = dashboards.flatMap(({ json }) =>
  json.panels.flatMap((panel) =>
    (panel.targets ?? []).map((t) => ({ dashboard: json.uid, panel: panel.title, expr: t.expr })),
  ),
);
const catalog = catalogPrometheusNames();
const recorded = new Set(
  ruleFiles().flatMap((f) =>
    f.groups.flatMap((g) => g.rules.flatMap((r) => (isAlert(r) ? [] : [r.record]))),
  ),
);
/** Grafana's own variables, which any dashboard may use. */
const GRAFANA_VARIABLES = new Set(['__rate_interval', '__interval', '__range']);
const promtoolFound = spawnSync('promtool', ['--version'], { encoding: 'utf8' }).status === 0;
const promtoolRuns = promtoolFound || process.env['REQUIRE_PROMTOOL'] !== undefined;
const SKIPPED = promtoolRuns
  ? ''
  : ' — SKIPPED: promtool is not installed (apt-get install prometheus)';

describe('Grafana dashboards (deploy/observability/dashboards)', () => {
  it('are exactly what tools/observability/generate.ts writes (run it after editing dashboards.ts)', () => {
    expect(dashboardDrift()).toEqual([]);
  });

  it('are the five the runbook promises: the payment path, RED per service, Kafka and outbox, webhooks, business', () => {
    expect(dashboards.map(({ json }) => json.title).sort()).toEqual(
      [
        'Payment gateway / Business',
        'Payment gateway / Kafka and outbox',
        'Payment gateway / Payment path',
        'Payment gateway / Services (RED)',
        'Payment gateway / Webhooks',
      ].sort(),
    );
    expect(new Set(dashboards.map(({ json }) => json.uid)).size).toBe(dashboards.length);
    for (const { file, json } of dashboards) expect(file).toBe(`${json.uid}.json`);
  });

  it.each(files)(
    '%s: every panel queries the Prometheus of its `datasource` variable, and panels neither overlap nor leave the 24-column grid',
    (file) => {
      const json = dashboards.find((d) => d.file === file)!.json;
      expect(json.templating.list).toContainEqual(
        expect.objectContaining({ name: 'datasource', type: 'datasource', query: 'prometheus' }),
      );
      const cells = new Set<string>();
      for (const panel of json.panels) {
        const { x, y, w, h } = panel.gridPos;
        expect([panel.title, x >= 0 && w > 0 && x + w <= 24]).toEqual([panel.title, true]);
        for (let i = x; i < x + w; i++) {
          for (let j = y; j < y + h; j++) {
            expect([panel.title, cells.has(`${i},${j}`)]).toEqual([panel.title, false]);
            cells.add(`${i},${j}`);
          }
        }
        if (panel.type === 'row') continue;
        expect([panel.title, panel.datasource?.uid, (panel.targets ?? []).length > 0]).toEqual([
          panel.title,
          '${datasource}',
          true,
        ]);
        for (const target of panel.targets ?? [])
          expect(target.datasource.uid).toBe('${datasource}');
      }
      expect(new Set(json.panels.map((p) => p.id)).size).toBe(json.panels.length);
    },
  );

  it("every variable a query uses is defined by its dashboard (or is one of Grafana's own)", () => {
    for (const { json } of dashboards) {
      const defined = new Set([...json.templating.list.map((v) => v.name), ...GRAFANA_VARIABLES]);
      const used = json.panels.flatMap((p) =>
        (p.targets ?? []).flatMap((t) => [...t.expr.matchAll(/\$\{?(\w+)\}?/g)].map((m) => m[1]!)),
      );
      expect([json.uid, used.filter((v) => !defined.has(v))]).toEqual([json.uid, []]);
    }
  });

  it('every query reads only metrics of docs/metrics.md (Prometheus column) or recording rules of the shipped rules', () => {
    expect(catalog.size).toBeGreaterThan(0);
    const unknown = queries.flatMap((q) =>
      metricNames(q.expr)
        .filter((name) => !catalog.has(name) && !recorded.has(name))
        .map((name) => `${q.dashboard} / ${q.panel}: ${name}`),
    );
    expect(unknown).toEqual([]);
  });

  it('so does every rule: no alert waits on a metric nobody emits', () => {
    const unknown = ruleFiles().flatMap((f) =>
      f.groups.flatMap((g) =>
        g.rules.flatMap((r) =>
          metricNames(r.expr)
            .filter((name) => !catalog.has(name) && !recorded.has(name))
            .map((name) => `${f.file} ${isAlert(r) ? r.alert : r.record}: ${name}`),
        ),
      ),
    );
    expect(unknown).toEqual([]);
  });

  it('every metric of the catalog is on some panel', () => {
    // Proves nothing is emitted that no dashboard shows (histograms count by any of their series).
    const family = (name: string) => name.replace(/_(bucket|sum|count)$/, '');
    const shown = new Set(queries.flatMap((q) => metricNames(q.expr)).map(family));
    expect(
      [...new Set([...catalog].map(family))].filter((name) => !shown.has(name)).sort(),
    ).toEqual([]);
  });

  it('every latency panel shows its exemplars, asked by one query, the charge latency panel (the SLO one) among them', () => {
    // Proves the SRE can click from a slow bucket to a trace: Grafana queries exemplars only for a target with `exemplar: true`.
    const panels = dashboards.flatMap(({ json }) =>
      json.panels.filter((panel) => panel.type === 'timeseries'),
    );
    const latency = panels.filter((panel) =>
      (panel.targets ?? []).some((t) => t.expr.startsWith('histogram_quantile(')),
    );
    expect(latency.length).toBeGreaterThan(5);
    for (const panel of latency)
      expect([panel.title, (panel.targets ?? []).filter((t) => t.exemplar).length]).toEqual([
        panel.title,
        1,
      ]);
    for (const panel of panels.filter((p) => !latency.includes(p)))
      expect([panel.title, (panel.targets ?? []).some((t) => t.exemplar)]).toEqual([
        panel.title,
        false,
      ]);
    expect(latency.map((panel) => panel.title)).toContain('POST /api/v1/charges latency');
  });

  (promtoolRuns ? it : it.skip)(
    `every query parses as PromQL (promtool check rules, Grafana's variables given values)${SKIPPED}`,
    () => {
      const values: Record<string, string> = {
        __rate_interval: '5m',
        __interval: '1m',
        __range: '6h',
        service: 'charges',
        livemode: 'true',
      };
      const rules = queries.map((q, i) => ({
        record: `dashboard:query:${i}`,
        expr: q.expr.replace(/\$\{?(\w+)\}?/g, (_, name: string) => values[name] ?? `$${name}`),
      }));
      const dir = mkdtempSync(join(tmpdir(), 'pgw-dashboards-'));
      try {
        const file = join(dir, 'dashboards.rules.yaml');
        writeFileSync(file, stringify({ groups: [{ name: 'dashboard-queries', rules }] }));
        const r = spawnSync('promtool', ['check', 'rules', file], { encoding: 'utf8' });
        expect([r.status, `${r.stdout}${r.stderr}`]).toEqual([
          0,
          expect.stringContaining(`SUCCESS: ${rules.length} rules found`),
        ]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});

describe('metricNames: the metric names a PromQL expression reads', () => {
  it('finds selectors inside functions, aggregations and binary operations, and nothing else', () => {
    expect(
      metricNames(
        'histogram_quantile(0.99, sum by (le, http_route) (rate(http_server_request_duration_seconds_bucket{service_name="$service",le=~"1|1\\\\.0"}[$__rate_interval]))) / on(slo) group_left slo:error_budget:ratio > bool 1e3 offset 1h',
      ),
    ).toEqual(['http_server_request_duration_seconds_bucket', 'slo:error_budget:ratio']);
    expect(
      metricNames(
        'label_replace(sum by (service_name) (rate(a_total[5m])), "service", "$1", "service_name", "(.+)") unless b',
      ),
    ).toEqual(['a_total', 'b']);
  });

  it('so a misspelt metric in a query is caught against the catalog', () => {
    const names = metricNames('sum(rate(outbox_published{service="charges"}[5m]))');
    expect(names).toEqual(['outbox_published']);
    expect(catalog.has('outbox_published')).toBe(false);
    expect(catalog.has('outbox_published_total')).toBe(true);
  });

  it('the catalog reader takes the Prometheus column of every table, and only it', () => {
    const md = [
      '| metric | Prometheus | what |',
      '|---|---|---|',
      '| `a.b` | `a_b_total` | says `not_this` |',
      '',
      '| other | table |',
      '|---|---|',
      '| `x` | `y` |',
    ].join('\n');
    expect([...catalogPrometheusNames(md)]).toEqual(['a_b_total']);
  });
});

describe('the dashboards as data (dashboards.ts)', () => {
  it('name each panel and say what it shows', () => {
    for (const d of DASHBOARDS)
      for (const row of d.rows)
        for (const panel of row.panels)
          expect([d.uid, panel.title, panel.description.length > 20]).toEqual([
            d.uid,
            panel.title,
            true,
          ]);
  });
});
