import { PRINCIPAL_HEADER } from '@pgw/platform-http';
import { apiKey, buyer, cardCharge, get, post } from '../testing/harness';
import { chargeLifecycle } from '../testing/lifecycle';

const life = chargeLifecycle();

const read = (id: string, headers: Record<string, string> = life.m.key) =>
  get(life.h, `/api/v1/charges/${id}`, headers);

describe('GET /api/v1/charges/{id}', () => {
  it('answers the charge as its creation answered it, with its own request id, and follows its moves', async () => {
    // Proves the read is the created resource (nothing dropped or added) and that it is read fresh.
    const created = await post(life.h, '/api/v1/charges', life.m.key, {
      ...cardCharge(life.m.token()),
      capture_method: 'manual',
    });
    expect(created.statusCode).toBe(201);
    const { request_id: createdRequestId, ...resource } = created.json();
    const res = await read(resource.id);
    expect(res.statusCode).toBe(200);
    const { request_id: readRequestId, ...again } = res.json();
    expect(again).toEqual(resource);
    expect(readRequestId).toMatch(/^req_/);
    expect(readRequestId).not.toBe(createdRequestId);
    expect(
      (await post(life.h, `/api/v1/charges/${resource.id}/capture`, life.m.key)).statusCode,
    ).toBe(200);
    expect((await read(resource.id)).json()).toMatchObject({ status: 'paid', captured: true });
  });

  it('reads a Pix charge with its QR code', async () => {
    // Proves the payment method's block is part of the read, not only of the creation's answer.
    const pix = (
      await post(life.h, '/api/v1/charges', life.m.key, {
        amount: 1_500,
        payment_method: 'PIX',
        buyer: buyer(),
      })
    ).json();
    expect((await read(pix.id)).json()).toMatchObject({
      status: 'pending',
      pix: { qr_code: pix.pix.qr_code },
    });
  });

  it('is 404 resource_not_found for an id that is not a charge id or names no charge, and 403 without charges:read', async () => {
    // Proves path ids are checked against their pattern and that the permission is required.
    for (const id of ['ch_not-an-id', 'ch_doesnotexist', 'rf_abc']) {
      const res = await read(id);
      expect(res.statusCode).toBe(404);
      expect(res.json().error).toMatchObject({ code: 'resource_not_found' });
    }
    const paid = (
      await post(life.h, '/api/v1/charges', life.m.key, cardCharge(life.m.token()))
    ).json();
    const writeOnly = {
      [PRINCIPAL_HEADER]: apiKey({
        tenantId: life.m.tenantId,
        sellerId: life.m.sellerId,
        permissions: ['charges:create'],
      }),
    };
    const refused = await read(paid.id, writeOnly);
    expect(refused.statusCode).toBe(403);
    expect(JSON.stringify(refused.json())).not.toContain(paid.id.slice(3));
  });
});
