import { HEADER_EVENT_TYPE } from '@pgw/platform-bus';
import { createPgliteKnex } from '@pgw/platform-db';
// Proves that after a full run of the flows (tokenizations of every §6 test card in several spellings,
// card charges with security codes, refunds, capture, Pix, boleto, a chargeback, an anticipation, the
// jobs), no test PAN, no CVV in a card context, no API key secret and not the admin token appear in any
// table of any schema of the embedded database, in any log line at level trace, or in any event the
// services published (Avro bytes read as UTF-8 and Latin-1, and decoded).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { decodeEvent, isEventType } from '@pgw/contracts';
import type { BusMessage } from '@pgw/platform-bus';
import type { ServiceDefinition } from '@pgw/platform-service';
import { startAllInOne, type AllInOne } from '../all-in-one';
import { SERVICES } from '../services';
import { buyer, Client, provisionParty, today, type Party } from './harness';

/** Contract §6's test cards, each with a CVV of its own so that a hit names its card. */
const CARDS = [
  { pan: '4111111111111111', cvv: '123', spelled: '4111 1111 1111 1111' },
  { pan: '5555555555554444', cvv: '737', spelled: '5555-5555-5555-4444' },
  { pan: '378282246310005', cvv: '4567', spelled: '3782 822463 10005' },
  { pan: '4000000000000002', cvv: '321', spelled: '4000000000000002' },
  { pan: '4000000000009995', cvv: '909', spelled: '4000 0000 0000 9995' },
  { pan: '4000000000000069', cvv: '552', spelled: '4000-0000-0000-0069' },
  { pan: '4000000000000119', cvv: '818', spelled: '4000 0000 0000 0119' },
];

const logLines: string[] = [];
const published: BusMessage[] = [];
let dataDir: string;
let system: AllInOne;
let client: Client;
let party: Party;
let webhookSecret = '';
let secrets: { name: string; value: string }[] = [];

