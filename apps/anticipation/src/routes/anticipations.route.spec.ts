import { createPgliteKnex } from '@pgw/platform-db';
import { Harness } from '../testing/harness';

jest.setTimeout(60_000);
const knex = createPgliteKnex(null);
let h: Harness;
const created: any[] = [];

beforeAll(async () => {
  h = await Harness.start(knex);
  await h.tenant(10_000_000);
  await h.seller('seller_a');
  await h.seller('seller_b');
  // Three anticipations of seller_a, a minute apart, and one of seller_b.
  for (const due of ['2026-04-01', '2026-04-02', '2026-04-03']) {
    const id = await h.receivable('seller_a', { due_date: due });
    const res = await h.execute({ receivable_ids: [id] });
    if (res.statusCode !== 201) throw new Error(JSON.stringify(res.body));
    created.push(res.body);
    h.clock.set(new Date(h.clock.now().getTime() + 60_000));
  }
  await h.receivable('seller_b');
  const other = await h.execute(undefined, { principal: h.principal({ sellerId: 'seller_b' }) });
  if (other.statusCode !== 201) throw new Error(JSON.stringify(other.body));
  created.push(other.body);
}, 120_000);

afterAll(async () => {
  await h?.stop();
  await knex.destroy();
});

const strip = ({ request_id: _r, ...rest }: { request_id: string }) => rest;

describe('GET /api/v1/anticipations', () => {
  it("lists the seller's anticipations most recent first, in pages, with the list envelope", async () => {
    // Proves order, paging (page, limit, total, total_pages) and that items are the resource of §4a.
    const page1 = await h.request('GET', '/api/v1/anticipations?limit=2');
    expect(page1.statusCode).toBe(200);
    expect(page1.body).toMatchObject({
      object: 'list',
      page: 1,
      limit: 2,
      total: 3,
      total_pages: 2,
      request_id: expect.stringMatching(/^req_/),
    });
    expect(page1.body.data).toEqual([strip(created[2]), strip(created[1])]);
    const page2 = await h.request('GET', '/api/v1/anticipations?limit=2&page=2');
    expect(page2.body).toMatchObject({ page: 2, total: 3, total_pages: 2 });
    expect(page2.body.data).toEqual([strip(created[0])]);
    const beyond = await h.request('GET', '/api/v1/anticipations?limit=2&page=3');
    expect(beyond.body).toMatchObject({ data: [], total: 3 });
    const all = await h.request('GET', '/api/v1/anticipations');
    expect(all.body).toMatchObject({ page: 1, limit: 50, total: 3, total_pages: 1 });
  });

  it('shows each seller only its own, and nothing of the other environment or tenant', async () => {
    // Proves the list's scope: seller, environment and tenant from the principal.
    expect(
      (
        await h.request('GET', '/api/v1/anticipations', {
          principal: h.principal({ sellerId: 'seller_b' }),
        })
      ).body.data,
    ).toEqual([strip(created[3])]);
    expect(
      (
        await h.request('GET', '/api/v1/anticipations', {
          principal: h.principal({ livemode: true }),
        })
      ).body,
    ).toMatchObject({ data: [], total: 0, total_pages: 0 });
    expect(
      (
        await h.request('GET', '/api/v1/anticipations', {
          principal: h.principal({ tenantId: 'ten_other' }),
        })
      ).body,
    ).toMatchObject({ data: [], total: 0 });
  });

  it.each([['page=0'], ['limit=0'], ['limit=101'], ['page=x'], ['limit=1.5']])(
    'answers 422 parameter_invalid for %s',
    async (query) => {
      // Proves contract §4a's paging rule on this list.
      const res = await h.request('GET', `/api/v1/anticipations?${query}`);
      expect([res.statusCode, res.body.error.code]).toEqual([422, 'parameter_invalid']);
    },
  );

  it('needs a seller-scoped key with anticipations:read', async () => {
    // Proves the list's scope check.
    expect(
      (
        await h.request('GET', '/api/v1/anticipations', {
          principal: h.principal({ sellerId: null }),
        })
      ).body.error.code,
    ).toBe('seller_scope_required');
    expect(
      (
        await h.request('GET', '/api/v1/anticipations', {
          principal: h.principal({ permissions: ['anticipations:create'] }),
        })
      ).body.error.code,
    ).toBe('permission_denied');
  });
});

describe('GET /api/v1/anticipations/{id}', () => {
  it('answers the anticipation as POST answered it', async () => {
    // Proves retrieval returns the same resource, with its own request_id.
    const res = await h.request('GET', `/api/v1/anticipations/${created[0].id}`);
    expect(res.statusCode).toBe(200);
    expect(strip(res.body)).toEqual(strip(created[0]));
    expect(res.body.request_id).toMatch(/^req_/);
  });

  it.each([
    ['another seller', () => created[3].id, {}],
    ['the other environment', () => created[0].id, { livemode: true }],
    ['another tenant', () => created[0].id, { tenantId: 'ten_other' }],
    ['an unknown id', () => 'ant_doesnotexist', {}],
    ['an id off its pattern', () => 'ant_a-b', {}],
    ['another prefix', () => 'recv_abc', {}],
  ])('answers 404 resource_not_found for %s', async (_what, id, principal) => {
    // Proves a foreign or malformed id is indistinguishable from a missing one.
    const res = await h.request('GET', `/api/v1/anticipations/${id()}`, {
      principal: h.principal(principal),
    });
    expect([res.statusCode, res.body.error.type, res.body.error.code]).toEqual([
      404,
      'not_found_error',
      'resource_not_found',
    ]);
  });
});
