import { Gateway } from './gateway';
import type { FetchFn } from './transport';

// The network is a function here, as in transport.spec.ts: what the SDK asks for is what these tests read.

const page = (data: Array<{ id: string }>, pageNumber: number, totalPages: number) =>
  new Response(
    JSON.stringify({
      object: 'list',
      data,
      page: pageNumber,
      limit: 1,
      total: totalPages,
      total_pages: totalPages,
      request_id: 'req_1',
    }),
    {
      status: 200,
      headers: { 'content-type': 'application/json' },
    },
  );

describe("a charge's refunds and events", () => {
  it('are read from /charges/{id}/refunds and /events, page after page, with the key', async () => {
    // Proves the two list methods put the charge id in the path and page through the list envelope like every other list.
    const asked: string[] = [];
    const fetch: FetchFn = async (request) => {
      asked.push(
        `${request.method} ${new URL(request.url).pathname}${new URL(request.url).search} ${request.headers.get('authorization')}`,
      );
      const n = Number(new URL(request.url).searchParams.get('page'));
      return page([{ id: `item_${n}` }], n, 2);
    };
    const gateway = new Gateway({ apiKey: 'sk_test_abc', baseUrl: 'http://gateway.test', fetch });
    expect(
      (await gateway.charges.events('ch_1', { limit: 1 }).toArray(10)).map((e) => e.id),
    ).toEqual(['item_1', 'item_2']);
    expect((await gateway.charges.refunds('ch_1', { limit: 1 })).data.map((r) => r.id)).toEqual([
      'item_1',
    ]);
    expect(asked).toEqual([
      'GET /api/v1/charges/ch_1/events?limit=1&page=1 Bearer sk_test_abc',
      'GET /api/v1/charges/ch_1/events?limit=1&page=2 Bearer sk_test_abc',
      'GET /api/v1/charges/ch_1/refunds?limit=1&page=1 Bearer sk_test_abc',
    ]);
  });
});
