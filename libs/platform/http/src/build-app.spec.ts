import { Writable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import knex from 'knex';
import { ApiError, LoadShedError } from './errors';
import { buildApp, isDatabaseUnavailable } from './build-app';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, stream };
}

async function testApp() {
  const log = capture();
  const app = buildApp({ name: 'test', bodyLimitBytes: 256, log: { stream: log.stream } });
  app.post(
    '/things',
    {
      schema: {
        body: Type.Object(
          {
            amount: Type.Integer({ minimum: 1 }),
            buyer: Type.Object(
              {
                name: Type.String({ minLength: 2 }),
                address: Type.Object({ zip: Type.String() }, { additionalProperties: false }),
              },
              { additionalProperties: false },
            ),
          },
          { additionalProperties: false },
        ),
        response: { 201: Type.Object({ id: Type.String(), request_id: Type.String() }) },
      },
    },
    async (_request, reply) => reply.code(201).send({ id: 'thing_1', secret_field: 'x' } as never),
  );
  app.get('/boom', async () => {
    throw new Error('SELECT * FROM cards WHERE pan = 4111111111111111');
  });
  app.get('/declined', async () => {
    throw new ApiError('charge_not_refundable', 'The charge cannot be refunded.', null);
  });
  app.get('/shed', async () => {
    throw new LoadShedError('service_unavailable', 'The charges service is at capacity.', null, {
      'retry-after': '1',
    });
  });
  app.get('/unavailable', async () => {
    throw new ApiError('service_unavailable', 'The acquirer is unavailable.');
  });
  app.get(
    '/paged',
    {
      schema: {
        querystring: Type.Object({ page: Type.Optional(Type.Integer({ minimum: 1, default: 1 })) }),
      },
    },
    async (request) => ({ page: (request.query as { page: number }).page }),
  );
  await app.ready();
  return { app, log };
}

const valid = { amount: 100, buyer: { name: 'Ana', address: { zip: '01001000' } } };

