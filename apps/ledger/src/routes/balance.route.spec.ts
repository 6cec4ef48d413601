// GET /api/v1/balance: the running totals of a seller, for a seller-scoped key with balance:read.
import { uniqueName } from '@pgw/testing';
import { ledgerFixture } from '../testing/ledger-fixture';

const { bus, ledger, movement, sale, get } = ledgerFixture();

describe('GET /api/v1/balance', () => {
  it('answers pending, available, reserved and requestable from the running totals', async () => {
    const tenant = uniqueName('ten');
    await bus.publish([
      sale(tenant, 9701, 299),
      sale(tenant, 4850, 150),
      movement(tenant, 'seller_1', {
        type: 'receivable.released',
        pending_delta_cents: -9701,
        available_delta_cents: 9701,
      }),
    ]);
    expect((await get('/api/v1/balance', tenant)).json()).toEqual({
      object: 'balance',
      pending_cents: 4850,
      available_cents: 9701,
      reserved_cents: 0,
      requestable_cents: 9701,
      currency: 'BRL',
      request_id: expect.stringMatching(/^req_/),
    });
    expect((await get('/api/v1/balance', tenant, 'seller_2')).json()).toMatchObject({
      pending_cents: 0,
      available_cents: 0,
    });
  });

  it('answers only a seller-scoped key with balance:read, and zeros for a seller without entries', async () => {
    const tenant = uniqueName('ten');
    const tenantWide = await get('/api/v1/balance', tenant, null);
    expect([tenantWide.statusCode, tenantWide.json().error.code]).toEqual([
      403,
      'seller_scope_required',
    ]);
    expect((await ledger().app.inject({ url: '/api/v1/balance' })).statusCode).toBe(401);
    expect((await get('/api/v1/balance', tenant, 'seller_new')).json()).toMatchObject({
      pending_cents: 0,
      available_cents: 0,
      reserved_cents: 0,
      requestable_cents: 0,
    });
  });
});
