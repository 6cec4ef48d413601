// Proves that every public endpoint, fed through the gateway with a valid full-permission seller key,
// answers generated hostile input (bodies broken against their schema, bad Idempotency-Keys and content
// types, junk path ids, junk paging) with a contract error body and a 4xx: never a 5xx, a stack or SQL,
// and always with request_id equal to X-Request-Id.
import fc from 'fast-check';
import { PUBLIC_ROUTES, type PublicRoute } from '@pgw/gateway';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startAllInOne, type AllInOne } from '../all-in-one';
import {
  buyer,
  Client,
  contractErrorProblem,
  hasIdParam,
  pathOf,
  provisionParty,
  type Answer,
  type Party,
} from './harness';
import {
  badContentType,
  badIdempotencyKey,
  badId,
  badQuery,
  invalidBody,
  type JsonSchema,
} from './hostile-arbitraries';

// Runs per property; the totals are in the test names. Sized for a loaded 2-core machine.
const BODY_RUNS = 250;
const PATH_RUNS = 120;
const QUERY_RUNS = 120;
const HEADER_RUNS = 40;

let system: AllInOne;
let client: Client;
let party: Party;
let paidChargeId: string;
let cardToken: string;

const openApi = JSON.parse(
  readFileSync(join(__dirname, '..', '..', '..', '..', 'docs', 'openapi.json'), 'utf8'),
) as { paths: unknown };

type Operation = {
  parameters?: { in: string; name: string }[];
  requestBody?: { content: { 'application/json': { schema: JsonSchema } } };
};
const operationOf = (route: PublicRoute): Operation =>
  (openApi.paths as Record<string, Record<string, Operation>>)[
    route.url.replace(/:([A-Za-z_]+)/g, '{$1}')
  ]![route.method.toLowerCase()]!;

beforeAll(async () => {
  system = await startAllInOne({
    dataDir: null,
    port: 0,
    demo: false,
    log: { level: 'silent' },
    env: { ...process.env, RATE_LIMIT_PER_SECOND: '100000' },
  });
  client = new Client(system, '');
  party = await provisionParty(client, 'Hostile', 7);
  const token = await client.call('POST', '/api/v1/payment-methods/tokenize', {
    bearer: party.testKey,
    body: {
      card: {
        number: '4111 1111 1111 1111',
        exp_month: 12,
        exp_year: 2031,
        cvv: '123',
        holder_name: 'MARIA OLIVEIRA',
      },
    },
  });
  cardToken = token.body.id;
  const paid = await client.call('POST', '/api/v1/charges', {
    bearer: party.testKey,
    body: {
      amount: 5_000,
      payment_method: 'CREDIT_CARD',
      installments: 1,
      card_token: cardToken,
      buyer: buyer(71),
    },
  });
  if (paid.status !== 201) throw new Error(`setup charge: ${paid.text}`);
  paidChargeId = paid.body.id;
}, 120_000);

afterAll(async () => {
  await system?.stop();
});

/** A valid body per POST route: the mutations break exactly one thing of it. */
function baseBody(route: PublicRoute): Record<string, unknown> {
  switch (route.url) {
    case '/api/v1/payment-methods/tokenize':
      return {
        card: {
          number: '4111111111111111',
          exp_month: 12,
          exp_year: 2031,
          cvv: '123',
          holder_name: 'MARIA OLIVEIRA',
        },
        billing_address: {
          country: 'BR',
          zip_code: '20040030',
          state: 'RJ',
          city: 'Rio de Janeiro',
          line_1: 'Rua do Ouvidor, 50',
          line_2: 'sala 1',
        },
        metadata: { order: '1' },
      };
    case '/api/v1/charges':
      return {
        amount: 1_000,
        currency: 'BRL',
        payment_method: 'CREDIT_CARD',
        capture_method: 'automatic',
        installments: 2,
        card_token: cardToken,
        security_code: '123',
        buyer: {
          ...buyer(72),
          ip: '203.0.113.9',
          address: { ...buyer(72).address, line_2: 'apto 1', country: 'BR' },
        },
        split: [{ recipient_seller_id: party.otherSellerId, amount_cents: 100 }],
        metadata: { order: '1' },
      };
    case '/api/v1/charges/:id/refund':
      return { amount_cents: 100, reason: 'hostile' };
    case '/api/v1/anticipations/simulate':
    case '/api/v1/anticipations':
      return { receivable_ids: ['recv_doesnotexist'] };
    default:
      return {};
  }
}

const idFor = (route: PublicRoute) =>
  route.url.startsWith('/api/v1/charges/') ? paidChargeId : 'x';

async function send(
  route: PublicRoute,
  path: string,
  body: string | undefined,
  headers: Record<string, string>,
): Promise<Answer> {
  return client.call(route.method, path, {
    bearer: party.testKey,
    ...(body !== undefined ? { body } : {}),
    headers,
  });
}

/** A request to send, with what it is for the failure message. */
type Probe = { what: string; send: () => Promise<Answer> };
const probe = (what: string, send: () => Promise<Answer>): Probe => ({
  what: what.length > 300 ? `${what.slice(0, 300)}… (${what.length} chars)` : what,
  send,
});

async function check(numRuns: number, arbitrary: fc.Arbitrary<Probe>): Promise<void> {
  await fc.assert(
    fc.asyncProperty(arbitrary, async (request) => {
      const problem = contractErrorProblem(await request.send());
      if (problem !== null) throw new Error(`${request.what}\n→ ${problem}`);
    }),
    // Shrinking re-sends many requests; the first counterexample, with its seed, is enough to reproduce.
    { numRuns, endOnFailure: true },
  );
}