describe('buildApp', () => {
  it('puts a req_ id on every success body and in X-Request-Id, and drops fields the schema does not allow', async () => {
    const { app } = await testApp();
    const res = await app.inject({ method: 'POST', url: '/things', payload: valid });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toEqual({
      id: 'thing_1',
      request_id: expect.stringMatching(/^req_[A-Za-z0-9]{24}$/),
    });
    expect(res.headers['x-request-id']).toBe(body.request_id);
    await app.close();
  });

  it.each([
    [
      'a missing nested field',
      { amount: 1, buyer: { name: 'Ana', address: {} } },
      'parameter_missing',
      'buyer.address.zip',
    ],
    [
      'an unknown nested field',
      { ...valid, buyer: { ...valid.buyer, age: 3 } },
      'parameter_unknown',
      'buyer.age',
    ],
    ['an unknown top-level field', { ...valid, extra: true }, 'parameter_unknown', 'extra'],
    [
      'a string where an integer goes (no coercion)',
      { ...valid, amount: '100' },
      'parameter_invalid',
      'amount',
    ],
    ['a value under its minimum', { ...valid, amount: 0 }, 'parameter_invalid', 'amount'],
  ])('answers 422 with the error body for %s', async (_name, payload, code, param) => {
    const { app } = await testApp();
    const res = await app.inject({ method: 'POST', url: '/things', payload });
    expect(res.statusCode).toBe(422);
    const body = res.json();
    expect(body).toEqual({
      error: { type: 'invalid_request_error', code, message: expect.any(String), param },
      request_id: expect.stringMatching(/^req_/),
    });
    expect(res.headers['x-request-id']).toBe(body.request_id);
    await app.close();
  });

  it('answers 422 invalid_json for a malformed body and 413 for one above the limit', async () => {
    const { app } = await testApp();
    const bad = await app.inject({
      method: 'POST',
      url: '/things',
      headers: { 'content-type': 'application/json' },
      payload: '{"amount": 1,',
    });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().error.code).toBe('invalid_json');
    const big = await app.inject({
      method: 'POST',
      url: '/things',
      payload: { ...valid, pad: 'x'.repeat(1000) },
    });
    expect(big.statusCode).toBe(413);
    expect(big.json().error).toMatchObject({
      type: 'invalid_request_error',
      code: 'request_too_large',
    });
    await app.close();
  });

  it('answers operating errors with their status and unknown routes with 404 resource_not_found', async () => {
    const { app } = await testApp();
    const declined = await app.inject({ method: 'GET', url: '/declined' });
    expect(declined.statusCode).toBe(422);
    expect(declined.json().error.code).toBe('charge_not_refundable');
    const missing = await app.inject({ method: 'GET', url: '/nowhere' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error).toEqual({
      type: 'not_found_error',
      code: 'resource_not_found',
      message: expect.any(String),
      param: null,
    });
    await app.close();
  });

  it('makes an operating error without a stack (an answer, not a bug) and leaves every other error its stack', () => {
    const shed = new LoadShedError('service_unavailable', 'The charges service is at capacity.');
    expect(shed.stack).toBe('ApiError: The charges service is at capacity.');
    expect(new ApiError('charge_not_refundable', 'No.').stack).not.toMatch(/\n\s+at /);
    // The limit is put back even when the message cannot be made (a throwing toString):
    expect(
      () =>
        new ApiError('resource_not_found', {
          toString: () => {
            throw new Error('unprintable');
          },
        } as never),
    ).toThrow('unprintable');
    expect(new Error('a bug').stack).toMatch(/\n\s+at /);
  });

  it('logs a 5xx at warn, except a request refused by admission control (counted by its metric), which is logged at debug', async () => {
    const { app, log } = await testApp();
    const shed = await app.inject({ method: 'GET', url: '/shed' });
    expect([shed.statusCode, shed.headers['retry-after'], shed.json().error.code]).toEqual([
      503,
      '1',
      'service_unavailable',
    ]);
    const unavailable = await app.inject({ method: 'GET', url: '/unavailable' });
    expect(unavailable.statusCode).toBe(503);
    const warned = log.lines
      .map((l) => JSON.parse(l) as { level: number; msg: string })
      .filter((l) => l.level >= 40)
      .map((l) => l.msg);
    expect(warned).toEqual(['The acquirer is unavailable.']);
    await app.close();
  });

  it('answers a bug with 500 internal_error and leaks neither the stack nor the message', async () => {
    const { app } = await testApp();
    const res = await app.inject({ method: 'GET', url: '/boom' });
    expect(res.statusCode).toBe(500);
    expect(res.json().error).toEqual({
      type: 'api_error',
      code: 'internal_error',
      message: 'An internal error occurred.',
      param: null,
    });
    expect(res.body).not.toMatch(/SELECT|4111|at .*\.ts/);
    await app.close();
  });

  it('answers a database it cannot reach (refused connection, knex out of pooled connections) with 503 and Retry-After, not 500', async () => {
    const app = buildApp({ name: 'test', log: { stream: capture().stream } });
    // Nothing listens on port 1: the real error pg and knex raise when PostgreSQL is down or restarting.
    const refused = knex({
      client: 'pg',
      connection: { host: '127.0.0.1', port: 1, user: 'postgres' },
      pool: { min: 0, max: 1 },
    });
    const starved = knex({
      client: 'pg',
      connection: { host: '127.0.0.1', port: 1, user: 'postgres' },
      pool: { min: 0, max: 1 },
      acquireConnectionTimeout: 50,
    });
    app.get('/refused', async () => refused.raw('select 1'));
    app.get('/starved', async () => starved.raw('select 1'));
    try {
      for (const url of ['/refused', '/starved']) {
        const res = await app.inject({ method: 'GET', url });
        expect([url, res.statusCode, res.headers['retry-after'], res.json().error.code]).toEqual([
          url,
          503,
          '1',
          'service_unavailable',
        ]);
      }
    } finally {
      await refused.destroy();
      await starved.destroy();
      await app.close();
    }
  });

  it.each([
    ['pg lost its socket', 'Connection terminated unexpectedly', true],
    [
      'a query knex ran when pg lost its socket (seen under PostgreSQL restart -m immediate)',
      'select "id" from "sellers" where "tenant_id" = $1 - Connection terminated unexpectedly',
      true,
    ],
    [
      'a broken pooled client',
      'select 1 - Client has encountered a connection error and is not queryable',
      true,
    ],
    [
      'a bug whose message merely mentions a connection',
      'select 1 - column "connection terminated" does not exist',
      false,
    ],
  ])('classifies %s as the database being unavailable: %s', (_what, message, expected) => {
    expect(isDatabaseUnavailable(new Error(message))).toBe(expected);
  });

  it('coerces and validates query strings: page=abc is a 422 on param page', async () => {
    const { app } = await testApp();
    expect((await app.inject({ method: 'GET', url: '/paged?page=2' })).json().page).toBe(2);
    const bad = await app.inject({ method: 'GET', url: '/paged?page=abc' });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().error).toMatchObject({ code: 'parameter_invalid', param: 'page' });
    await app.close();
  });

  it('never writes the Authorization header into a log line', async () => {
    const { app, log } = await testApp();
    app.log.info({ req: { headers: { authorization: 'Bearer sk_test_supersecret' } } }, 'probe');
    await app.inject({
      method: 'GET',
      url: '/declined',
      headers: { authorization: 'Bearer sk_test_supersecret' },
    });
    expect(log.lines.length).toBeGreaterThan(0);
    expect(log.lines.join('\n')).not.toContain('sk_test_supersecret');
    await app.close();
  });
});
