// GET /api/v1/receivables and /api/v1/receivables/{id}: paging, filters, scope and errors.
import { listsFixture } from '../scenarios/lists.fixture';

const lists = listsFixture();

describe('GET /api/v1/receivables and /api/v1/receivables/{id}', () => {
  it('pages receivables most recent first, with the list envelope, and filters by status', async () => {
    const all = await lists.money.get('/api/v1/receivables?limit=3&page=1');
    expect(all.statusCode).toBe(200);
    expect(all.body).toMatchObject({
      object: 'list',
      page: 1,
      limit: 3,
      total: 8,
      total_pages: 3,
      request_id: expect.stringMatching(/^req_/),
    });
    expect(all.body.data).toHaveLength(3);
    expect(all.body.data[0].installments).toBe(3); // the 3x charge came last
    const pages = [1, 2, 3].map((page) =>
      lists.money.get(`/api/v1/receivables?limit=3&page=${page}`),
    );
    const ids = (await Promise.all(pages)).flatMap((p) => p.body.data.map((r: any) => r.id));
    expect(new Set(ids).size).toBe(8);
    const beyond = await lists.money.get('/api/v1/receivables?limit=3&page=4');
    expect(beyond.body).toMatchObject({ data: [], total: 8, page: 4 });
    const paid = await lists.money.get('/api/v1/receivables?status=paid');
    expect(paid.body.data.map((r: any) => r.status)).toEqual(['paid', 'paid']);
    expect((await lists.money.get('/api/v1/receivables?status=pending')).body.total).toBe(6);
    expect((await lists.money.get('/api/v1/receivables?status=anticipated')).body.total).toBe(0);
  });

  it("narrows receivables to one charge's with charge_id, and refuses an id that is not a charge's", async () => {
    // Proves the filter the dashboard's charge page reads: the 3x charge's three installments, nothing of another seller's charge to a seller key.
    const three = [...lists.charges.keys()].pop()!;
    const own = await lists.money.get(`/api/v1/receivables?charge_id=${three}`);
    expect(own.body.data.map((r: any) => [r.charge_id, r.installment]).sort()).toEqual([
      [three, 1],
      [three, 2],
      [three, 3],
    ]);
    expect(own.body.total).toBe(3);
    const otherSellers = [...lists.charges.keys()][0]!;
    expect(
      (
        await lists.money.get(
          `/api/v1/receivables?charge_id=${otherSellers}`,
          lists.money.principal({ sellerId: 'seller_own' }),
        )
      ).body.total,
    ).toBe(0);
    expect(
      (await lists.money.get(`/api/v1/receivables?charge_id=${otherSellers}`)).body.total,
    ).toBe(1);
    const invalid = await lists.money.get('/api/v1/receivables?charge_id=recv_1');
    expect([invalid.statusCode, invalid.body.error.code, invalid.body.error.param]).toEqual([
      422,
      'parameter_invalid',
      'charge_id',
    ]);
  });

  it('scopes the list to the key seller, when the key has one', async () => {
    const mine = await lists.money.get(
      '/api/v1/receivables',
      lists.money.principal({ sellerId: 'seller_other' }),
    );
    expect(mine.body.total).toBe(2);
    expect(mine.body.data.every((r: any) => r.seller_id === 'seller_other')).toBe(true);
  });

  it.each([
    ['/api/v1/receivables?status=settled', 'status'],
    ['/api/v1/receivables?page=0', 'page'],
    ['/api/v1/receivables?limit=101', 'limit'],
    ['/api/v1/receivables?limit=0', 'limit'],
    ['/api/v1/receivables?limit=abc', 'limit'],
    ['/api/v1/receivables?page=1.5', 'page'],
  ])('answers 422 parameter_invalid for %s', async (url, param) => {
    const res = await lists.money.get(url);
    expect(res.statusCode).toBe(422);
    expect(res.body.error).toMatchObject({
      type: 'invalid_request_error',
      code: 'parameter_invalid',
      param,
    });
  });

  it('retrieves a receivable as the list shows it, and answers 404 for a bad pattern, another tenant or the other environment', async () => {
    const [r] = (await lists.money.get('/api/v1/receivables?status=paid&limit=1')).body.data;
    const url = `/api/v1/receivables/${r.id}`;
    expect((await lists.money.get(url)).body).toEqual({
      ...r,
      request_id: expect.stringMatching(/^req_/),
    });
    expect(
      (await lists.money.get(url, lists.money.principal({ tenantId: 'ten_someoneelse' })))
        .statusCode,
    ).toBe(404);
    expect((await lists.money.get(url, lists.money.principal({ livemode: true }))).statusCode).toBe(
      404,
    );
    for (const bad of [
      '/api/v1/receivables/recv_nope',
      '/api/v1/receivables/ch_abc',
      '/api/v1/receivables/recv_a-b',
    ]) {
      const res = await lists.money.get(bad);
      expect(res.statusCode).toBe(404);
      expect(res.body.error).toMatchObject({ type: 'not_found_error', code: 'resource_not_found' });
    }
  });

  it('checks the permission and the principal itself, whatever the gateway did', async () => {
    const settlementsOnly = lists.money.principal({ permissions: ['settlements:read'] });
    expect((await lists.money.get('/api/v1/receivables', settlementsOnly)).statusCode).toBe(403);
    expect(
      (await lists.money.receivables.app.inject({ method: 'GET', url: '/api/v1/receivables' }))
        .statusCode,
    ).toBe(401);
  });
});
