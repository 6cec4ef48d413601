import { createPgliteKnex } from '@pgw/platform-db';
import { buyer, cardCharge, merchant, post, startCharges, type Harness } from '../testing/harness';

// Contract §6: where DEPLOYMENT_ENV=production and the live acquirer is the simulator, a live charge (card,
// Pix or boleto: all go to the simulator) is refused before anything is sent; test charges go on.

const knex = createPgliteKnex(null);
let h: Harness;
beforeAll(async () => {
  h = await startCharges(knex, { env: { DEPLOYMENT_ENV: 'production' } });
});
afterAll(async () => {
  await h.stop();
  await knex.destroy();
});

const pix = { amount: 1_000, payment_method: 'PIX', buyer: buyer() };

describe('POST /api/v1/charges where DEPLOYMENT_ENV=production', () => {
  it('Proves a live Pix or card charge is refused with 403 permission_denied and nothing is recorded', async () => {
    const live = await merchant(h, { livemode: true });
    for (const body of [pix, cardCharge(live.token())]) {
      const res = await post(
        h,
        '/api/v1/charges',
        { ...live.key, 'idempotency-key': `live-${String(body.payment_method)}` },
        body,
      );
      expect(res.statusCode).toBe(403);
      expect(res.json().error).toMatchObject({
        type: 'permission_error',
        code: 'permission_denied',
        message: expect.stringMatching(/^live mode is not available/),
      });
    }
    expect(
      await h.db.read((q) => q('charges').where({ tenant_id: live.tenantId }).select('id')),
    ).toHaveLength(0);
  });

  it('Proves a test Pix charge is still created', async () => {
    const test = await merchant(h);
    const res = await post(
      h,
      '/api/v1/charges',
      { ...test.key, 'idempotency-key': 'test-pix' },
      pix,
    );
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ object: 'charge', payment_method: 'pix' });
  });
});
