// The Prometheus Operator's objects of deploy/base/monitoring.yaml, checked without a cluster: their shape
// against the CRDs' fields (monitoring-crds.ts; kubernetes-models has no model for them), the
// ServiceMonitor scraping the port where the collector really serves the apps' metrics, the PrometheusRule
// carrying exactly the rule files that compose's Prometheus loads (and that promtool accepts), and the
// dashboards ConfigMap carrying exactly the dashboard files.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import {
  COLLECTOR_CONFIG_FILE,
  COLLECTOR_NAME,
  DASHBOARDS_CONFIG_MAP_NAME,
  DASHBOARDS_DIR,
  MONITORING_API_VERSION,
  PROMETHEUS_RULE_NAME,
  ROOT,
  RULES_DIR,
  type K8sObject,
} from './manifests';
import { monitoringErrors } from './monitoring-crds';
import { ENVIRONMENTS, render } from './overlays';
import type { Finding } from './validate';

type Obj = K8sObject & Record<string, any>;
/** The files of a directory of deploy/observability, read here apart from the generator that embeds them. */
const filesIn = (dir: string, suffix: string) =>
  readdirSync(dir)
    .filter((f) => f.endsWith(suffix))
    .sort()
    .map((f) => ({ name: f, text: readFileSync(join(dir, f), 'utf8') }));
const find = (objects: readonly Obj[], kind: string, name: string) =>
  objects.find((o) => o.kind === kind && o.metadata.name === name);
const promtoolRuns =
  spawnSync('promtool', ['--version']).status === 0 ||
  process.env['REQUIRE_PROMTOOL'] !== undefined;
const SKIPPED = promtoolRuns
  ? ''
  : ' — SKIPPED: promtool is not installed (apt-get install prometheus)';

