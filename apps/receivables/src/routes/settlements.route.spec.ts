// GET /api/v1/settlements and /api/v1/settlements/{id}: the settlement run's payouts, scope and errors.
import { listsFixture } from '../scenarios/lists.fixture';

const lists = listsFixture();

describe('GET /api/v1/settlements and /api/v1/settlements/{id}', () => {
  it('lists the settlement run of the fixture, retrieves it as listed, and scopes both to the key seller', async () => {
    const all = await lists.money.get('/api/v1/settlements');
    expect(all.statusCode).toBe(200);
    expect(all.body).toMatchObject({ object: 'list', page: 1, total: all.body.data.length });
    expect(all.body.total).toBeGreaterThan(0);
    const [s] = all.body.data;
    const one = await lists.money.get(`/api/v1/settlements/${s.id}`);
    expect(one.body).toEqual({ ...s, request_id: expect.stringMatching(/^req_/) });
    // The Pix of seller_other were available at once and paid out; seller_own had nothing due yet.
    const own = lists.money.principal({ sellerId: 'seller_own' });
    expect((await lists.money.get('/api/v1/settlements', own)).body.total).toBe(0);
    expect((await lists.money.get(`/api/v1/settlements/${s.id}`, own)).statusCode).toBe(404);
  });

  it('answers 404 for another tenant, the other environment or a bad pattern', async () => {
    const [s] = (await lists.money.get('/api/v1/settlements')).body.data;
    const url = `/api/v1/settlements/${s.id}`;
    expect(
      (await lists.money.get(url, lists.money.principal({ tenantId: 'ten_someoneelse' })))
        .statusCode,
    ).toBe(404);
    expect((await lists.money.get(url, lists.money.principal({ livemode: true }))).statusCode).toBe(
      404,
    );
    for (const bad of ['/api/v1/settlements/set_nope', '/api/v1/settlements/recv_x']) {
      const res = await lists.money.get(bad);
      expect(res.statusCode).toBe(404);
      expect(res.body.error).toMatchObject({ type: 'not_found_error', code: 'resource_not_found' });
    }
  });

  it.each([
    ['/api/v1/settlements?status=done', 'status'],
    ['/api/v1/settlements?page=0', 'page'],
    ['/api/v1/settlements?limit=101', 'limit'],
    ['/api/v1/settlements?limit=abc', 'limit'],
  ])('answers 422 parameter_invalid for %s', async (url, param) => {
    const res = await lists.money.get(url);
    expect(res.statusCode).toBe(422);
    expect(res.body.error).toMatchObject({
      type: 'invalid_request_error',
      code: 'parameter_invalid',
      param,
    });
  });

  it('is 403 without settlements:read', async () => {
    const receivablesOnly = lists.money.principal({ permissions: ['receivables:read'] });
    expect((await lists.money.get('/api/v1/settlements', receivablesOnly)).statusCode).toBe(403);
  });
});
