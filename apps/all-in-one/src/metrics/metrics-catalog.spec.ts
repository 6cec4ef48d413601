import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { METRIC_CATALOG, type MetricDefinition } from '@pgw/platform-metrics';
import type { FlowMetric } from './metrics-flow.run';

const ROOT = join(__dirname, '..', '..', '..', '..');
/** The SDK's DataPointType of each kind of instrument. */
const DATA_POINT_TYPE: Record<MetricDefinition['kind'], number> = {
  histogram: 0,
  gauge: 2,
  observable_gauge: 2,
  counter: 3,
};

describe('every metric of docs/metrics.md, emitted by an end-to-end run of the all-in-one', () => {
  let emitted: FlowMetric[];

  beforeAll(() => {
    // A process of its own, so that OpenTelemetry patches http and fastify before they load, as each app's
    // instrument.ts does in production.
    const run = spawnSync(
      process.execPath,
      [join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(__dirname, 'metrics-flow.ts')],
      {
        cwd: ROOT,
        env: process.env,
        encoding: 'utf8',
        timeout: 240_000,
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    const line = run.stdout.split('\n').find((l) => l.startsWith('METRICS_FLOW_RESULT '));
    if (run.status !== 0 || line === undefined)
      throw new Error(`metrics flow failed (${String(run.status)}):\n${run.stderr.slice(-4000)}`);
    emitted = JSON.parse(line.slice('METRICS_FLOW_RESULT '.length)) as FlowMetric[];
  }, 300_000);

  it('emits each catalog metric: a card charge, a refund, a Pix paid, an anticipation, webhooks, an overload, a parked event, a failed relay round, a broken invariant', () => {
    // Proves the catalog lists nothing the services do not record.
    const names = new Set(emitted.map((m) => m.name));
    expect(METRIC_CATALOG.map((m) => m.name).filter((name) => !names.has(name))).toEqual([]);
  });

  it('emits nothing the catalog does not list', () => {
    // Proves a metric recorded by the code or an instrumentation cannot go undocumented.
    const listed = new Set(METRIC_CATALOG.map((m) => m.name));
    expect(emitted.map((m) => m.name).filter((name) => !listed.has(name))).toEqual([]);
  });

  it.each(METRIC_CATALOG.map((m) => [m.name, m] as const))(
    '%s: its unit, instrument and scope, and on every data point the attribute keys of the catalog',
    (_name, definition) => {
      const metric = emitted.find((m) => m.name === definition.name);
      expect(metric).toBeDefined();
      expect({ unit: metric!.unit, dataPointType: metric!.dataPointType }).toEqual({
        unit: definition.unit,
        dataPointType: DATA_POINT_TYPE[definition.kind],
      });
      expect([definition.meter, ...(definition.otherMeters ?? [])]).toContain(metric!.scope);
      const always = Object.keys(definition.attributes).sort();
      const allowed = new Set([...always, ...Object.keys(definition.conditionalAttributes ?? {})]);
      expect(metric!.attributes.length).toBeGreaterThan(0);
      for (const attributes of metric!.attributes) {
        const keys = Object.keys(attributes);
        expect({
          missing: always.filter((k) => !keys.includes(k)),
          unlisted: keys.filter((k) => !allowed.has(k)),
        }).toEqual({ missing: [], unlisted: [] });
      }
    },
  );

  it('records durations in seconds: the slow charge waited 500 ms for the acquirer and shows as about half a second', () => {
    // The unit in the metadata is only a label; the values prove it (milliseconds would read 500).
    const server = emitted.find((m) => m.name === 'http.server.request.duration')!;
    expect(server.maxValue).toBeGreaterThanOrEqual(0.45);
    expect(server.maxValue).toBeLessThan(10);
    for (const name of METRIC_CATALOG.filter((m) => m.kind === 'histogram' && m.unit === 's').map(
      (m) => m.name,
    )) {
      // No wait of the run comes near a minute, in seconds.
      expect([name, emitted.find((m) => m.name === name)!.maxValue < 60]).toEqual([name, true]);
    }
  });

  it('adds up the business figures of the run: one sale of R$ 300.00 and a Pix of R$ 25.00 paid, R$ 10.00 refunded, one Visa approved and one declined, one anticipation', () => {
    // Proves the values, not only their labels: the dashboards' volumes and approval rate come from these.
    const points = (name: string) => {
      const metric = emitted.find((m) => m.name === name)!;
      return metric.attributes.map((attributes, i) => ({ attributes, value: metric.values[i] }));
    };
    const sum = (name: string, match: Record<string, unknown>) =>
      points(name)
        .filter((p) => Object.entries(match).every(([k, v]) => p.attributes[k] === v))
        .reduce((total, p) => total + (p.value ?? 0), 0);
    expect(sum('charges.paid.amount', { payment_method: 'credit_card', livemode: 'false' })).toBe(
      30_000,
    );
    expect(sum('charges.paid.amount', { payment_method: 'pix' })).toBe(2_500);
    expect(sum('charges.refunds.amount', { payment_method: 'credit_card' })).toBe(1_000);
    expect(sum('charges.refunds', { status: 'succeeded' })).toBe(1);
    // The Mastercard charge the acquirer did not answer in time is pending: no authorization outcome yet.
    expect(
      points('charges.authorizations')
        .map((p) => [p.attributes['card.brand'], p.attributes.outcome, p.value])
        .sort(),
    ).toEqual([
      ['visa', 'approved', 1],
      ['visa', 'declined', 1],
    ]);
    expect(sum('charges.status_changes', { payment_method: 'pix', status: 'paid' })).toBe(1);
    expect(sum('anticipation.executions', {})).toBe(1);
    expect(sum('anticipation.gross.amount', {})).toBeGreaterThan(
      sum('anticipation.fee.amount', {}),
    );
    expect(sum('gateway.admission.rejected', { service: 'charges' })).toBe(1);
    expect(
      sum('webhook.delivery.attempts', { outcome: 'success', reason: 'http_2xx' }),
    ).toBeGreaterThan(0);
  });
});
