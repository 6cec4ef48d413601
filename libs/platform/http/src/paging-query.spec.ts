import { Type } from '@sinclair/typebox';
import { buildApp, type App } from './build-app';
import { PagingQuery } from './schemas';

// Proves that the paging parameters of every list (PagingQuery) are integers written in decimal digits:
// ajv's coercion alone turned `page=0x10` into 16 and `limit=1e1` into 10.
describe('integer query parameters', () => {
  let app: App;

  beforeAll(async () => {
    app = buildApp({ name: 'paging', log: { level: 'silent' } });
    app.get(
      '/items',
      {
        schema: {
          querystring: Type.Object({ ...PagingQuery, status: Type.Optional(Type.String()) }),
        },
      },
      async (request) => ({ page: request.query.page, limit: request.query.limit }),
    );
    app.get(
      '/items/:n',
      { schema: { params: Type.Object({ n: Type.Integer({ minimum: -5 }) }) } },
      async (request) => ({ n: request.params.n }),
    );
    await app.ready();
  });
  afterAll(() => app.close());

  it.each([
    ['page', '0x10'],
    ['page', '1e3'],
    ['page', ' 5'],
    ['page', '5 '],
    ['page', '+5'],
    ['page', '0b11'],
    ['page', '0o7'],
    ['page', '1.0'],
    ['page', '１'],
    ['page', 'Infinity'],
    ['limit', '0x10'],
    ['limit', '1e1'],
    ['limit', '\t7'],
  ])('%s=%j is 422 parameter_invalid with that param', async (name, value) => {
    const res = await app.inject({ url: `/items?${name}=${encodeURIComponent(value)}` });
    expect([res.statusCode, res.json().error]).toEqual([
      422,
      {
        type: 'invalid_request_error',
        code: 'parameter_invalid',
        message: `${name}: must be an integer written in decimal digits`,
        param: name,
      },
    ]);
    expect(res.json().request_id).toBe(res.headers['x-request-id']);
  });

  it('a repeated parameter with one bad value is refused too; the schema bounds still apply to decimal values', async () => {
    const repeated = await app.inject({ url: '/items?page=2&page=0x10' });
    expect([repeated.statusCode, repeated.json().error.param]).toEqual([422, 'page']);
    const zero = await app.inject({ url: '/items?page=0' });
    expect([zero.statusCode, zero.json().error.code, zero.json().error.param]).toEqual([
      422,
      'parameter_invalid',
      'page',
    ]);
    const over = await app.inject({ url: '/items?limit=101' });
    expect([over.statusCode, over.json().error.param]).toEqual([422, 'limit']);
  });

  it('decimal digits are read as before: defaults, leading zeros, and a path integer with its sign', async () => {
    expect((await app.inject({ url: '/items' })).json()).toMatchObject({ page: 1, limit: 50 });
    expect((await app.inject({ url: '/items?page=007&limit=20&status=x' })).json()).toMatchObject({
      page: 7,
      limit: 20,
    });
    expect((await app.inject({ url: '/items/-3' })).json()).toMatchObject({ n: -3 });
    const hex = await app.inject({ url: '/items/0x1' });
    expect([hex.statusCode, hex.json().error.param]).toEqual([422, 'n']);
  });
});
