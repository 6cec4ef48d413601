import { metrics } from '@opentelemetry/api';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import type { App } from '@pgw/platform-http';
import {
  bearer,
  createKey,
  createSeller,
  createTenant,
  startFixture,
  stopFixture,
  stubService,
  type Fixture,
} from '../testing/gateway-fixture';

describe("the gateway's calls to the services, as http.client.request.duration (http mode)", () => {
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 60_000 });
  const provider = new MeterProvider({ readers: [reader] });
  let f: Fixture;
  let charges: App;
  let chargesPort: number;
  let ledgerPort: number;

  beforeAll(async () => {
    metrics.setGlobalMeterProvider(provider);
    charges = await stubService('charges', []);
    const chargesUrl = await charges.listen({ port: 0, host: '127.0.0.1' });
    chargesPort = Number(new URL(chargesUrl).port);
    // Configured but down: nothing listens on its port.
    const down = await stubService('ledger');
    const downUrl = await down.listen({ port: 0, host: '127.0.0.1' });
    ledgerPort = Number(new URL(downUrl).port);
    await down.close();
    f = await startFixture({
      upstreams: { mode: 'http', baseUrls: { charges: chargesUrl, ledger: downUrl } },
    });
  });
  afterAll(async () => {
    await stopFixture(f);
    await charges.close();
    await provider.shutdown();
    metrics.disable();
  });

  it('times each forwarded request in seconds, with the status answered or why none came', async () => {
    // Proves the proxy's upstream calls are measured, which the HTTP instrumentation does not see (undici).
    const tenantId = await createTenant(f);
    const sellerId = await createSeller(f, tenantId, { kyc_status: 'approved' });
    const key = await createKey(f, {
      tenantId,
      sellerId,
      permissions: ['charges:read', 'balance:read'],
    });
    expect(
      (await f.app.inject({ url: '/api/v1/charges/ch_abc', headers: bearer(key.secret) }))
        .statusCode,
    ).toBe(200);
    expect(
      (await f.app.inject({ url: '/api/v1/balance', headers: bearer(key.secret) })).statusCode,
    ).toBe(503);

    await reader.forceFlush();
    const metric = exporter
      .getMetrics()
      .flatMap((rm) => rm.scopeMetrics.flatMap((sm) => sm.metrics))
      .find((m) => m.descriptor.name === 'http.client.request.duration');
    expect(metric?.descriptor.unit).toBe('s');
    const points = (metric?.dataPoints ?? []).map((p) => ({
      attributes: p.attributes,
      value: p.value as { count: number; max: number },
    }));
    expect(points.map((p) => p.attributes)).toEqual(
      expect.arrayContaining([
        {
          'http.request.method': 'GET',
          'server.address': '127.0.0.1',
          'server.port': chargesPort,
          'url.scheme': 'http',
          'http.response.status_code': 200,
        },
        {
          'http.request.method': 'GET',
          'server.address': '127.0.0.1',
          'server.port': ledgerPort,
          'url.scheme': 'http',
          'error.type': expect.any(String),
        },
      ]),
    );
    for (const p of points) {
      expect(p.value.count).toBe(1);
      expect(p.value.max).toBeLessThan(5);
    }
  });
});