/** Every definition, with the shared bus's publish observed once (the relays publish through it). */
function observedServices(): ServiceDefinition[] {
  let observed = false;
  return SERVICES.map((definition) => ({
    ...definition,
    build: async (app, context) => {
      if (!observed) {
        observed = true;
        const bus = context.bus;
        const publish = bus.publish.bind(bus);
        bus.publish = async (messages) => {
          published.push(...messages);
          return publish(messages);
        };
      }
      return definition.build(app, context);
    },
  }));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'pgw-secrets-'));
  const stream = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(
        ...String(chunk)
          .split('\n')
          .filter((l) => l !== ''),
      );
      done();
    },
  });
  system = await startAllInOne({
    dataDir,
    port: 0,
    demo: true,
    log: { level: 'trace', stream },
    services: observedServices(),
    env: { ...process.env, RATE_LIMIT_PER_SECOND: '100000' },
  });
  client = new Client(system, '');
  party = await provisionParty(client, 'Secrets', 303);
  const endpoint = await client.admin(
    'POST',
    `/admin/v1/tenants/${party.tenantId}/webhook-endpoints`,
    { url: 'http://127.0.0.1:9/hooks' },
  );
  if (endpoint.status !== 201) throw new Error(`webhook endpoint: ${endpoint.text}`);
  webhookSecret = endpoint.body.secret as string;
  secrets = [
    { name: 'admin token', value: system.adminToken },
    { name: 'demo key', value: system.demo!.apiKey },
    { name: 'test key', value: party.testKey },
    { name: 'live key', value: party.liveKey },
    { name: 'other seller key', value: party.otherSellerKey },
    { name: 'tenant key', value: party.tenantKey },
  ];
  const as = (key: string) => (method: string, path: string, body?: unknown) =>
    client.call(method, path, { bearer: key, ...(body !== undefined ? { body } : {}) });
  const seller = as(party.testKey);

  for (const [n, card] of CARDS.entries()) {
    for (const [key, number] of [
      [party.testKey, card.spelled],
      [party.liveKey, card.pan],
      [system.demo!.apiKey, card.pan],
    ] as const) {
      const token = await as(key)('POST', '/api/v1/payment-methods/tokenize', {
        card: {
          number,
          exp_month: 12,
          exp_year: 2031,
          cvv: card.cvv,
          holder_name: 'MARIA OLIVEIRA',
        },
      });
      if (token.status !== 201) throw new Error(`tokenize ${number}: ${token.text}`);
      const charged = await as(key)('POST', '/api/v1/charges', {
        buyer: buyer(n + 1),
        amount: 10_000 + n,
        payment_method: n % 2 === 0 ? 'CREDIT_CARD' : 'DEBIT_CARD',
        installments: 1,
        card_token: token.body.id,
        security_code: card.cvv,
      });
      if (charged.status !== 201) throw new Error(`charge: ${charged.text}`);
      if (charged.body.status === 'paid') {
        await as(key)('POST', `/api/v1/charges/${charged.body.id}/refund`, {
          amount_cents: 1_000,
          reason: `refund of card ${card.cvv}`,
        });
        await as(key)('POST', `/api/v1/charges/${charged.body.id}/refund`);
      }
    }
  }
  const token = (
    await seller('POST', '/api/v1/payment-methods/tokenize', {
      card: { number: CARDS[0]!.pan, exp_month: 1, exp_year: 2030, cvv: '123', holder_name: 'ANA' },
    })
  ).body.id;
  const held = (
    await seller('POST', '/api/v1/charges', {
      buyer: buyer(50),
      amount: 5_000,
      payment_method: 'CREDIT_CARD',
      installments: 1,
      card_token: token,
      security_code: '123',
      capture_method: 'manual',
    })
  ).body;
  await client.call('POST', `/api/v1/charges/${held.id}/capture`, {
    bearer: party.testKey,
    headers: { 'idempotency-key': `cap-${held.id}` },
  });
  const credit = (
    await seller('POST', '/api/v1/charges', {
      buyer: buyer(51),
      amount: 60_000,
      payment_method: 'CREDIT_CARD',
      installments: 3,
      card_token: token,
    })
  ).body;
  const disputed = (
    await seller('POST', '/api/v1/charges', {
      buyer: buyer(52),
      amount: 7_000,
      payment_method: 'CREDIT_CARD',
      installments: 1,
      card_token: token,
    })
  ).body;
  await client.admin('POST', '/admin/v1/simulations/chargebacks', { charge_id: disputed.id });
  const pix = (
    await seller('POST', '/api/v1/charges', {
      buyer: buyer(53),
      amount: 2_500,
      payment_method: 'PIX',
    })
  ).body;
  await client.admin('POST', `/admin/v1/simulations/charges/${pix.id}/pay`);
  await seller('POST', '/api/v1/charges', {
    buyer: buyer(54),
    amount: 15_000,
    payment_method: 'BOLETO',
  });
  await sleep(1_000);
  if (system.services.some((s) => s.name === 'anticipation')) {
    const receivables = (await seller('GET', '/api/v1/receivables?status=pending&limit=100')).body
      .data as { id: string; charge_id: string }[];
    const ids = receivables.filter((r) => r.charge_id === credit.id).map((r) => r.id);
    if (ids.length > 0)
      await seller('POST', '/api/v1/anticipations', { receivable_ids: ids.slice(0, 1) });
  }
  await client.admin('POST', '/admin/v1/jobs/receivables-release', { as_of_date: today() });
  await client.admin('POST', '/admin/v1/jobs/settlement-run', { as_of_date: today() });
  await client.admin('POST', '/admin/v1/jobs/refund-reconciliation');
  // Let the relays and consumers finish, then close everything so the database is at rest for the scan.
  await sleep(2_000);
  await system.stop();
}, 300_000);

