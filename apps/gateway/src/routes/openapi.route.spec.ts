import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildApp } from '@pgw/platform-http';
import { OPENAPI_PATH, registerOpenApiRoute } from './openapi.route';

// Proves the gateway serves the committed docs/openapi.json as it is, to anyone, as JSON.
describe('GET /api/v1/openapi.json (OpenAPI 3.1)', () => {
  const app = buildApp({ name: 'gateway', log: { level: 'silent' } });
  beforeAll(async () => {
    registerOpenApiRoute(app);
    await app.ready();
  });
  afterAll(() => app.close());

  it('answers the committed document as JSON, without an API key', async () => {
    const committed: unknown = JSON.parse(
      readFileSync(join(__dirname, '..', '..', '..', '..', 'docs', 'openapi.json'), 'utf8'),
    );
    const res = await app.inject({ method: 'GET', url: OPENAPI_PATH });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.json()).toEqual(committed);
    expect(res.json()).toHaveProperty('openapi');
  });

  it('answers 404 for another method or a path beside it', async () => {
    expect((await app.inject({ method: 'POST', url: OPENAPI_PATH })).statusCode).toBe(404);
    expect((await app.inject({ method: 'GET', url: `${OPENAPI_PATH}x` })).statusCode).toBe(404);
  });
});
