// Proves, by a sweep over PUBLIC_ROUTES rather than a hand-picked few, that nobody sees what is not
// theirs: every object of tenant A's test environment (charges of each method, a refund's charge, a
// chargeback, receivables, a settlement, an anticipation) is 404 to tenant B's key, to tenant A's own live
// key, and, where the route is seller-scoped, to A's key of another seller; POSTs on those ids change
// nothing; and no list or balance of theirs mentions any of A's objects.
import { PUBLIC_ROUTES, type PublicRoute } from '@pgw/gateway';
import { startAllInOne, type AllInOne } from '../all-in-one';
import {
  buyer,
  Client,
  contractErrorProblem,
  hasIdParam,
  pathOf,
  provisionParty,
  today,
  type Answer,
  type Party,
} from './harness';

let system: AllInOne;
let client: Client;
let a: Party;
let b: Party;
/** A's test objects by the collection of the route that reads them (`charges`, `receivables`, …). */
const objects = new Map<string, string[]>();
let tokenA: string;

const collectionOf = (route: PublicRoute) => route.url.split('/')[3]!;
const add = (collection: string, id: string) =>
  objects.set(collection, [...(objects.get(collection) ?? []), id]);
const allIds = () => [...objects.values()].flat();

async function poll<T>(
  what: string,
  read: () => Promise<T | undefined>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function ok(answer: Answer, status: number, what: string): Answer {
  if (answer.status !== status)
    throw new Error(`${what}: ${answer.status} ${answer.text.slice(0, 300)}`);
  return answer;
}

beforeAll(async () => {
  system = await startAllInOne({
    dataDir: null,
    port: 0,
    demo: false,
    log: { level: 'silent' },
    env: { ...process.env, RATE_LIMIT_PER_SECOND: '100000' },
  });
  client = new Client(system, '');
  a = await provisionParty(client, 'Tenant A', 101);
  b = await provisionParty(client, 'Tenant B', 202);
  const asA = (method: string, path: string, body?: unknown) =>
    client.call(method, path, { bearer: a.testKey, ...(body !== undefined ? { body } : {}) });

  tokenA = ok(
    await asA('POST', '/api/v1/payment-methods/tokenize', {
      card: {
        number: '4111 1111 1111 1111',
        exp_month: 12,
        exp_year: 2031,
        cvv: '123',
        holder_name: 'ANA A',
      },
    }),
    201,
    'tokenize',
  ).body.id;
  const charge = async (body: Record<string, unknown>) =>
    ok(await asA('POST', '/api/v1/charges', { buyer: buyer(11), ...body }), 201, 'charge').body;
  const credit = await charge({
    amount: 30_000,
    payment_method: 'CREDIT_CARD',
    installments: 3,
    card_token: tokenA,
  });
  const refunded = await charge({
    amount: 9_000,
    payment_method: 'CREDIT_CARD',
    installments: 1,
    card_token: tokenA,
  });
  ok(
    await asA('POST', `/api/v1/charges/${refunded.id}/refund`, { amount_cents: 1_000 }),
    201,
    'refund',
  );
  const debit = await charge({
    amount: 4_000,
    payment_method: 'DEBIT_CARD',
    installments: 1,
    card_token: tokenA,
  });
  const held = await charge({
    amount: 5_000,
    payment_method: 'CREDIT_CARD',
    installments: 1,
    card_token: tokenA,
    capture_method: 'manual',
  });
  const pix = await charge({ amount: 2_500, payment_method: 'PIX' });
  ok(await client.admin('POST', `/admin/v1/simulations/charges/${pix.id}/pay`), 200, 'pix pay');
  const boleto = await charge({ amount: 15_000, payment_method: 'BOLETO' });
  const disputed = await charge({
    amount: 7_000,
    payment_method: 'CREDIT_CARD',
    installments: 1,
    card_token: tokenA,
  });
  const chargeback = ok(
    await client.admin('POST', '/admin/v1/simulations/chargebacks', { charge_id: disputed.id }),
    201,
    'chargeback',
  ).body;
  for (const c of [credit, refunded, debit, held, pix, boleto, disputed]) add('charges', c.id);
  add('chargebacks', chargeback.id);

  const receivables = await poll('receivables', async () => {
    const list = (await asA('GET', '/api/v1/receivables?limit=100')).body;
    return list.data?.some((r: { charge_id: string }) => r.charge_id === credit.id) &&
      list.data.some((r: { charge_id: string }) => r.charge_id === pix.id)
      ? (list.data as { id: string; charge_id: string; status: string }[])
      : undefined;
  });
  if (system.services.some((s) => s.name === 'anticipation')) {
    const eligible = receivables
      .filter((r) => r.charge_id === credit.id && r.status === 'pending')
      .map((r) => r.id);
    const anticipation = ok(
      await asA('POST', '/api/v1/anticipations', { receivable_ids: eligible.slice(0, 1) }),
      201,
      'anticipation',
    ).body;
    add('anticipations', anticipation.id);
  }
  ok(
    await client.admin('POST', '/admin/v1/jobs/receivables-release', { as_of_date: today() }),
    200,
    'release',
  );
  ok(
    await client.admin('POST', '/admin/v1/jobs/settlement-run', { as_of_date: today() }),
    200,
    'settlement-run',
  );
  const settlements = await poll('a settlement', async () => {
    const list = (await asA('GET', '/api/v1/settlements')).body;
    return list.data?.length > 0 ? (list.data as { id: string }[]) : undefined;
  });
  for (const s of settlements) add('settlements', s.id);
  for (const r of (await asA('GET', '/api/v1/receivables?limit=100')).body.data as { id: string }[])
    add('receivables', r.id);
}, 180_000);

afterAll(async () => {
  await system?.stop();
});

const idRoutes = PUBLIC_ROUTES.filter(hasIdParam);
const listRoutes = PUBLIC_ROUTES.filter((r) => r.method === 'GET' && !hasIdParam(r));

/** The keys that must not see A's test objects through `route`. */
function strangers(route: PublicRoute): [string, () => string][] {
  return [
    ['tenant B (test)', () => b.testKey],
    ['tenant A (live)', () => a.liveKey],
    ...(route.sellerScope
      ? ([['tenant A, another seller (test)', () => a.otherSellerKey]] as [string, () => string][])
      : []),
  ];
}

const bodyFor = (route: PublicRoute) =>
  route.url.endsWith('/refund') ? { amount_cents: 1 } : undefined;

describe('isolation sweep over PUBLIC_ROUTES', () => {
  it('has A test objects for every route with an id, and A itself reads each (200)', async () => {
    // Proves the sweep below is not vacuous: every id route has real objects that their owner can see.
    for (const route of idRoutes.filter((r) => r.method === 'GET')) {
      if (
        route.service === 'anticipation' &&
        !system.services.some((s) => s.name === 'anticipation')
      )
        continue;
      const ids = objects.get(collectionOf(route)) ?? [];
      expect([route.url, ids.length > 0]).toEqual([route.url, true]);
      for (const id of ids) {
        const res = await client.call('GET', pathOf(route, id), { bearer: a.testKey });
        expect([route.url, id, res.status]).toEqual([route.url, id, 200]);
      }
    }
  }, 120_000);

  it.each(idRoutes.map((r) => [`${r.method} ${r.url}`, r] as const))(
    '%s: 404 to every stranger for each of A test objects',
    async (_name, route) => {
      // Proves §4a: an object of another tenant, of the other environment or (seller scope) of another seller is 404.
      const ids = objects.get(collectionOf(route)) ?? [];
      for (const id of ids) {
        const before =
          route.method === 'POST'
            ? (await client.call('GET', `/api/v1/charges/${id}`, { bearer: a.testKey })).text
            : null;
        for (const [who, key] of strangers(route)) {
          const body = bodyFor(route);
          const res = await client.call(route.method, pathOf(route, id), {
            bearer: key(),
            ...(body !== undefined ? { body } : {}),
          });
          expect([
            who,
            route.url,
            id,
            res.status,
            res.body?.error?.code,
            contractErrorProblem(res),
          ]).toEqual([who, route.url, id, 404, 'resource_not_found', null]);
        }
        if (before !== null) {
          // A POST of a stranger changed nothing: the charge reads the same to its owner (but for request_id).
          const after = (await client.call('GET', `/api/v1/charges/${id}`, { bearer: a.testKey }))
            .text;
          expect(after.replace(/req_[A-Za-z0-9_-]+/g, '')).toBe(
            before.replace(/req_[A-Za-z0-9_-]+/g, ''),
          );
        }
      }
    },
    120_000,
  );

  it.each(listRoutes.map((r) => [`${r.method} ${r.url}`, r] as const))(
    '%s: no stranger answer mentions any of A test objects',
    async (_name, route) => {
      // Proves lists and the balance of B, of A-live and (seller scope) of A's other seller hold nothing of A-test.
      const mine = await client.call('GET', route.url, { bearer: a.testKey });
      expect(mine.status).toBe(200);
      for (const [who, key] of strangers(route)) {
        const res = await client.call(
          'GET',
          `${route.url}${route.url === '/api/v1/balance' ? '' : '?limit=100'}`,
          { bearer: key() },
        );
        expect([who, res.status]).toEqual([who, 200]);
        const leaked = allIds().filter((id) => res.text.includes(id));
        expect([who, route.url, leaked]).toEqual([who, route.url, []]);
        if (Array.isArray(res.body.data))
          expect([who, route.url, res.body.total]).toEqual([who, route.url, 0]);
      }
    },
    120_000,
  );

  it("refuses A's objects in a stranger's request body: A's card token, A's receivables", async () => {
    // Proves references inside bodies are scoped too: no charge on another tenant's token, no anticipation of its receivables.
    for (const [who, key] of strangers({ sellerScope: true } as PublicRoute)) {
      const charge = await client.call('POST', '/api/v1/charges', {
        bearer: key(),
        body: {
          buyer: buyer(12),
          amount: 1_000,
          payment_method: 'CREDIT_CARD',
          installments: 1,
          card_token: tokenA,
        },
      });
      expect([
        who,
        charge.status >= 400 && charge.status < 500,
        contractErrorProblem(charge),
      ]).toEqual([who, true, null]);
      if (system.services.some((s) => s.name === 'anticipation')) {
        // The answer may echo the ids the caller sent; it must be the answer for ids that exist nowhere.
        const receivableIds = (objects.get('receivables') ?? []).slice(0, 100);
        const fakeIds = receivableIds.map((_, i) => `recv_nowhere${i}x`);
        const normalized = (answer: Answer, ids: string[]) =>
          `${answer.status} ${ids.reduce((text, id, i) => text.split(id).join(`<id ${i}>`), answer.text).replace(/req_[A-Za-z0-9_-]+/g, '')}`;
        for (const path of ['/api/v1/anticipations/simulate', '/api/v1/anticipations']) {
          const res = await client.call('POST', path, {
            bearer: key(),
            body: { receivable_ids: receivableIds },
          });
          const unknown = await client.call('POST', path, {
            bearer: key(),
            body: { receivable_ids: fakeIds },
          });
          expect([who, path, res.status === 201, normalized(res, receivableIds)]).toEqual([
            who,
            path,
            false,
            normalized(unknown, fakeIds),
          ]);
        }
      }
    }
  }, 120_000);
});
