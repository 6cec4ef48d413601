// Proves GET /api/v1/charges/{id}/refunds and /events: a charge's refunds and every change its events
// announced, newest first, paged, each event under the id of the outbox event (the webhook's), and
// nothing of a charge outside the key's tenant, environment or seller.
import { newId } from '@pgw/domain';
import { createPgliteKnex } from '@pgw/platform-db';
import { PRINCIPAL_HEADER } from '@pgw/platform-http';
import {
  apiKey,
  asOperator,
  cardCharge,
  get,
  merchant,
  outboxEvents,
  post,
  startCharges,
  type Harness,
  type Merchant,
} from '../testing/harness';

const knex = createPgliteKnex(null);
let h: Harness;
let m: Merchant;
let chargeId: string;
let refundIds: string[];
let chargebackId: string;

beforeAll(async () => {
  h = await startCharges(knex);
  m = await merchant(h);
  chargeId = (
    await post(h, '/api/v1/charges', m.key, cardCharge(m.token(), { amount: 10_000 }))
  ).json().id;
  const first = await post(h, `/api/v1/charges/${chargeId}/refund`, m.key, {
    amount_cents: 1_000,
    reason: 'damaged item',
  });
  const second = await post(h, `/api/v1/charges/${chargeId}/refund`, m.key, {
    amount_cents: 2_000,
  });
  expect([first.statusCode, second.statusCode]).toEqual([201, 201]);
  refundIds = [first.json().id, second.json().id];
  const chargeback = await post(h, '/admin/v1/simulations/chargebacks', asOperator(), {
    charge_id: chargeId,
    amount_cents: 7_000,
  });
  expect(chargeback.statusCode).toBe(201);
  chargebackId = chargeback.json().id;
}, 60_000);

afterAll(async () => {
  await h.stop();
  await knex.destroy();
});

const read = async (path: string, key: Record<string, string> = m.key) => {
  const answer = await get(h, path, key);
  return { status: answer.statusCode, body: answer.json() };
};

describe('GET /api/v1/charges/{id}/refunds', () => {
  it('lists the charge’s refunds newest first as the list envelope, each as the refund answer showed it', async () => {
    // Proves a dashboard sees every refund of the charge, also those made elsewhere, with amount, status and reason.
    const { status, body } = await read(`/api/v1/charges/${chargeId}/refunds`);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      object: 'list',
      page: 1,
      limit: 50,
      total: 2,
      total_pages: 1,
      request_id: expect.stringMatching(/^req_/),
    });
    expect(body.data.map((r: { id: string }) => r.id)).toEqual([...refundIds].reverse());
    expect(body.data[1]).toMatchObject({
      object: 'refund',
      charge_id: chargeId,
      amount_cents: 1_000,
      currency: 'BRL',
      status: 'succeeded',
      reason: 'damaged item',
    });
    expect(body.data[0]).not.toHaveProperty('request_id');
  });

  it('pages: one refund a page, the newest first', async () => {
    // Proves page and limit apply, and total counts every refund of the charge.
    const second = await read(`/api/v1/charges/${chargeId}/refunds?limit=1&page=2`);
    expect(second.body).toMatchObject({ page: 2, limit: 1, total: 2, total_pages: 2 });
    expect(second.body.data.map((r: { id: string }) => r.id)).toEqual([refundIds[0]]);
  });

  it('is an empty list for a charge without refunds', async () => {
    // Proves a charge never refunded answers 200 with no items, not a 404.
    const untouched = (await post(h, '/api/v1/charges', m.key, cardCharge(m.token()))).json().id;
    expect((await read(`/api/v1/charges/${untouched}/refunds`)).body).toMatchObject({
      data: [],
      total: 0,
      total_pages: 0,
    });
  });
});

