import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildApp } from '@pgw/platform-http';
import { ASYNCAPI_PATH, registerAsyncApiRoute } from './asyncapi.route';

// Proves the gateway serves the committed docs/asyncapi.json as it is, to anyone, as JSON.
describe('GET /api/v1/asyncapi.json (AsyncAPI 3)', () => {
  const app = buildApp({ name: 'gateway', log: { level: 'silent' } });
  beforeAll(async () => {
    registerAsyncApiRoute(app);
    await app.ready();
  });
  afterAll(() => app.close());

  it('answers the committed document as JSON, without an API key', async () => {
    const committed: unknown = JSON.parse(
      readFileSync(join(__dirname, '..', '..', '..', '..', 'docs', 'asyncapi.json'), 'utf8'),
    );
    const res = await app.inject({ method: 'GET', url: ASYNCAPI_PATH });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.json()).toEqual(committed);
    expect(res.json()).toHaveProperty('asyncapi');
  });

  it('answers 404 for another method or a path beside it', async () => {
    expect((await app.inject({ method: 'POST', url: ASYNCAPI_PATH })).statusCode).toBe(404);
    expect((await app.inject({ method: 'GET', url: `${ASYNCAPI_PATH}x` })).statusCode).toBe(404);
  });
});
