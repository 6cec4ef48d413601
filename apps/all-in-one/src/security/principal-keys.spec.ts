// Proves, on the composed system (gateway and every service in one process, as `npm start` runs them),
// that the signed principal does what issue 16 item 11 asks: no service holds anything that can sign a
// principal (the gateway alone holds the private key), and a principal a service received through the
// gateway is refused on any other request, while charges' forwarded lookup at the vault still works.
import { KeyObject } from 'node:crypto';
import { PRINCIPAL_HEADER } from '@pgw/platform-http';
import type { ServiceContext, ServiceDefinition } from '@pgw/platform-service';
import { startAllInOne, type AllInOne } from '../all-in-one';
import { SERVICES } from '../services';
import { buyer, Client } from './harness';

jest.setTimeout(60_000);

const contexts = new Map<string, ServiceContext>();
/** The principal header each request that reached charges carried, by method and URL. */
const reachedCharges = new Map<string, string>();

/** Every definition, with its context kept and charges' verified principals recorded. */
function observedServices(): ServiceDefinition[] {
  return SERVICES.map((definition) => ({
    ...definition,
    build: async (app, context) => {
      contexts.set(definition.name, context);
      if (definition.name === 'charges') {
        // Runs after the principal check (registered before build): only principals charges accepted.
        app.addHook('onRequest', async (request) => {
          const header = request.headers[PRINCIPAL_HEADER];
          if (typeof header === 'string')
            reachedCharges.set(`${request.method} ${request.url}`, header);
        });
      }
      return definition.build(app, context);
    },
  }));
}

/** Anything in a context that could sign: a private KeyObject or a private key's PEM, at any depth up to 3. */
function signingMaterial(value: unknown, depth = 0): boolean {
  if (value instanceof KeyObject) return value.type !== 'public';
  if (typeof value === 'string') return /PRIVATE KEY/.test(value);
  if (depth >= 3 || typeof value !== 'object' || value === null) return false;
  return Object.values(value as Record<string, unknown>).some((v) => signingMaterial(v, depth + 1));
}

let system: AllInOne;
let client: Client;

beforeAll(async () => {
  system = await startAllInOne({
    dataDir: null,
    port: 0,
    demo: true,
    log: { level: 'silent' },
    services: observedServices(),
    env: { ...process.env, RATE_LIMIT_PER_SECOND: '100000' },
  });
  client = new Client(system, system.demo!.apiKey);
});

afterAll(async () => {
  await system?.stop();
});

describe('the principal in the all-in-one', () => {
  it("gives every service the gateway's Ed25519 public key and nothing that can sign", () => {
    // Proves a service that is broken into cannot mint principals for the others.
    expect([...contexts.keys()].sort()).toEqual(SERVICES.map((s) => s.name).sort());
    for (const [name, context] of contexts) {
      const key = context.principalPublicKey;
      expect([
        name,
        key instanceof KeyObject ? [key.type, key.asymmetricKeyType] : typeof key,
      ]).toEqual([name, ['public', 'ed25519']]);
      expect([name, signingMaterial({ ...context, db: null, bus: null, peers: null })]).toEqual([
        name,
        false,
      ]);
    }
  });

  it('charges a card through the gateway (charges asks the vault with the principal of POST /api/v1/charges), and refuses that principal elsewhere', async () => {
    // Proves the delegated token lookup works end to end, and that a principal taken off one request is 401 on another route.
    const token = await client.call('POST', '/api/v1/payment-methods/tokenize', {
      body: {
        card: {
          number: '4111111111111111',
          exp_month: 12,
          exp_year: 2031,
          cvv: '123',
          holder_name: 'MARIA OLIVEIRA',
        },
      },
    });
    expect(token.status).toBe(201);
    const charge = await client.call('POST', '/api/v1/charges', {
      body: {
        buyer: buyer(1),
        amount: 10_000,
        payment_method: 'CREDIT_CARD',
        installments: 1,
        card_token: token.body.id,
      },
    });
    expect([charge.status, charge.body.status]).toEqual([201, 'paid']);
    const read = await client.call('GET', `/api/v1/charges/${charge.body.id}`);
    expect(read.status).toBe(200);

    const captured = reachedCharges.get(`GET /api/v1/charges/${charge.body.id}`);
    expect(captured).toEqual(expect.any(String));
    const charges = system.services.find((s) => s.name === 'charges')!.app;
    const replayed = await charges.inject({
      method: 'POST',
      url: `/api/v1/charges/${charge.body.id}/refund`,
      headers: { [PRINCIPAL_HEADER]: captured!, 'idempotency-key': 'replay-1' },
      payload: {},
    });
    expect([replayed.statusCode, replayed.json().error]).toEqual([
      401,
      expect.objectContaining({ type: 'authentication_error', code: 'principal_invalid' }),
    ]);
    const vault = system.services.find((s) => s.name === 'vault')!.app;
    const lookup = await vault.inject({
      method: 'GET',
      url: `/internal/v1/tokens/${token.body.id}`,
      headers: { [PRINCIPAL_HEADER]: captured! },
    });
    expect([lookup.statusCode, lookup.json().error?.code]).toEqual([401, 'principal_invalid']);
    const same = await charges.inject({
      method: 'GET',
      url: `/api/v1/charges/${charge.body.id}`,
      headers: { [PRINCIPAL_HEADER]: captured! },
    });
    expect(same.statusCode).toBe(200);
  });
});