describe('GET /api/v1/charges/{id}/events', () => {
  it('lists every change of the charge, its refunds and its chargeback, newest first, under the outbox events’ ids', async () => {
    // Proves the history is the events announced: same ids (the webhook's event id), webhook kinds, and the charge's status after each.
    const { status, body } = await read(`/api/v1/charges/${chargeId}/events`);
    expect(status).toBe(200);
    const announced = (await outboxEvents(h, chargeId)).map((e) => e.event.envelope.event_id);
    expect(body.data.map((e: { id: string }) => e.id)).toEqual([...announced].reverse());
    expect(
      [...body.data]
        .reverse()
        .map((e: { type: string; charge_status: string; amount_cents: number }) => [
          e.type,
          e.charge_status,
          e.amount_cents,
        ]),
    ).toEqual([
      ['charge.created', 'paid', 10_000],
      ['charge.paid', 'paid', 10_000],
      ['refund.succeeded', 'partially_refunded', 1_000],
      ['charge.partially_refunded', 'partially_refunded', 10_000],
      ['refund.succeeded', 'partially_refunded', 2_000],
      ['charge.partially_refunded', 'partially_refunded', 10_000],
      ['chargeback.opened', 'chargeback', 7_000],
      ['charge.chargeback', 'chargeback', 10_000],
    ]);
    const refundEvents = body.data.filter((e: { type: string }) => e.type === 'refund.succeeded');
    expect(refundEvents.map((e: { refund_id: string }) => e.refund_id)).toEqual(
      [...refundIds].reverse(),
    );
    expect(body.data.find((e: { type: string }) => e.type === 'chargeback.opened')).toMatchObject({
      object: 'charge_event',
      chargeback_id: chargebackId,
      refund_id: null,
      charge_id: chargeId,
    });
    expect(body.total).toBe(8);
  });

  it('pages like every list', async () => {
    // Proves limit and page bound the history: the first page of three is the three newest changes.
    const { body } = await read(`/api/v1/charges/${chargeId}/events?limit=3`);
    expect(body).toMatchObject({ page: 1, limit: 3, total: 8, total_pages: 3 });
    expect(body.data.map((e: { type: string }) => e.type)).toEqual([
      'charge.chargeback',
      'chargeback.opened',
      'charge.partially_refunded',
    ]);
  });
});

describe('the scope of a charge’s refunds and events', () => {
  const key = (who: { tenantId: string; sellerId: string | null; livemode?: boolean }) => ({
    [PRINCIPAL_HEADER]: apiKey(who),
  });

  it('answers 404 to another tenant, the other environment and another seller, 200 to a tenant-wide key', async () => {
    // Proves both lists are scoped like GET /charges/{id}: a foreign charge is not found, not an empty list.
    for (const path of [
      `/api/v1/charges/${chargeId}/refunds`,
      `/api/v1/charges/${chargeId}/events`,
    ]) {
      for (const outsider of [
        key({ tenantId: newId('ten_'), sellerId: null }),
        key({ tenantId: m.tenantId, sellerId: m.sellerId, livemode: true }),
        key({ tenantId: m.tenantId, sellerId: newId('seller_') }),
      ]) {
        const answer = await read(path, outsider);
        expect([path, answer.status, answer.body.error?.code]).toEqual([
          path,
          404,
          'resource_not_found',
        ]);
      }
      expect((await read(path, key({ tenantId: m.tenantId, sellerId: null }))).status).toBe(200);
    }
  });

  it('needs charges:read, and answers 404 for an id that is not a charge id', async () => {
    // Proves the permission is checked and a malformed id is a 404 like on the charge itself.
    const refundsOnly = {
      [PRINCIPAL_HEADER]: apiKey({
        tenantId: m.tenantId,
        sellerId: m.sellerId,
        permissions: ['refunds:create'],
      }),
    };
    const denied = await read(`/api/v1/charges/${chargeId}/events`, refundsOnly);
    expect([denied.status, denied.body.error.code]).toEqual([403, 'permission_denied']);
    expect((await read('/api/v1/charges/rf_123/refunds')).status).toBe(404);
    expect((await read(`/api/v1/charges/${chargeId}/events?limit=101`)).body.error).toMatchObject({
      code: 'parameter_invalid',
      param: 'limit',
    });
  });
});