afterAll(() => {
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

interface Hit {
  where: string;
  what: string;
}

const digitsOnly = (text: string) => text.replace(/(?<=\d)[\s.\-/]+(?=\d)/g, '');

/** Every needle found in `text`: PANs (as written and with separators removed), CVVs next to a card word, secrets. */
function scan(where: string, text: string): Hit[] {
  const hits: Hit[] = [];
  const compact = digitsOnly(text);
  for (const card of CARDS) {
    if (text.includes(card.pan) || compact.includes(card.pan) || text.includes(card.spelled))
      hits.push({ where, what: `PAN ${card.pan}` });
    const cvvInContext = new RegExp(
      `(cvv|cvc|cvv2|security[_ ]?code|securityCode|card[_ ]?code)["'\\\\]*\\s*[:=]\\s*["'\\\\]*${card.cvv}(?!\\d)`,
      'i',
    );
    if (cvvInContext.test(text)) hits.push({ where, what: `CVV ${card.cvv}` });
  }
  for (const secret of secrets)
    if (text.includes(secret.value)) hits.push({ where, what: secret.name });
  return hits;
}

/** A database value as every text it may hide: strings, JSON, bytea as UTF-8 and Latin-1. */
function texts(value: unknown): string[] {
  if (value === null || value === undefined) return [];
  if (Buffer.isBuffer(value) || value instanceof Uint8Array) {
    const buffer = Buffer.from(value);
    return [buffer.toString('utf8'), buffer.toString('latin1'), buffer.toString('hex')];
  }
  if (value instanceof Date) return [];
  if (typeof value === 'object') return [JSON.stringify(value)];
  return [String(value)];
}

describe('secrets scan after a full run', () => {
  it('the run happened: events were published and the trace log is not empty', () => {
    // Proves the scans below look at something.
    expect(published.length).toBeGreaterThan(50);
    expect(logLines.length).toBeGreaterThan(100);
  });

  it('the webhook signing secret was published only on gateway.webhook-endpoints, which only the webhooks service consumes', () => {
    // Proves no other service receives it: every other consumer reads gateway.directory, where it never goes.
    const carrying = published
      .filter((m) => Buffer.from(m.value).includes(webhookSecret))
      .map((m) => m.topic);
    expect(webhookSecret).toMatch(/^whsec_/);
    expect(carrying.length).toBeGreaterThan(0);
    expect(new Set(carrying)).toEqual(new Set(['gateway.webhook-endpoints']));
  });

  it('live keys were served by the simulator as a sandbox, and the vault and charges said so at start (contract §6)', () => {
    // Proves the all-in-one, not marked production, routes live keys to the simulator: the run above tokenized and charged with one.
    const said = logLines.filter((l) =>
      l.includes('the live acquirer is the acquirer simulator: live keys reach it as a sandbox'),
    );
    expect(said.length).toBeGreaterThanOrEqual(2);
  });

  it('no table of any schema holds a test PAN, a CVV in a card context, an API key secret or the admin token', async () => {
    // Proves the database at rest is clean, the simulated acquirer's card store included (contract §6).
    // Imported lazily: the all-in-one project loads @pgw/platform-db lazily elsewhere (module boundaries).
    const knex = createPgliteKnex(join(dataDir, 'pg'));
    try {
      const tables = (
        await knex.raw(
          `select table_schema, table_name from information_schema.tables where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema') order by 1, 2`,
        )
      ).rows as { table_schema: string; table_name: string }[];
      const scanned = tables;
      expect(scanned.map((t) => `${t.table_schema}.${t.table_name}`)).toEqual(
        expect.arrayContaining(['acquirer_sim.cards', 'vault.tokens']),
      );
      const hits: Hit[] = [];
      let rowCount = 0;
      for (const table of scanned) {
        const rows = (await knex.raw(`select * from "${table.table_schema}"."${table.table_name}"`))
          .rows as Record<string, unknown>[];
        rowCount += rows.length;
        for (const row of rows) {
          for (const [column, value] of Object.entries(row)) {
            for (const text of texts(value))
              hits.push(...scan(`${table.table_schema}.${table.table_name}.${column}`, text));
          }
        }
      }
      expect(rowCount).toBeGreaterThan(100);
      expect(hits).toEqual([]);
      // Positive control: the card store holds every card tokenized above, so the scan read real card rows.
      const stored = (await knex.raw('select last4 from "acquirer_sim"."cards"')).rows as {
        last4: string;
      }[];
      expect(new Set(stored.map((row) => row.last4))).toEqual(
        new Set(CARDS.map((c) => c.pan.slice(-4))),
      );
    } finally {
      await knex.destroy();
    }
  }, 120_000);

  it('no file under DATA_DIR holds a test PAN, WAL and every other file of the embedded database included', () => {
    // Proves what stays on disk after a run (contract §6: the simulator keeps no PAN either): every file's
    // bytes, read as Latin-1, searched for each PAN as digits and as it was typed.
    const files = (
      readdirSync(dataDir, { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[]
    )
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name));
    expect(files.some((f) => f.includes('pg_wal'))).toBe(true);
    const hits: Hit[] = [];
    let bytes = 0;
    for (const file of files) {
      const text = readFileSync(file).toString('latin1');
      bytes += text.length;
      for (const card of CARDS)
        if (text.includes(card.pan) || text.includes(card.spelled))
          hits.push({ where: file, what: `PAN ${card.pan}` });
    }
    expect(bytes).toBeGreaterThan(1_000_000);
    expect(hits).toEqual([]);
  });

  it('no log line at level trace holds any of them', () => {
    // Proves redaction and the no-body rule hold in every service's log and the gateway's.
    const hits = logLines.flatMap((line, i) => scan(`log line ${i}: ${line.slice(0, 200)}`, line));
    expect(hits).toEqual([]);
  });

  it('no published event holds any of them, as bytes or decoded', async () => {
    // Proves what goes to Kafka in the distributed mode (the same Avro bytes) is clean.
    const hits: Hit[] = [];
    for (const message of published) {
      const where = `${message.topic} ${message.headers[HEADER_EVENT_TYPE] ?? '?'}`;
      const type = message.headers[HEADER_EVENT_TYPE];
      const decoded = isEventType(type)
        ? JSON.stringify(decodeEvent(type, message.value), (_k, v: unknown) =>
            typeof v === 'bigint' ? String(v) : v,
          )
        : '';
      for (const text of [
        message.value.toString('utf8'),
        message.value.toString('latin1'),
        decoded,
        message.key,
        JSON.stringify(message.headers),
      ])
        hits.push(...scan(where, text));
    }
    expect(hits).toEqual([]);
  });
});
