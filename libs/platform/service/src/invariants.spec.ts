// Issue 19 item 4: a broken invariant (@pgw/domain's `assert`) is logged and counted by the observer the platform
// installs, answers a request with the contract's 500, and stops a consumer's process instead of being parked.
import { metrics } from '@opentelemetry/api';
import {
  AggregationTemporality,
  MeterProvider,
  MetricReader,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import { assert } from '@pgw/domain';
import { enqueue, InProcessBus } from '@pgw/platform-bus';
import { createPgliteKnex, replaceHalt, sharedDb, type Db } from '@pgw/platform-db';
import { PRINCIPAL_HEADER, PRINCIPAL_TTL_MS, TestPrincipals } from '@pgw/platform-http';
import { waitFor } from '@pgw/testing';
import { systemClock } from './clock';
import { reportBrokenInvariants } from './invariants';
import { InjectPeers } from './peers';
import { startService, type ServiceDefinition } from './service';

class TestReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

const TOPIC = 'test.ledgers';
type Count = Array<{ count: string | number }>;
const PRINCIPALS = new TestPrincipals();

/** A service with one route and one consumer, each asserting that a ledger balances. */
const ledgerService: ServiceDefinition = {
  name: 'ledgers',
  migrations: [],
  build: async (app) => {
    app.get('/balance', async () => {
      assert(1 + 1 === 3, 'ledger.balances', { ledger_id: 'led_1', imbalance_cents: 1 });
      return { balanced: true };
    });
    return {
      consumers: [
        {
          name: 'postings',
          topics: [TOPIC],
          knows: () => true,
          apply: async () => assert(false, 'ledger.posting-balances', { event: 'evt_broken' }),
        },
      ],
    };
  },
};

describe('a broken invariant', () => {
  const knex = createPgliteKnex(null);
  const reader = new TestReader();
  const provider = new MeterProvider({ readers: [reader] });
  const lines: Array<{ fields: Record<string, unknown>; message: string }> = [];
  let removeObserver: () => void = () => undefined;
  beforeAll(() => {
    metrics.setGlobalMeterProvider(provider);
    removeObserver = reportBrokenInvariants('ledgers', {
      error: (fields, message) => lines.push({ fields, message }),
    });
  });
  afterAll(async () => {
    removeObserver();
    metrics.disable();
    await provider.shutdown();
    await knex.destroy();
  });
  beforeEach(() => lines.splice(0));

  const start = (db: Db, env: NodeJS.ProcessEnv = {}) =>
    startService(ledgerService, {
      db,
      bus: new InProcessBus(),
      clock: systemClock,
      principalPublicKey: PRINCIPALS.publicKey,
      peers: new InjectPeers(),
      env: { BUS_RETENTION_INTERVAL_MS: '0', ...env },
      log: { level: 'silent' },
    });

  async function counted(): Promise<Array<{ value: number; attributes: Record<string, unknown> }>> {
    const { resourceMetrics } = (await reader.collect()) as { resourceMetrics: ResourceMetrics };
    const metric = resourceMetrics.scopeMetrics
      .flatMap((s) => s.metrics)
      .find((m) => m.descriptor.name === 'invariants.broken');
    return (metric?.dataPoints ?? []).map((p) => ({
      value: p.value as number,
      attributes: p.attributes,
    }));
  }

  it('in a request answers 500 with the contract error body and its request id, logged and counted', async () => {
    // Proves the request fails (and only it), the caller sees no stack, and the operator sees which invariant broke.
    const service = await start(sharedDb(knex, 'invariant_request'));
    try {
      const expiresAtMs = Date.now() + PRINCIPAL_TTL_MS;
      const operator = { kind: 'operator' as const, requestId: 'req_invariant_1', expiresAtMs };
      const principal = PRINCIPALS.sign(operator, 'GET', '/balance');
      const headers = { [PRINCIPAL_HEADER]: principal };
      const res = await service.app.inject({ method: 'GET', url: '/balance', headers });
      expect(res.statusCode).toBe(500);
      expect(res.json()).toEqual({
        error: {
          type: 'api_error',
          code: 'internal_error',
          message: 'An internal error occurred.',
          param: null,
        },
        request_id: expect.stringMatching(/^req_/),
      });
      expect(res.payload).not.toContain('ledger.balances');
      expect(lines).toEqual([
        {
          message: 'invariant broken',
          fields: {
            invariant: 'ledger.balances',
            context: { ledger_id: 'led_1', imbalance_cents: 1 },
            stack: expect.stringContaining('InvariantError'),
          },
        },
      ]);
      const attributes = { service: 'ledgers', invariant: 'ledger.balances' };
      expect(await counted()).toContainEqual({ value: 1, attributes });
      expect((await service.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
    } finally {
      await service.stop();
    }
  });

  it('in a consumer stops the process: the event is never parked and never marked handled', async () => {
    // Proves a consumer does not carry on past corrupted state, even with parking set to its most eager.
    const halted: unknown[] = [];
    const restoreHalt = replaceHalt((error) => halted.push(error));
    const db = sharedDb(knex, 'invariant_consumer');
    const service = await start(db, {
      CONSUMER_POISON_ATTEMPTS: '1',
      CONSUMER_POISON_AFTER_MS: '0',
    });
    try {
      const payload = Buffer.from('{}');
      const message = {
        topic: TOPIC,
        key: 'led_1',
        eventId: 'evt_broken',
        eventType: 'test.posted.v1',
        payload,
      };
      await db.tx((trx) => enqueue(db, trx, [message]));
      const thrice = async () => (halted.length >= 3 ? true : undefined);
      await waitFor(thrice, 20_000, 'the consumer to fail the event three times');
      const broken = { name: 'InvariantError', invariant: 'ledger.posting-balances' };
      expect(halted[0]).toEqual(expect.objectContaining(broken));
      const state = await db.read(async (q) => ({
        parked: (await q('dead_letters').count<Count>('* as count'))[0]?.count,
        handled: (await q('inbox').where({ event_id: 'evt_broken' }).count<Count>('* as count'))[0]
          ?.count,
      }));
      expect({ parked: Number(state.parked), handled: Number(state.handled) }).toEqual({
        parked: 0,
        handled: 0,
      });
    } finally {
      await service.stop();
      restoreHalt();
    }
  });
});
