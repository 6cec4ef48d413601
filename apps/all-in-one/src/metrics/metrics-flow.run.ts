import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type {
  InMemoryMetricExporter,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { frameWire, TOPICS } from '@pgw/contracts';
import { assert } from '@pgw/domain';
import { enqueue } from '@pgw/platform-bus';
import type { Db } from '@pgw/platform-db';
import { METRIC_CATALOG } from '@pgw/platform-metrics';
import { reportBrokenInvariants } from '@pgw/platform-service';
import type { ServiceDefinition } from '@pgw/platform-service';
import { waitFor } from '@pgw/testing';
import { startAllInOne } from '../all-in-one';
import { BUYER, client, type Answer, type Target } from '../e2e.scenarios';
import { SERVICES } from '../services';

export interface FlowMetric {
  name: string;
  unit: string;
  /** The SDK's DataPointType: 0 histogram, 2 gauge, 3 sum. */
  dataPointType: number;
  scope: string;
  attributes: Array<Record<string, unknown>>;
  /** Each data point's value, beside its attributes: a sum's or gauge's value, a histogram's count. */
  values: number[];
  /** The largest value recorded: a histogram's max, a sum's or gauge's value. */
  maxValue: number;
}

/** How long the run waits for what the events carry, and for the last metrics to be recorded. */
const WAIT_MS = 30_000;

function expectStatus(answer: Answer, status: number, what: string): Answer['body'] {
  if (answer.status !== status)
    throw new Error(
      `${what}: expected ${status}, got ${answer.status} ${JSON.stringify(answer.body)}`,
    );
  return answer.body;
}

/** A producer of the receivables topic deployed ahead of its consumers, as in e2e-dead-letters.spec.ts. */
let aheadDb: Db | undefined;
const aheadProducer: ServiceDefinition = {
  name: 'ahead',
  migrations: [],
  build: async (_app, context) => {
    aheadDb = context.db;
    return {};
  },
};

function collected(exporter: InMemoryMetricExporter): FlowMetric[] {
  const byName = new Map<string, FlowMetric>();
  for (const metric of exporter
    .getMetrics()
    .flatMap((rm) =>
      rm.scopeMetrics.flatMap((sm) => sm.metrics.map((m) => ({ m, scope: sm.scope.name }))),
    )) {
    const { m, scope } = metric;
    const entry = byName.get(m.descriptor.name) ?? {
      name: m.descriptor.name,
      unit: m.descriptor.unit,
      dataPointType: m.dataPointType,
      scope,
      attributes: [],
      values: [],
      maxValue: -Infinity,
    };
    for (const point of m.dataPoints as Array<{
      attributes: Record<string, unknown>;
      value: unknown;
    }>) {
      entry.attributes.push({ ...point.attributes });
      const histogram =
        typeof point.value === 'number' ? null : (point.value as { count: number; max?: number });
      entry.values.push(histogram === null ? (point.value as number) : histogram.count);
      entry.maxValue = Math.max(
        entry.maxValue,
        histogram === null ? (point.value as number) : (histogram.max ?? -Infinity),
      );
    }
    byName.set(m.descriptor.name, entry);
  }
  return [...byName.values()];
}

/**
 * The all-in-one with an in-memory metric reader, driven through the gateway over HTTP as an integrator and an
 * operator would: a card charge and its refund, a refused card, a Pix paid, an anticipation, webhook
 * deliveries, an overloaded service, an event parked, a relay round that fails and a broken invariant. Returns every metric the
 * SDK holds once each of the catalog's has been recorded (or the wait is over; the spec says which are missing).
 */
export async function runFlow(
  reader: PeriodicExportingMetricReader,
  exporter: InMemoryMetricExporter,
): Promise<FlowMetric[]> {
  const hooks: string[] = [];
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      hooks.push(req.url ?? '');
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const system = await startAllInOne({
    dataDir: null,
    port: 0,
    demo: true,
    log: { level: 'silent' },
    services: [...SERVICES, aheadProducer],
    // One request at a time per service, so that a second one meets admission control (503) while a slow
    // charge holds the slot; the acquirer's timeout fault answers in 500 ms.
    env: {
      ...process.env,
      UPSTREAM_IN_FLIGHT_MAX: '1',
      ACQUIRER_TIMEOUT_MS: '500',
      ACQUIRER_SIM_TIMEOUT_DELAY_MS: '1500',
      CHARGES_RECOVERY_INTERVAL_MS: '0',
    },
  });
  try {
    if (system.demo === null) throw new Error('the demo was not provisioned');
    const target: Target = {
      url: system.url,
      adminToken: system.adminToken,
      tenantId: system.demo.tenantId,
      apiKey: system.demo.apiKey,
    };
    const { call, admin } = client(target);
    const tokenize = async (number: string) =>
      expectStatus(
        await call('POST', '/api/v1/payment-methods/tokenize', {
          body: {
            card: {
              number,
              exp_month: 12,
              exp_year: 2031,
              cvv: '123',
              holder_name: 'MARIA OLIVEIRA',
            },
          },
        }),
        201,
        'tokenize',
      ).id as string;
    const charge = async (body: Record<string, unknown>) =>
      expectStatus(
        await call('POST', '/api/v1/charges', { body: { buyer: BUYER, ...body } }),
        201,
        'charge',
      );

    const port = (receiver.address() as AddressInfo).port;
    expectStatus(
      await admin('POST', `/admin/v1/tenants/${target.tenantId}/webhook-endpoints`, {
        url: `http://127.0.0.1:${port}/hooks`,
        events: ['*'],
      }),
      201,
      'webhook endpoint',
    );

    // A card sale in 3 installments (receivables to anticipate), refunded in part; a card the issuer declines.
    const paid = await charge({
      amount: 30_000,
      payment_method: 'CREDIT_CARD',
      installments: 3,
      card_token: await tokenize('4111 1111 1111 1111'),
    });
    if (paid.status !== 'paid') throw new Error(`card charge: ${JSON.stringify(paid)}`);
    expectStatus(
      await call('POST', `/api/v1/charges/${paid.id}/refund`, {
        body: { amount_cents: 1_000, reason: 'damaged item' },
      }),
      201,
      'refund',
    );
    const declined = await charge({
      amount: 1_000,
      payment_method: 'CREDIT_CARD',
      installments: 1,
      card_token: await tokenize('4000 0000 0000 0002'),
    });
    if (declined.status !== 'refused')
      throw new Error(`declined card: ${JSON.stringify(declined)}`);

    // A Pix, paid at the simulated PSP.
    const pix = await charge({ amount: 2_500, payment_method: 'PIX', pix: { expires_in: 3_600 } });
    expectStatus(
      await admin('POST', `/admin/v1/simulations/charges/${pix.id}/pay`),
      200,
      'Pix paid',
    );

    // An anticipation of what the sale left to receive.
    await waitFor(
      async () => {
        const res = await call('POST', '/api/v1/anticipations/simulate');
        return res.status === 200 && res.body.eligible_receivable_count > 0 ? true : undefined;
      },
      WAIT_MS,
      'receivables eligible for anticipation',
    );
    expectStatus(
      await call('POST', '/api/v1/anticipations', {
        headers: { 'idempotency-key': `metrics-${Date.now()}` },
      }),
      201,
      'anticipation',
    );

    // Overload: while a charge waits on a slow acquirer, the next request to charges is refused at the gateway.
    const slowToken = await tokenize('5555 5555 5555 4444');
    expectStatus(
      await admin('POST', '/admin/v1/simulations/provider', { mode: 'timeout' }),
      200,
      'provider timeout mode',
    );
    try {
      const slow = call('POST', '/api/v1/charges', {
        body: {
          buyer: BUYER,
          amount: 3_333,
          payment_method: 'CREDIT_CARD',
          installments: 1,
          card_token: slowToken,
        },
      });
      await new Promise((resolve) => setTimeout(resolve, 150));
      expectStatus(
        await call('GET', `/api/v1/charges/${paid.id}`),
        503,
        'a request over the admission bound',
      );
      expectStatus(await slow, 201, 'the slow charge');
    } finally {
      expectStatus(
        await admin('POST', '/admin/v1/simulations/provider', { mode: 'normal' }),
        200,
        'provider normal mode',
      );
    }

    // An event of a version the ledger does not know: parked.
    const db = aheadDb!;
    // As a producer of a later build would write them, straight into receivables' outbox.
    const publishAhead = (eventId: string, payload: Buffer) =>
      db.tx((trx) =>
        enqueue(db, trx, [
          {
            topic: TOPICS.receivables,
            key: system.demo!.sellerId,
            eventId,
            eventType: 'receivables.balance-moved.v99',
            payload,
          },
        ]),
      );
    await publishAhead(
      'evt_from_the_future',
      frameWire(9_999, Buffer.from('a body this build cannot read')),
    );
    await waitFor(
      async () => {
        const list = await admin('GET', '/admin/v1/services/ledger/dead-letters?status=parked');
        return list.body?.data?.some(
          (d: { event_id: string }) => d.event_id === 'evt_from_the_future',
        )
          ? true
          : undefined;
      },
      WAIT_MS,
      'the ledger to park the unknown event',
    );
    // And one that cannot even be published (no schema, not framed): the producer's relay rounds fail.
    await publishAhead('evt_unpublishable', Buffer.from('plain'));

    // A broken invariant, reported as main.ts reports them (no request can break one on purpose).
    const stopReporting = reportBrokenInvariants('all-in-one', { error: () => undefined });
    try {
      assert(false, 'metrics-flow.provoked', { charge_id: paid.id });
    } catch {
      // The InvariantError itself is the point: counted before it was thrown.
    } finally {
      stopReporting();
    }

    await waitFor(() => (hooks.length > 0 ? true : undefined), WAIT_MS, 'a webhook delivery');
    const wanted = new Set(METRIC_CATALOG.map((m) => m.name));
    let metrics: FlowMetric[] = [];
    await waitFor(
      async () => {
        exporter.reset();
        await reader.forceFlush();
        metrics = collected(exporter);
        return [...wanted].every((name) => metrics.some((m) => m.name === name)) ? true : undefined;
      },
      WAIT_MS,
      'every catalog metric',
    ).catch(() => undefined); // Not an error here: the spec names each catalog metric that never came.
    return metrics;
  } finally {
    await system.stop();
    await new Promise((resolve) => receiver.close(resolve));
  }
}
