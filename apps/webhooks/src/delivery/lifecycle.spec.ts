import type { Knex } from 'knex';
import { createPgliteKnex } from '@pgw/platform-db';
import { ManualClock } from '@pgw/platform-service';
import { waitFor } from '@pgw/testing';
import { parseSignatureHeader, verifyWebhook } from '@pgw/webhook-signature';
import {
  deliveryOf,
  newCharge,
  newTenant,
  publishCharge,
  publishEndpoint,
  Receiver,
  startWebhooks,
  type DeliveryView,
  type Harness,
} from '../testing/harness';

// What outlives one attempt: a restart in the middle of retries, and the 24-hour retry window with the
// default back-off (on a clock the test moves); secret rotation is routes/rotate-secret.route.spec.ts's.
// One embedded PostgreSQL, a schema per scenario, a real HTTP receiver on 127.0.0.1.
jest.setTimeout(60_000);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('webhook deliveries across restarts and time', () => {
  let knex: Knex;
  let receiver: Receiver;

  beforeAll(async () => {
    knex = createPgliteKnex(null);
    receiver = await Receiver.start();
  });
  afterAll(async () => {
    await receiver.stop();
    await knex.destroy();
  });

  it('loses nothing when the service stops in the middle of retries: started again on the same database, it delivers', async () => {
    const first = await startWebhooks(knex, { schema: 'webhooks_restart' });
    const tenantId = newTenant();
    const endpoint = await publishEndpoint(first.bus, { tenantId, url: receiver.url('/restart') });
    let up = false;
    receiver.on('/restart', () => (up ? { status: 200 } : { status: 500 }));
    const event = await publishCharge(first.bus, 'charges.charge-paid.v1', {
      tenantId,
      chargeId: newCharge(),
    });
    await waitFor(
      () => (receiver.requestsTo('/restart').length >= 2 ? true : undefined),
      5_000,
      'two failed attempts',
    );
    await first.stop();

    const [logged] = await first.db.read((q) =>
      q('webhook_attempts').count<Array<{ n: string | number }>>({ n: '*' }),
    );
    const attemptsBefore = receiver.requestsTo('/restart').length;
    up = true;
    await sleep(300);
    expect(receiver.requestsTo('/restart')).toHaveLength(attemptsBefore);

    const second = await startWebhooks(knex, { schema: 'webhooks_restart' });
    try {
      const delivery = await waitFor(
        async () => {
          const d = await deliveryOf(second, endpoint.id, event.envelope.event_id);
          return d?.status === 'succeeded' ? d : undefined;
        },
        5_000,
        'the delivery after the restart',
      );
      expect(receiver.requestsTo('/restart')).toHaveLength(attemptsBefore + 1);
      expect(delivery.attempts.map((a) => a.number)).toEqual(
        Array.from({ length: delivery.attempts.length }, (_, i) => i + 1),
      );
      expect(delivery.attempts.length).toBe(Number(logged!.n) + 1);
      expect(delivery.attempts.slice(0, -1).every((a) => !a.succeeded)).toBe(true);
      expect(delivery.attempts.at(-1)).toMatchObject({ status_code: 200, succeeded: true });
      const last = receiver.requestsTo('/restart').at(-1)!;
      expect(last.event.id).toBe(event.envelope.event_id);
      expect(
        verifyWebhook({
          rawBody: last.rawBody,
          header: last.headers['x-signature'],
          secrets: [endpoint.secret],
        }).ok,
      ).toBe(true);
    } finally {
      await second.stop();
    }
  });

  describe('on a clock the test moves, with the default back-off', () => {
    const clock = new ManualClock(new Date('2026-03-01T12:00:00Z'));
    let h: Harness;

    beforeAll(async () => {
      h = await startWebhooks(knex, {
        schema: 'webhooks_clock',
        clock,
        env: { WEBHOOK_POLL_INTERVAL_MS: '10', WEBHOOK_ALLOW_PRIVATE_TARGETS: '1' },
      });
    });
    afterAll(() => h.stop());

    it('retries from 10 s, doubling up to 1 h, for at least 24 hours, then marks the delivery failed; later events of the charge then go', async () => {
      const tenantId = newTenant();
      const chargeId = newCharge();
      const endpoint = await publishEndpoint(h.bus, { tenantId, url: receiver.url('/down') });
      let down = true;
      receiver.on('/down', () => (down ? { status: 500 } : { status: 200 }));
      const createdAt = clock.now().getTime();
      const event = await publishCharge(h.bus, 'charges.charge-paid.v1', { tenantId, chargeId });

      let delivery: DeliveryView | undefined;
      for (let seen = 0; seen < 60;) {
        delivery = await waitFor(
          async () => {
            const d = await deliveryOf(h, endpoint.id, event.envelope.event_id);
            return d !== undefined && d.attempts.length > seen ? d : undefined;
          },
          5_000,
          `attempt ${seen + 1}`,
        );
        seen = delivery.attempts.length;
        if (delivery.status === 'failed') break;
        expect(delivery.status).toBe('pending');
        // Nothing is sent before it is due.
        await sleep(30);
        expect(receiver.requestsTo('/down')).toHaveLength(seen);
        clock.set(new Date(delivery.next_attempt_at!));
      }
      expect(delivery!.status).toBe('failed');
      expect(delivery!.next_attempt_at).toBeNull();
      expect(delivery!.last_error).toBe('http status 500');

      const starts = delivery!.attempts.map((a) => Date.parse(a.started_at));
      const gapsS = starts.slice(1).map((t, i) => (t - starts[i]!) / 1000);
      expect(starts[0]).toBe(createdAt);
      expect(gapsS[0]).toBeGreaterThanOrEqual(8);
      expect(gapsS[0]).toBeLessThanOrEqual(12);
      expect(gapsS[1]).toBeGreaterThanOrEqual(16);
      expect(gapsS[1]).toBeLessThanOrEqual(24);
      expect(gapsS[2]).toBeGreaterThanOrEqual(32);
      expect(Math.max(...gapsS)).toBeLessThanOrEqual(3_600 * 1.2);
      // The last attempt is at or after 24 h; the one before it was not: it gave up at the first chance.
      expect(starts.at(-1)! - createdAt).toBeGreaterThanOrEqual(24 * 3_600_000);
      expect(starts.at(-2)! - createdAt).toBeLessThan(24 * 3_600_000);
      expect(delivery!.attempts.length).toBeGreaterThan(20);
      expect(delivery!.attempts.length).toBeLessThan(45);
      // Each attempt was signed at its own time.
      const ts = receiver
        .requestsTo('/down')
        .map(
          (r) => parseSignatureHeader(String(r.headers['x-signature']))!.timestampSeconds * 1000,
        );
      expect(ts).toEqual(starts.map((s) => Math.floor(s / 1000) * 1000));

      down = false;
      const next = await publishCharge(h.bus, 'charges.charge-refunded.v1', {
        tenantId,
        chargeId,
        status: 'refunded',
      });
      await waitFor(
        () =>
          receiver.requestsTo('/down').some((r) => r.event.id === next.envelope.event_id)
            ? true
            : undefined,
        5_000,
        'the later event',
      );
    });
  });
});