describe.each(ENVIRONMENTS)('monitoring objects, %s overlay', (env) => {
  const objects = render(env) as Obj[];
  const serviceMonitor = find(objects, 'ServiceMonitor', COLLECTOR_NAME)!;
  const rule = find(objects, 'PrometheusRule', PROMETHEUS_RULE_NAME)!;
  const dashboards = find(objects, 'ConfigMap', DASHBOARDS_CONFIG_MAP_NAME)!;

  it("has a ServiceMonitor, a PrometheusRule and the dashboards ConfigMap, in the overlay's namespace, each of the right shape", () => {
    for (const o of [serviceMonitor, rule, dashboards])
      expect(o?.metadata.namespace).toBe(overlayNamespace(objects));
    expect([monitoringErrors(serviceMonitor), monitoringErrors(rule)]).toEqual([[], []]);
  });

  it("the ServiceMonitor selects the collector's Service, on the port of the collector's prometheus exporter, keeping the apps' job label", () => {
    // Proves Prometheus scrapes where the apps' metrics actually are: a wrong selector or port scrapes nothing, silently.
    const service = find(objects, 'Service', COLLECTOR_NAME)!;
    expect(
      Object.entries(serviceMonitor.spec.selector.matchLabels).every(
        ([k, v]) => service.metadata.labels?.[k] === v,
      ),
    ).toBe(true);
    const collector = parse(readFileSync(COLLECTOR_CONFIG_FILE, 'utf8')) as {
      exporters: { prometheus: { endpoint: string } };
    };
    const exporterPort = Number(collector.exporters.prometheus.endpoint.split(':').pop());
    const [endpoint] = serviceMonitor.spec.endpoints;
    expect(service.spec.ports.find((p: any) => p.name === endpoint.port)?.port).toBe(exporterPort);
    expect(endpoint.honorLabels).toBe(true);
    // The collector's pods accept Prometheus on that port (the NetworkPolicy of its ingress).
    const policy = objects.find(
      (o) =>
        o.kind === 'NetworkPolicy' &&
        o.spec.podSelector?.matchLabels?.['app.kubernetes.io/name'] === COLLECTOR_NAME,
    );
    expect(JSON.stringify(policy?.spec.ingress)).toContain(`"port":${exporterPort}`);
  });

  it('the PrometheusRule holds exactly the groups of deploy/observability/rules, each name once', () => {
    const groups = filesIn(RULES_DIR, '.rules.yaml').flatMap(
      (f) => (parse(f.text) as { groups: Array<{ name: string }> }).groups,
    );
    expect(groups.length).toBeGreaterThan(0);
    expect(rule.spec.groups).toEqual(groups);
    expect(new Set(groups.map((g) => g.name)).size).toBe(groups.length);
  });

  it("the dashboards ConfigMap holds exactly the dashboard files, labelled for Grafana's sidecar", () => {
    expect(dashboards.metadata.labels?.['grafana_dashboard']).toBe('1');
    const files = filesIn(DASHBOARDS_DIR, '.json');
    expect(files.length).toBeGreaterThan(0);
    expect(dashboards.data).toEqual(Object.fromEntries(files.map((f) => [f.name, f.text])));
    // kubectl apply keeps a copy in an annotation limited to 256 KiB: the dashboards must stay well under it.
    expect(JSON.stringify(dashboards).length).toBeLessThan(200 * 1024);
  });

  (promtoolRuns ? it : it.skip)(
    `promtool accepts the PrometheusRule's rules as rendered${SKIPPED}`,
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'pgw-prometheusrule-'));
      try {
        const file = join(dir, 'rendered.rules.yaml');
        writeFileSync(file, stringify({ groups: rule.spec.groups }));
        const r = spawnSync('promtool', ['check', 'rules', file], { encoding: 'utf8' });
        expect([r.status, `${r.stdout}${r.stderr}`]).toEqual([
          0,
          expect.stringContaining('SUCCESS'),
        ]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});

function overlayNamespace(objects: readonly Obj[]): string | undefined {
  return objects.find((o) => o.kind === 'Deployment')?.metadata.namespace;
}

describe('the monitoring.coreos.com shapes (monitoring-crds.ts)', () => {
  const valid = (render('prod') as Obj[]).filter((o) => o.apiVersion === MONITORING_API_VERSION);

  it('reject what the API server would drop or refuse: a misspelt field, a duration in words, a rule with no expr or both record and alert, a missing selector', () => {
    const [serviceMonitor, rule] = [
      valid.find((o) => o.kind === 'ServiceMonitor')!,
      valid.find((o) => o.kind === 'PrometheusRule')!,
    ];
    const copy = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;

    const misspelt = copy(serviceMonitor);
    misspelt.spec.endpoints[0].honourLabels = true;
    expect(monitoringErrors(misspelt)?.join(' ')).toMatch(/honourLabels/);

    const words = copy(serviceMonitor);
    words.spec.endpoints[0].interval = '15 seconds';
    expect(monitoringErrors(words)?.length).toBeGreaterThan(0);

    const noSelector = copy(serviceMonitor);
    delete noSelector.spec.selector;
    expect(monitoringErrors(noSelector)?.join(' ')).toMatch(/selector/);

    const noExpr = copy(rule);
    delete noExpr.spec.groups[0].rules[0].expr;
    expect(monitoringErrors(noExpr)?.join(' ')).toMatch(/expr/);

    const both = copy(rule);
    both.spec.groups[0].rules[0].record = 'x:y:z';
    expect(monitoringErrors(both)?.length).toBeGreaterThan(0);

    const badFor = copy(rule);
    badFor.spec.groups[0].rules[0].for = '10 minutes';
    expect(monitoringErrors(badFor)?.length).toBeGreaterThan(0);
  });

  it('validate.ts applies them to every monitoring.coreos.com object, and reports a kind it has no shape for', () => {
    const broken = [
      { ...valid[0], spec: { endpoints: 'every 15s' } },
      { apiVersion: MONITORING_API_VERSION, kind: 'Probe', metadata: { name: 'p' }, spec: {} },
    ];
    const result = spawnSync(
      process.execPath,
      [join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(__dirname, 'validate.ts'), '-'],
      { input: JSON.stringify(broken), encoding: 'utf8', cwd: ROOT, timeout: 60_000 },
    );
    expect(result.status).toBe(0);
    const findings = JSON.parse(result.stdout) as Finding[];
    expect(findings.map((f) => [f.object, f.errors.length > 0])).toEqual([
      ['ServiceMonitor/otel-collector', true],
      ['Probe/p', true],
    ]);
    expect(findings[1]?.errors.join(' ')).toMatch(/no schema/);
  });
});
