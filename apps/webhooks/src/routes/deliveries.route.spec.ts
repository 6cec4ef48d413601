// The operator's delivery routes: an endpoint's deliveries (paged, by status), one delivery with its
// attempts, and a redelivery; against a real HTTP receiver on 127.0.0.1, back-off in milliseconds.
import type { Knex } from 'knex';
import { createPgliteKnex } from '@pgw/platform-db';
import { waitFor } from '@pgw/testing';
import { verifyWebhook } from '@pgw/webhook-signature';
import {
  asOperator,
  deliveryOf,
  newCharge,
  newTenant,
  publishCharge,
  publishEndpoint,
  Receiver,
  startWebhooks,
  type Harness,
} from '../testing/harness';

describe('the operator reads deliveries with their attempts, and redelivers one', () => {
  let knex: Knex;
  let h: Harness;
  let receiver: Receiver;

  beforeAll(async () => {
    knex = createPgliteKnex(null);
    h = await startWebhooks(knex);
    receiver = await Receiver.start();
  });
  afterAll(async () => {
    await h.stop();
    await receiver.stop();
    await knex.destroy();
  });

  const inject = (method: 'GET' | 'POST', url: string) => asOperator(h, method, url);

  it('redelivers a delivered event on the operator route: the same event, signed again, logged as a new attempt', async () => {
    const tenantId = newTenant();
    const endpoint = await publishEndpoint(h.bus, { tenantId, url: receiver.url('/again') });
    const event = await publishCharge(h.bus, 'charges.charge-refunded.v1', {
      tenantId,
      chargeId: newCharge(),
      status: 'refunded',
    });
    const delivered = await waitFor(async () => {
      const d = await deliveryOf(h, endpoint.id, event.envelope.event_id);
      return d?.status === 'succeeded' ? d : undefined;
    });
    const res = await inject('POST', `/admin/v1/webhook-deliveries/${delivered.id}/redeliver`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      object: 'webhook_delivery',
      id: delivered.id,
      status: 'pending',
      request_id: 'req_webhooks_test',
    });
    const requests = await waitFor(
      () =>
        receiver.requestsTo('/again').length === 2 ? receiver.requestsTo('/again') : undefined,
      5_000,
      'the redelivery',
    );
    expect(requests[1]!.rawBody.equals(requests[0]!.rawBody)).toBe(true);
    expect(
      verifyWebhook({
        rawBody: requests[1]!.rawBody,
        header: requests[1]!.headers['x-signature'],
        secrets: [endpoint.secret],
      }).ok,
    ).toBe(true);
    const after = await waitFor(async () => {
      const d = (await inject('GET', `/admin/v1/webhook-deliveries/${delivered.id}`)).json();
      return d.status === 'succeeded' && d.attempts.length === 2 ? d : undefined;
    });
    expect(
      after.attempts.map((a: { number: number; succeeded: boolean }) => [a.number, a.succeeded]),
    ).toEqual([
      [1, true],
      [2, true],
    ]);
  });

  it("lists an endpoint's deliveries newest first, paged and by status; unknown ids are 404; only the operator may call", async () => {
    const tenantId = newTenant();
    const endpoint = await publishEndpoint(h.bus, { tenantId, url: receiver.url('/listed') });
    const events = [];
    for (let i = 0; i < 3; i++)
      events.push(
        await publishCharge(h.bus, 'charges.charge-paid.v1', { tenantId, chargeId: newCharge() }),
      );
    await waitFor(async () =>
      (
        await inject(
          'GET',
          `/admin/v1/webhook-endpoints/${endpoint.id}/deliveries?status=succeeded`,
        )
      ).json().total === 3
        ? true
        : undefined,
    );

    const page2 = (
      await inject('GET', `/admin/v1/webhook-endpoints/${endpoint.id}/deliveries?limit=2&page=2`)
    ).json();
    expect(page2).toMatchObject({ object: 'list', page: 2, limit: 2, total: 3, total_pages: 2 });
    expect(page2.data.map((d: { event_id: string }) => d.event_id)).toEqual([
      events[0]!.envelope.event_id,
    ]);
    const page1 = (
      await inject('GET', `/admin/v1/webhook-endpoints/${endpoint.id}/deliveries?limit=2`)
    ).json();
    expect(page1.data.map((d: { event_id: string }) => d.event_id)).toEqual([
      events[2]!.envelope.event_id,
      events[1]!.envelope.event_id,
    ]);
    expect(
      (
        await inject('GET', `/admin/v1/webhook-endpoints/${endpoint.id}/deliveries?status=failed`)
      ).json().total,
    ).toBe(0);
    // Paging is decimal digits only: ajv alone would read 0x10 as 16 and 1e3 as 1000.
    for (const [name, junk] of [
      ['page', '0x10'],
      ['page', '1e3'],
      ['page', ' 2'],
      ['page', '+2'],
      ['limit', '0x2'],
    ]) {
      const res = await inject(
        'GET',
        `/admin/v1/webhook-endpoints/${endpoint.id}/deliveries?${name}=${encodeURIComponent(junk!)}`,
      );
      expect([junk, res.statusCode, res.json().error.code, res.json().error.param]).toEqual([
        junk,
        422,
        'parameter_invalid',
        name,
      ]);
    }

    for (const [method, url] of [
      ['GET', '/admin/v1/webhook-endpoints/we_unknown/deliveries'],
      ['GET', '/admin/v1/webhook-endpoints/not-an-id/deliveries'],
      ['GET', '/admin/v1/webhook-deliveries/whd_unknown'],
      ['POST', '/admin/v1/webhook-deliveries/whd_unknown/redeliver'],
      ['POST', '/admin/v1/webhook-endpoints/we_unknown/rotate-secret'],
    ] as const) {
      const res = await inject(method, url);
      expect([url, res.statusCode, res.json().error.code]).toEqual([
        url,
        404,
        'resource_not_found',
      ]);
    }
    const anonymous = await h.service.app.inject({
      method: 'GET',
      url: `/admin/v1/webhook-endpoints/${endpoint.id}/deliveries`,
    });
    expect(anonymous.statusCode).toBe(401);
  });
});
