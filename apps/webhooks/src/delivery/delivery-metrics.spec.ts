import { metrics } from '@opentelemetry/api';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
  type DataPoint,
} from '@opentelemetry/sdk-metrics';
import type { Knex } from 'knex';
import { createPgliteKnex } from '@pgw/platform-db';
import { waitFor } from '@pgw/testing';
import {
  newCharge,
  newTenant,
  publishCharge,
  publishEndpoint,
  Receiver,
  startWebhooks,
  type Harness,
} from '../testing/harness';

// The webhook metrics of docs/metrics.md, read back from the SDK as the collector would get them, after
// real deliveries to a real HTTP receiver.

describe('webhook delivery metrics', () => {
  let knex: Knex;
  let h: Harness;
  let receiver: Receiver;
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 60_000 });
  const provider = new MeterProvider({ readers: [reader] });

  beforeAll(async () => {
    metrics.setGlobalMeterProvider(provider);
    knex = createPgliteKnex(null);
    h = await startWebhooks(knex);
    receiver = await Receiver.start();
  });
  afterAll(async () => {
    await h.stop();
    await receiver.stop();
    await knex.destroy();
    await provider.shutdown();
    metrics.disable();
  });

  async function points(name: string): Promise<Array<DataPoint<unknown>>> {
    exporter.reset();
    await reader.forceFlush();
    const metric = exporter
      .getMetrics()
      .flatMap((rm) => rm.scopeMetrics.flatMap((sm) => sm.metrics))
      .find((m) => m.descriptor.name === name);
    return (metric?.dataPoints ?? []) as Array<DataPoint<unknown>>;
  }

  it('counts each attempt by endpoint, outcome and reason, and the delivery once it is delivered', async () => {
    // Proves the runbook's "failures by endpoint and reason": a 500, then a timeout, then a 204 at one endpoint.
    const tenantId = newTenant();
    const endpoint = await publishEndpoint(h.bus, { tenantId, url: receiver.url('/metered') });
    receiver.on('/metered', (i) =>
      i === 0 ? { status: 500 } : i === 1 ? 'hang' : { status: 204 },
    );
    await publishCharge(h.bus, 'charges.charge-paid.v1', { tenantId, chargeId: newCharge() });
    await waitFor(
      async () => ((await points('webhook.deliveries')).length > 0 ? true : undefined),
      10_000,
      'the delivery to end',
    );

    const attempts = (await points('webhook.delivery.attempts')).filter(
      (p) => p.attributes.endpoint === endpoint.id,
    );
    expect(
      attempts.map((p) => [p.attributes.outcome, p.attributes.reason, p.value]).sort(),
    ).toEqual([
      ['failure', 'http_5xx', 1],
      ['failure', 'timeout', 1],
      ['success', 'http_2xx', 1],
    ]);
    expect((await points('webhook.deliveries')).map((p) => [p.attributes, p.value])).toEqual([
      [{ outcome: 'delivered', reason: 'http_2xx' }, 1],
    ]);
    const durations = await points('webhook.delivery.duration');
    const failed = durations.find((p) => p.attributes.outcome === 'failure')!.value as {
      count: number;
      max: number;
    };
    // Seconds, not milliseconds: the timed-out attempt waited the 300 ms attempt timeout (FAST_ENV).
    expect(failed.count).toBe(2);
    expect(failed.max).toBeGreaterThanOrEqual(0.29);
    expect(failed.max).toBeLessThan(5);
  });
});
