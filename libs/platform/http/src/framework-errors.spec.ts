import { buildApp } from './build-app';

describe('buildApp: the router refuses a path', () => {
  it('with the contract 404 body and X-Request-Id, for an over-long parameter and a malformed escape', async () => {
    // Proves the router's own refusals, which skip the error handler, still answer the contract's body.
    const app = buildApp({ name: 'test', log: { level: 'silent' } });
    app.get('/things/:id', async () => ({ ok: true }));
    await app.ready();
    for (const url of [`/things/${'a'.repeat(5_000)}`, '/things/%E0%A4%A']) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(404);
      const body = res.json();
      expect(body).toEqual({
        error: {
          type: 'not_found_error',
          code: 'resource_not_found',
          message: expect.any(String),
          param: null,
        },
        request_id: expect.stringMatching(/^req_/),
      });
      expect(res.headers['x-request-id']).toBe(body.request_id);
    }
    await app.close();
  });
});
