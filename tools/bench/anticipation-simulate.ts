// npx tsx tools/bench/anticipation-simulate.ts [--quick] [--receivables N] [--runs N]
// The anticipation service alone, in this process, on the embedded database (PGlite) and the in-process
// bus: one seller with 10,000 eligible receivables, fed through the service's own consumer (Avro events,
// inbox, upsert) as receivables would feed it; then the p95 of POST /api/v1/anticipations/simulate over
// all of them, through the service's routes as the gateway forwards them. Target: p95 under 50 ms.
// A benchmark, not a test: it prints, and fails only when the answer is wrong.
/* eslint-disable @nx/enforce-module-boundaries -- a benchmark drives the service itself, as the all-in-one does */
import { performance } from 'node:perf_hooks';
import { loadavg } from 'node:os';
import { anticipationService } from '@pgw/anticipation';
import {
  encodeEvent,
  EVENT_TOPICS,
  newEnvelope,
  type EventMap,
  type EventType,
} from '@pgw/contracts';
import {
  HEADER_EVENT_ID,
  HEADER_EVENT_TYPE,
  InProcessBus,
  type BusMessage,
} from '@pgw/platform-bus';
import { createPgliteKnex, sharedDb } from '@pgw/platform-db';
import {
  generatePrincipalKeys,
  PRINCIPAL_HEADER,
  requestBinding,
  signPrincipal,
} from '@pgw/platform-http';
import { InjectPeers, ManualClock, startService } from '@pgw/platform-service';
import { numberArg, toolArgs } from './args';
/* eslint-enable @nx/enforce-module-boundaries */

/** The bench plays the gateway: it signs with the private key, the service holds the public key. */
const KEYS = generatePrincipalKeys();
const SIMULATE = requestBinding('POST', '/api/v1/anticipations/simulate');
const TENANT = 'ten_bench';
const SELLER = 'seller_bench';
const NOW = new Date('2026-03-02T12:00:00.000Z');
const BATCH = 500;

