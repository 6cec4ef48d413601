import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import * as catalog from './catalog';
import { METRIC_CATALOG, type MetricDefinition } from './catalog';
import { prometheusSeries, renderCatalog } from './render';

const ROOT = join(__dirname, '..', '..', '..', '..');
const INSTRUMENTS_FILE = 'libs/platform/metrics/src/instruments.ts';

/** The workspace's TypeScript sources that run in production: what can make or record a metric. */
function sources(): Array<{ path: string; text: string }> {
  const found: Array<{ path: string; text: string }> = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (
        entry.name.endsWith('.ts') &&
        !entry.name.endsWith('.spec.ts') &&
        !entry.name.endsWith('.d.ts')
      )
        found.push({ path: relative(ROOT, path), text: readFileSync(path, 'utf8') });
    }
  };
  for (const top of ['apps', 'libs', 'tools']) walk(join(ROOT, top));
  return found;
}

describe('the metric catalog', () => {
  it('is what docs/metrics.md says, word for word (npm run metrics:catalog rewrites it)', () => {
    // Proves the document the dashboards and alerts are written from cannot drift from the code.
    expect(readFileSync(join(ROOT, 'docs', 'metrics.md'), 'utf8')).toBe(renderCatalog());
  });

  it('is the only way the code makes an instrument: no createCounter & co. outside instruments.ts', () => {
    // Proves a metric in the code but not in the catalog fails CI.
    const making =
      /\.create(Counter|UpDownCounter|Histogram|Gauge|ObservableGauge|ObservableCounter|ObservableUpDownCounter)\s*[(<]/;
    const offenders = sources()
      .filter((s) => s.path !== INSTRUMENTS_FILE && making.test(s.text))
      .map((s) => s.path);
    expect(offenders).toEqual([]);
  });

  it('lists only metrics the code records: each definition of ours is used outside the catalog', () => {
    // Proves a metric in the catalog but recorded nowhere fails CI (the end-to-end run proves it is emitted).
    const outside = sources().filter((s) => !s.path.startsWith('libs/platform/metrics/'));
    const definitions = Object.entries(catalog).filter(
      ([, value]) =>
        typeof value === 'object' && value !== null && 'name' in value && 'kind' in value,
    ) as Array<[string, MetricDefinition<string, string>]>;
    expect(definitions.map(([, d]) => d).sort((a, b) => a.name.localeCompare(b.name))).toEqual(
      [...METRIC_CATALOG].sort((a, b) => a.name.localeCompare(b.name)),
    );
    const unused = definitions
      .filter(([, d]) => !d.meter.startsWith('@opentelemetry/'))
      .filter(([constant]) => !outside.some((s) => new RegExp(`\\b${constant}\\b`).test(s.text)))
      .map(([constant]) => constant);
    expect(unused).toEqual([]);
  });

  it('names each metric once, without its unit, and measures durations in seconds', () => {
    const names = METRIC_CATALOG.map((m) => m.name);
    expect(new Set(names).size).toBe(names.length);
    for (const metric of METRIC_CATALOG) {
      expect([
        metric.name,
        /(_|\.)(ms|s|seconds|millis|bytes|count|total)$/.test(metric.name),
      ]).toEqual([metric.name, false]);
      expect([metric.name, /^(s|1|By|\{[a-z_]+\})$/.test(metric.unit)]).toEqual([
        metric.name,
        true,
      ]);
      if (/duration|lag$/.test(metric.name) && metric.kind === 'histogram')
        expect([metric.name, metric.unit]).toEqual([metric.name, 's']);
      expect(Object.keys(metric.attributes).length).toBeGreaterThan(0);
    }
  });

  it("gives each metric the series names the collector's Prometheus translation makes of it", () => {
    expect(prometheusSeries(catalog.OUTBOX_LAG)).toEqual([
      'outbox_lag_seconds_bucket',
      'outbox_lag_seconds_sum',
      'outbox_lag_seconds_count',
    ]);
    expect(prometheusSeries(catalog.HTTP_SERVER_REQUEST_DURATION)[0]).toBe(
      'http_server_request_duration_seconds_bucket',
    );
    expect(prometheusSeries(catalog.MESSAGING_CLIENT_SENT_MESSAGES)).toEqual([
      'messaging_client_sent_messages_total',
    ]);
    expect(prometheusSeries(catalog.CONSUMER_LAG)).toEqual(['consumer_lag']);
    expect(prometheusSeries(catalog.CONSUMER_DEAD_LETTERS)).toEqual([
      'consumer_dead_letters_total',
    ]);
    expect(prometheusSeries({ name: 'pool.usage', kind: 'gauge', unit: '1' })).toEqual([
      'pool_usage_ratio',
    ]);
  });
});
