// Proves the keys and headers docs/asyncapi.json promises are those of the messages the running system
// publishes: the all-in-one runs with one more consumer that reads every channel of the document, the demo
// provisions a tenant and a seller, an operator adds a pricing plan and a webhook endpoint, and a card charge
// is paid; every message each topic then carries is checked against its message in the document.
import { readFileSync } from 'node:fs';
import Ajv from 'ajv';
import { SERVICES } from '../../apps/all-in-one/src/services';
import { startAllInOne, type AllInOne } from '../../apps/all-in-one/src/all-in-one';
import { BUYER, client } from '../../apps/all-in-one/src/e2e.scenarios';
import type { BusMessage } from '@pgw/platform-bus';
import type { ServiceDefinition } from '@pgw/platform-service';
import { waitFor } from '@pgw/testing';
import { DOCUMENT_PATH } from './generate';

interface Document {
  channels: Record<string, { messages: Record<string, { $ref: string }> }>;
  components: {
    messages: Record<
      string,
      { headers: object; bindings: { kafka: { key: { pattern: string } } } }
    >;
  };
}

const doc = JSON.parse(readFileSync(DOCUMENT_PATH, 'utf8')) as Document;
const seen: BusMessage[] = [];

// A service of its own (schema, inbox) whose one consumer reads every channel the document names.
const probe: ServiceDefinition = {
  name: 'asyncapi-probe',
  migrations: [],
  build: async () => ({
    consumers: [
      {
        name: 'every-channel',
        topics: Object.keys(doc.channels),
        apply: async (_trx, message) => void seen.push(message),
      },
    ],
  }),
};

let system: AllInOne;

beforeAll(async () => {
  system = await startAllInOne({
    dataDir: null,
    port: 0,
    demo: true,
    log: { level: 'silent' },
    services: [...SERVICES, probe],
  });
  if (system.demo === null) throw new Error('the demo was not provisioned');
  const { call, admin } = client({
    url: system.url,
    adminToken: system.adminToken,
    tenantId: system.demo.tenantId,
    apiKey: system.demo.apiKey,
  });
  const tenant = system.demo.tenantId;
  expect(
    (
      await admin('POST', `/admin/v1/tenants/${tenant}/pricing-plans`, {
        name: 'Gold',
        fee_bps_per_month: 150,
        settlement_delay_days: 2,
      })
    ).status,
  ).toBe(201);
  expect(
    (
      await admin('POST', `/admin/v1/tenants/${tenant}/webhook-endpoints`, {
        url: 'http://127.0.0.1:9/hooks',
        events: ['anticipation.succeeded'],
      })
    ).status,
  ).toBe(201);
  const token = await call('POST', '/api/v1/payment-methods/tokenize', {
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
  const charge = await call('POST', '/api/v1/charges', {
    body: {
      buyer: BUYER,
      amount: 30_000,
      payment_method: 'CREDIT_CARD',
      installments: 3,
      card_token: token.body.id,
    },
  });
  expect([charge.status, charge.body.status]).toEqual([201, 'paid']);
  // The charge's balance movement is the last event of that flow. (The endpoint wants a kind nothing here
  // raises, so no delivery is tried.)
  await waitFor(
    () =>
      seen.some((m) => m.headers['event-type']?.startsWith('receivables.balance-moved.'))
        ? true
        : undefined,
    60_000,
    "the charge's balance movement",
  );
}, 120_000);

afterAll(async () => {
  await system?.stop();
});

describe('the messages the system publishes, against docs/asyncapi.json', () => {
  it('reach the directory, webhook endpoint, charges and receivables topics', () => {
    // Proves the checks below judged messages of every topic this flow writes to.
    expect([...new Set(seen.map((m) => m.topic))].sort()).toEqual([
      'charges.charges',
      'gateway.directory',
      'gateway.webhook-endpoints',
      'receivables.sellers',
    ]);
  });

  it("each is one of its channel's messages, keyed and with headers as that message says", () => {
    // Proves a reader that trusts the document's key patterns and header schema reads every message.
    const ajv = new Ajv({ allErrors: true });
    for (const message of seen) {
      const type = message.headers['event-type'] ?? '(none)';
      expect([message.topic, type, doc.channels[message.topic]?.messages[type]]).toEqual([
        message.topic,
        type,
        { $ref: `#/components/messages/${type}` },
      ]);
      const described = doc.components.messages[type]!;
      expect([type, message.key]).toEqual([
        type,
        expect.stringMatching(new RegExp(described.bindings.kafka.key.pattern)),
      ]);
      const validHeaders = ajv.validate(described.headers, message.headers);
      expect([type, validHeaders ? null : ajv.errorsText()]).toEqual([type, null]);
    }
  });
});