const posts = PUBLIC_ROUTES.filter((r) => r.method === 'POST');
const withBody = posts.filter((r) => operationOf(r).requestBody !== undefined);
const withId = PUBLIC_ROUTES.filter(hasIdParam);
const paged = PUBLIC_ROUTES.filter((r) =>
  operationOf(r).parameters?.some((p) => p.in === 'query' && p.name === 'page'),
);
const idempotent = PUBLIC_ROUTES.filter((r) =>
  operationOf(r).parameters?.some((p) => p.in === 'header' && p.name === 'Idempotency-Key'),
);

describe('hostile input through the gateway', () => {
  it('covers every public route in at least one family', () => {
    // Proves the families below reach the whole of PUBLIC_ROUTES (the junk-suffix family takes the rest).
    expect(new Set([...withBody, ...withId, ...paged, ...idempotent, ...PUBLIC_ROUTES]).size).toBe(
      PUBLIC_ROUTES.length,
    );
    expect(withBody.length).toBeGreaterThanOrEqual(5);
  });

  it('a JSON null body is refused (422) on every POST with a body, and refunds nothing', async () => {
    // Proves the regression found here: charges read `null` as no body, so a refund of `null` refunded everything.
    for (const route of withBody) {
      const answer = await send(route, pathOf(route, idFor(route)), 'null', {
        'content-type': 'application/json',
      });
      expect([route.url, answer.status, contractErrorProblem(answer)]).toEqual([
        route.url,
        422,
        null,
      ]);
    }
    const charge = await client.call('GET', `/api/v1/charges/${paidChargeId}`, {
      bearer: party.testKey,
    });
    expect(charge.body.refunded_cents ?? 0).toBe(0);
  }, 120_000);

  it.each(withBody.map((r) => [`${r.method} ${r.url}`, r] as const))(
    `%s: ${BODY_RUNS} bodies broken against the schema → 4xx`,
    async (_name, route) => {
      const schema = operationOf(route).requestBody!.content['application/json'].schema;
      await check(
        BODY_RUNS,
        invalidBody(schema, baseBody(route)).map((raw) =>
          probe(`body ${raw}`, () =>
            send(route, pathOf(route, idFor(route)), raw, { 'content-type': 'application/json' }),
          ),
        ),
      );
    },
    120_000,
  );

  it.each(withId.map((r) => [`${r.method} ${r.url}`, r] as const))(
    `%s: ${PATH_RUNS} junk ids → 404`,
    async (_name, route) => {
      await check(
        PATH_RUNS,
        badId.map((id) =>
          probe(`id ${id}`, async () => {
            const answer = await send(
              route,
              pathOf(route, id),
              route.method === 'POST' ? JSON.stringify(baseBody(route)) : undefined,
              route.method === 'POST' ? { 'content-type': 'application/json' } : {},
            );
            // A junk id is 404; an id so long that the request line is refused may be 414/431, still a contract body.
            if (answer.status === 200 || answer.status === 201)
              throw new Error(`junk id ${id.slice(0, 80)} answered ${answer.status}`);
            return answer;
          }),
        ),
      );
    },
    120_000,
  );

  it.each(PUBLIC_ROUTES.map((r) => [`${r.method} ${r.url}`, r] as const))(
    `%s: 30 junk path suffixes and encodings → 4xx`,
    async (_name, route) => {
      await check(
        30,
        fc
          .tuple(badId, fc.constantFrom('/', '/%2F', '//', '/..', '%2F', '/.%2e/', ';', '/%00/'))
          .map(([junk, sep]) =>
            probe(`suffix ${sep}${junk}`, () =>
              send(route, `${pathOf(route, idFor(route))}${sep}${junk}`, undefined, {}),
            ),
          ),
      );
    },
    120_000,
  );

  it.each(paged.map((r) => [`${r.method} ${r.url}`, r] as const))(
    `%s: ${QUERY_RUNS} junk paging and status queries → 422`,
    async (_name, route) => {
      const hasStatus = operationOf(route).parameters!.some((p) => p.name === 'status');
      await check(
        QUERY_RUNS,
        badQuery(hasStatus).map((query) =>
          probe(`query ${query}`, () => send(route, `${route.url}?${query}`, undefined, {})),
        ),
      );
    },
    120_000,
  );

  it.each(idempotent.map((r) => [`${r.method} ${r.url}`, r] as const))(
    `%s: ${HEADER_RUNS} bad Idempotency-Keys on a valid body → 422`,
    async (_name, route) => {
      await check(
        HEADER_RUNS,
        badIdempotencyKey.map((key) =>
          probe(`Idempotency-Key of ${key.length}`, async () => {
            const answer = await send(
              route,
              pathOf(route, idFor(route)),
              JSON.stringify(baseBody(route)),
              { 'content-type': 'application/json', 'idempotency-key': key },
            );
            if (answer.status !== 422 || answer.body?.error?.param !== 'Idempotency-Key')
              throw new Error(
                `key of ${key.length} characters: ${answer.status} ${answer.text.slice(0, 200)}`,
              );
            return answer;
          }),
        ),
      );
    },
    120_000,
  );

  it.each(posts.map((r) => [`${r.method} ${r.url}`, r] as const))(
    `%s: ${HEADER_RUNS} non-JSON content types → 4xx`,
    async (_name, route) => {
      await check(
        HEADER_RUNS,
        fc
          .tuple(
            badContentType,
            fc.constantFrom(JSON.stringify(baseBody(route)), 'a=1&b=2', '<x/>', ''),
          )
          .map(([type, body]) =>
            probe(`${type}: ${body}`, () =>
              send(route, pathOf(route, idFor(route)), body, { 'content-type': type }),
            ),
          ),
      );
    },
    120_000,
  );
});
