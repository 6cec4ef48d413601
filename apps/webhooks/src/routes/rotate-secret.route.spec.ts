// POST /admin/v1/webhook-endpoints/{id}/rotate-secret: the new secret answered once, both signing for
// 24 h, then only the new one; on a clock the test moves, against a real HTTP receiver on 127.0.0.1.
import type { Knex } from 'knex';
import { createPgliteKnex } from '@pgw/platform-db';
import { ManualClock } from '@pgw/platform-service';
import { waitFor } from '@pgw/testing';
import { parseSignatureHeader, verifyWebhook } from '@pgw/webhook-signature';
import {
  asOperator,
  newCharge,
  newTenant,
  operatorHeaders,
  publishCharge,
  publishEndpoint,
  Receiver,
  startWebhooks,
  type Harness,
} from '../testing/harness';

describe('POST /admin/v1/webhook-endpoints/{id}/rotate-secret', () => {
  const clock = new ManualClock(new Date('2026-03-01T12:00:00Z'));
  const clockSeconds = () => Math.floor(clock.now().getTime() / 1000);
  let knex: Knex;
  let h: Harness;
  let receiver: Receiver;

  beforeAll(async () => {
    knex = createPgliteKnex(null);
    receiver = await Receiver.start();
    h = await startWebhooks(knex, {
      clock,
      env: { WEBHOOK_POLL_INTERVAL_MS: '10', WEBHOOK_ALLOW_PRIVATE_TARGETS: '1' },
    });
  });
  afterAll(async () => {
    await h.stop();
    await receiver.stop();
    await knex.destroy();
  });

  it('rotates a secret: for 24 h both sign (two v1 values), then only the new one; a directory repeat of the old secret does not undo it', async () => {
    const tenantId = newTenant();
    const endpoint = await publishEndpoint(h.bus, {
      tenantId,
      url: receiver.url('/rotating'),
      version: 1,
    });
    const rotated = await h.service.app.inject({
      method: 'POST',
      url: `/admin/v1/webhook-endpoints/${endpoint.id}/rotate-secret`,
      headers: operatorHeaders(),
    });
    expect(rotated.statusCode).toBe(200);
    const body = rotated.json();
    expect(body).toMatchObject({
      object: 'webhook_endpoint',
      id: endpoint.id,
      tenant_id: tenantId,
      url: receiver.url('/rotating'),
      livemode: false,
      events: ['*'],
    });
    expect(body.secret).toMatch(/^whsec_[A-Za-z0-9]{32}$/);
    expect(body.secret).not.toBe(endpoint.secret);
    expect(Date.parse(body.previous_secret_expires_at)).toBe(
      clock.now().getTime() + 24 * 3_600_000,
    );

    const received = async (path: string, eventId: string) =>
      waitFor(
        () => receiver.requestsTo(path).find((r) => r.event.id === eventId),
        5_000,
        `event at ${path}`,
      );
    const verify = (r: { rawBody: Buffer; headers: Record<string, unknown> }, secrets: string[]) =>
      verifyWebhook({
        rawBody: r.rawBody,
        header: String(r.headers['x-signature']),
        secrets,
        nowSeconds: clockSeconds(),
      }).ok;

    const during = await received(
      '/rotating',
      (await publishCharge(h.bus, 'charges.charge-paid.v1', { tenantId, chargeId: newCharge() }))
        .envelope.event_id,
    );
    expect(parseSignatureHeader(String(during.headers['x-signature']))!.signatures).toHaveLength(2);
    expect(verify(during, [body.secret])).toBe(true);
    expect(verify(during, [endpoint.secret])).toBe(true);

    clock.set(new Date(clock.now().getTime() + 24 * 3_600_000 + 1_000));
    const after = await received(
      '/rotating',
      (await publishCharge(h.bus, 'charges.charge-paid.v1', { tenantId, chargeId: newCharge() }))
        .envelope.event_id,
    );
    expect(parseSignatureHeader(String(after.headers['x-signature']))!.signatures).toHaveLength(1);
    expect(verify(after, [body.secret])).toBe(true);
    expect(verify(after, [endpoint.secret])).toBe(false);

    await publishEndpoint(h.bus, {
      id: endpoint.id,
      tenantId,
      url: receiver.url('/rotating-moved'),
      secret: endpoint.secret,
      version: 2,
    });
    const moved = await received(
      '/rotating-moved',
      (await publishCharge(h.bus, 'charges.charge-paid.v1', { tenantId, chargeId: newCharge() }))
        .envelope.event_id,
    );
    expect(verify(moved, [body.secret])).toBe(true);
    expect(verify(moved, [endpoint.secret])).toBe(false);

    // A new secret from the directory is a rotation too, with the same overlap.
    await publishEndpoint(h.bus, {
      id: endpoint.id,
      tenantId,
      url: receiver.url('/rotating-moved'),
      secret: 'whsec_from_the_gateway_000000000000',
      version: 3,
    });
    const third = await received(
      '/rotating-moved',
      (await publishCharge(h.bus, 'charges.charge-paid.v1', { tenantId, chargeId: newCharge() }))
        .envelope.event_id,
    );
    expect(verify(third, ['whsec_from_the_gateway_000000000000'])).toBe(true);
    expect(verify(third, [body.secret])).toBe(true);
  });

  it('is 404 for an unknown endpoint or an id that is not an endpoint id, and 401 without the operator', async () => {
    for (const id of ['we_unknown', 'not-an-id']) {
      const res = await asOperator(h, 'POST', `/admin/v1/webhook-endpoints/${id}/rotate-secret`);
      expect([id, res.statusCode, res.json().error.code]).toEqual([id, 404, 'resource_not_found']);
    }
    const endpoint = await publishEndpoint(h.bus, {
      tenantId: newTenant(),
      url: receiver.url('/anonymous'),
    });
    const anonymous = await h.service.app.inject({
      method: 'POST',
      url: `/admin/v1/webhook-endpoints/${endpoint.id}/rotate-secret`,
    });
    expect(anonymous.statusCode).toBe(401);
  });
});