function message<K extends EventType>(
  type: K,
  key: string,
  body: Omit<EventMap[K], 'envelope'>,
  livemode: boolean | null,
): BusMessage {
  const envelope = newEnvelope(type, {
    producer: type.split('.')[0] ?? 'bench',
    tenantId: TENANT,
    livemode,
  });
  const event = { envelope, ...body } as EventMap[K];
  return {
    topic: EVENT_TOPICS[type],
    key,
    value: encodeEvent(type, event),
    headers: { [HEADER_EVENT_ID]: envelope.event_id, [HEADER_EVENT_TYPE]: type },
  };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

async function main(): Promise<void> {
  const positiveInteger = (n: number) => Number.isSafeInteger(n) && n >= 1;
  const { receivables, runs } = toolArgs(
    'npx tsx tools/bench/anticipation-simulate.ts [--quick] [--receivables N] [--runs N]',
    { quick: { type: 'boolean' }, receivables: { type: 'string' }, runs: { type: 'string' } },
    ({ values }) => ({
      receivables: numberArg('receivables', values.receivables, 10_000, positiveInteger),
      runs: numberArg('runs', values.runs, values.quick === true ? 20 : 50, positiveInteger),
    }),
  );
  const knex = createPgliteKnex(null);
  const bus = new InProcessBus();
  const clock = new ManualClock(NOW);
  const db = sharedDb(knex, 'anticipation');
  const service = await startService(anticipationService, {
    db,
    bus,
    clock,
    principalPublicKey: KEYS.publicKey,
    peers: new InjectPeers(),
    env: {},
    log: { level: 'silent' },
  });
  try {
    const seedStart = performance.now();
    await bus.publish([
      message(
        'gateway.tenant-changed.v1',
        TENANT,
        {
          tenant_id: TENANT,
          name: 'Bench',
          treasury_available_cash_cents: 10_000_000_000,
          version: 1,
        },
        null,
      ),
      message(
        'gateway.seller-changed.v1',
        TENANT,
        {
          seller_id: SELLER,
          tenant_id: TENANT,
          name: 'Bench seller',
          kyc_status: 'approved',
          anticipation_limit_cents: 10_000_000_000,
          fee_bps_per_month: 199,
          settlement_delay_days: 30,
          mdr_bps: { credit_card: 299 },
          pricing_plan_id: null,
          version: 1,
        },
        null,
      ),
    ]);
    // Installments of 12x charges, due D+30 to D+360: a busy seller's pending schedule.
    for (let start = 0; start < receivables; start += BATCH) {
      const batch: BusMessage[] = [];
      for (let i = start; i < Math.min(receivables, start + BATCH); i++) {
        const gross = 1_000 + ((i * 7_919) % 99_000);
        const fee = Math.floor((gross * 299 + 5_000) / 10_000);
        const installment = (i % 12) + 1;
        const due = new Date(NOW.getTime() + 30 * installment * 86_400_000)
          .toISOString()
          .slice(0, 10);
        batch.push(
          message(
            'receivables.receivable-changed.v1',
            SELLER,
            {
              receivable: {
                receivable_id: `recv_bench${i}`,
                seller_id: SELLER,
                charge_id: `ch_bench${Math.floor(i / 12)}`,
                payment_method: 'credit_card',
                installment,
                installments: 12,
                gross_amount_cents: gross,
                fee_amount_cents: fee,
                net_amount_cents: gross - fee,
                mdr_bps: 299,
                debited_gross_cents: 0,
                due_date: due,
                original_due_date: due,
                status: 'pending',
                anticipation_id: null,
                settlement_id: null,
                created_at: NOW.getTime(),
                updated_at: NOW.getTime(),
                version: 1,
              },
              previous_status: null,
              reason: 'created',
            },
            false,
          ),
        );
      }
      await bus.publish(batch);
    }
    const seedMs = performance.now() - seedStart;

    const principal = () =>
      signPrincipal(
        {
          kind: 'api_key',
          tenantId: TENANT,
          sellerId: SELLER,
          keyId: 'key_bench',
          permissions: ['anticipations:read'],
          livemode: false,
          requestId: 'req_bench',
          expiresAtMs: Date.now() + 60_000,
        },
        SIMULATE,
        KEYS.privateKey,
      );
    const simulate = async (body?: unknown) => {
      const started = performance.now();
      const res = await service.app.inject({
        method: 'POST',
        url: '/api/v1/anticipations/simulate',
        headers: {
          [PRINCIPAL_HEADER]: principal(),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
      });
      const ms = performance.now() - started;
      if (res.statusCode !== 200)
        throw new Error(`simulate answered ${res.statusCode}: ${res.body.slice(0, 300)}`);
      return { ms, res };
    };
    type Answer = {
      eligible_receivable_count: number;
      gross_amount_cents: number;
      fee_amount_cents: number;
      net_amount_cents: number;
      items: Array<{
        gross_amount_cents: number;
        fee_amount_cents: number;
        net_amount_cents: number;
      }>;
    };

    // The answer must be right before its speed means anything (checked once: parsing it is the client's time).
    const first = await simulate();
    const body = first.res.json() as Answer;
    const bytes = first.res.rawPayload.length;
    const sum = (k: 'gross_amount_cents' | 'fee_amount_cents' | 'net_amount_cents') =>
      body.items.reduce((s, i) => s + i[k], 0);
    if (body.eligible_receivable_count !== receivables || body.items.length !== receivables)
      throw new Error(`expected ${receivables} eligible, got ${body.eligible_receivable_count}`);
    if (
      sum('gross_amount_cents') !== body.gross_amount_cents ||
      sum('fee_amount_cents') !== body.fee_amount_cents ||
      sum('net_amount_cents') !== body.net_amount_cents
    ) {
      throw new Error('totals are not the sums of the items');
    }

    for (let i = 0; i < 5; i++) await simulate(); // warm-up: JIT, caches
    const all: number[] = [];
    for (let i = 0; i < runs; i++) all.push((await simulate()).ms);
    const ids = Array.from(
      { length: 100 },
      (_, i) => `recv_bench${i * Math.floor(receivables / 100)}`,
    );
    const named: number[] = [];
    for (let i = 0; i < runs; i++) named.push((await simulate({ receivable_ids: ids })).ms);
    all.sort((a, b) => a - b);
    if (process.env.BENCH_ALL) process.stdout.write(`${all.map((x) => x.toFixed(0)).join(' ')}\n`);
    named.sort((a, b) => a - b);
    const f = (x: number) => x.toFixed(1);

    process.stdout.write(
      [
        `anticipation simulate, all eligible: p95 ${f(percentile(all, 95))} ms (target < 50 ms) over ${runs} runs of ${receivables} receivables`,
        `  p50 ${f(percentile(all, 50))} ms, max ${f(all[all.length - 1] ?? NaN)} ms, answer ${(bytes / 1024).toFixed(0)} KiB`,
        `anticipation simulate, 100 named receivables: p50 ${f(percentile(named, 50))} ms, p95 ${f(percentile(named, 95))} ms`,
        `seeded ${receivables} receivables through the consumer in ${(seedMs / 1000).toFixed(1)} s; load average ${loadavg()
          .map((x) => x.toFixed(2))
          .join(' ')}`,
        '',
      ].join('\n'),
    );
  } finally {
    await service.stop();
    await bus.close();
    await knex.destroy();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `anticipation-simulate failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
