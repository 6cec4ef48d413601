import type { LightMyRequestResponse } from 'fastify';
import { EVENT_TOPICS, TOPICS } from '@pgw/contracts';
import type { BusMessage } from '@pgw/platform-bus';
import { createPgliteKnex } from '@pgw/platform-db';
import { vaultKeysForAllInOne } from './config';
import { openDetails, type TokenRow } from './data/token.repository';
import {
  newSeller,
  LogCapture,
  principal,
  startVault,
  validCard,
  type VaultHarness,
} from './testing/harness';

// The cards of this suite, in the forms an integrator may send them, with 4-digit CVVs (a 4-digit value
// bounded by non-alphanumerics does not turn up by chance in ids, hashes or timestamps).
const CARDS = [
  { sent: '4111 1111 1111 1111', digits: '4111111111111111', cvv: '7391' },
  { sent: '5555-5555-5555-4444', digits: '5555555555554444', cvv: '8264' },
  { sent: '378282246310005', digits: '378282246310005', cvv: '5038' },
];
const BAD_PAN = { sent: '4111 1111 1111 1112', digits: '4111111111111112', cvv: '6620' };
const ALL = [...CARDS, BAD_PAN];
const STREET = 'Rua Augusta 1500';

// Strings that are random by construction (ids, hex digests) may hold any 4 digits by chance; in them a
// CVV counts only when it stands alone. Anywhere else any occurrence counts, glued to text or not.
const RANDOM_SHAPED = /^(?:[0-9a-f]{64}|[a-z]+_[A-Za-z0-9_-]+)$/;
// A UUID (randomUUID: the outbox lease's holder) is random whole and holds no input: any 4 digits in it are
// chance (about one run in a thousand found a CVV's digits in the lease holder, and failed).
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Every form of card data that must not appear: full PAN, as sent, its first 12 digits, and the CVV. */
function leaksIn(text: string): string[] {
  const found: string[] = [];
  for (const card of ALL) {
    for (const form of [card.digits, card.sent, card.digits.slice(0, 12)])
      if (text.includes(form)) found.push(form);
    const cvvFound =
      !UUID.test(text) &&
      (RANDOM_SHAPED.test(text)
        ? new RegExp(`(^|[^A-Za-z0-9])${card.cvv}($|[^A-Za-z0-9])`).test(text)
        : text.includes(card.cvv));
    if (cvvFound) found.push(`cvv ${card.cvv}`);
  }
  return found;
}

/** Walks a value of any shape (row, parsed log line, event) and collects leaks in its strings, numbers and bytes. */
function leaksInValue(value: unknown, depth = 0): string[] {
  if (depth > 32 || value === null || value === undefined) return [];
  if (typeof value === 'string') return leaksIn(value);
  // Numbers are compared whole: a timestamp or a duration may contain any digits.
  if (typeof value === 'number' || typeof value === 'bigint') {
    return ALL.filter((c) => String(value) === c.cvv || String(value) === c.digits).map(
      () => `number ${String(value)}`,
    );
  }
  if (value instanceof Date) return [];
  if (Buffer.isBuffer(value) || value instanceof Uint8Array)
    return leaksIn(Buffer.from(value).toString('latin1'));
  if (Array.isArray(value)) return value.flatMap((v) => leaksInValue(v, depth + 1));
  if (typeof value === 'object')
    return Object.entries(value).flatMap(([k, v]) => [
      ...leaksIn(k),
      ...leaksInValue(v, depth + 1),
    ]);
  return [];
}

const knex = createPgliteKnex(null);
const log = new LogCapture();
let h: VaultHarness;
const events: BusMessage[] = [];
const responses: LightMyRequestResponse[] = [];

beforeAll(async () => {
  h = await startVault(knex, { log });
  const topics = [...new Set([...Object.values(EVENT_TOPICS), ...Object.values(TOPICS)])];
  await h.bus.subscribe({
    groupId: 'spy',
    topics,
    handle: async (batch) => void events.push(...batch),
  });
});

afterAll(async () => {
  await h.stop();
  await knex.destroy();
});

describe('card data never leaves the request', () => {
  it('after tokenizing, the PAN and the CVV are in no response, no log line, no vault row and no event', async () => {
    const seller = newSeller();
    const headers = { 'x-gateway-principal': principal(seller) };
    const post = async (payload: unknown, extra: Record<string, string> = {}) => {
      const res = await h.vault.app.inject({
        method: 'POST',
        url: '/api/v1/payment-methods/tokenize',
        headers: { ...headers, ...extra },
        payload: payload as string,
      });
      responses.push(res);
      return res;
    };

    const tokens: string[] = [];
    for (const card of CARDS) {
      const res = await post({
        card: validCard({ number: card.sent, cvv: card.cvv }),
        billing_address: {
          line_1: STREET,
          city: 'São Paulo',
          zip_code: '01310-100',
          country: 'BR',
        },
        metadata: { order_id: 'ord_1' },
      });
      expect(res.statusCode).toBe(201);
      tokens.push(res.json().id);
    }
    // Refusals that carry card data in the request: Luhn failure, an unknown field, a bad CVV shape,
    // malformed JSON, and the card store being down.
    expect(
      (await post({ card: validCard({ number: BAD_PAN.sent, cvv: BAD_PAN.cvv }) })).statusCode,
    ).toBe(422);
    expect(
      (
        await post({
          card: validCard({ number: CARDS[0]!.sent, cvv: CARDS[0]!.cvv, pan: CARDS[0]!.digits }),
        })
      ).statusCode,
    ).toBe(422);
    expect(
      (await post({ card: validCard({ number: CARDS[1]!.sent, cvv: `${CARDS[1]!.cvv}x` }) }))
        .statusCode,
    ).toBe(422);
    expect(
      (
        await post(`{"card":{"number":"${CARDS[2]!.digits}","cvv":"${CARDS[2]!.cvv}"`, {
          'content-type': 'application/json',
        })
      ).statusCode,
    ).toBe(422);
    h.cardStore.mode = 'unavailable';
    expect(
      (await post({ card: validCard({ number: CARDS[0]!.sent, cvv: CARDS[0]!.cvv }) })).statusCode,
    ).toBe(502);
    h.cardStore.mode = 'normal';
    for (const id of tokens) {
      responses.push(
        await h.vault.app.inject({ method: 'GET', url: `/internal/v1/tokens/${id}`, headers }),
      );
    }

    // Not vacuous: the PAN did go to the card store, and the logs did record the requests.
    expect(h.cardStore.received.map((r) => r.number)).toEqual(
      expect.arrayContaining(CARDS.map((c) => c.digits)),
    );
    expect(log.lines.some((line) => line.includes('card tokenized'))).toBe(true);
    expect(log.lines.some((line) => line.includes('/api/v1/payment-methods/tokenize'))).toBe(true);

    // Responses: bodies and headers.
    for (const res of responses) {
      const pans = ALL.filter((c) => res.body.includes(c.digits) || res.body.includes(c.sent));
      expect([
        res.statusCode,
        pans,
        leaksInValue(JSON.parse(res.body)),
        leaksInValue(res.headers),
      ]).toEqual([res.statusCode, [], [], []]);
    }

    // Log lines, raw and parsed (trace level: everything the service logs).
    for (const line of log.lines) {
      expect([line, ALL.filter((c) => line.includes(c.digits) || line.includes(c.sent))]).toEqual([
        line,
        [],
      ]);
      expect([line, leaksInValue(JSON.parse(line))]).toEqual([line, []]);
    }

    // Every column of every table of the vault's schema (tokens, local_keys, outbox, inbox, …).
    const tables = await knex('information_schema.tables')
      .where({ table_schema: 'vault', table_type: 'BASE TABLE' })
      .pluck('table_name');
    expect(tables).toEqual(expect.arrayContaining(['tokens', 'outbox', 'inbox', 'local_keys']));
    let rowsScanned = 0;
    for (const table of tables as string[]) {
      const rows = await knex.withSchema('vault').select('*').from(table);
      for (const row of rows) {
        rowsScanned++;
        expect([table, leaksInValue(row)]).toEqual([table, []]);
        expect([table, JSON.stringify(row).includes(STREET)]).toEqual([table, false]);
      }
    }
    expect(rowsScanned).toBeGreaterThanOrEqual(CARDS.length);

    // Inside the sealed blob too: it holds the billing address and metadata, and no card data.
    const keys = await vaultKeysForAllInOne({}, h.db);
    const stored = await knex
      .withSchema('vault')
      .select<TokenRow[]>('*')
      .from('tokens')
      .whereIn('id', tokens);
    expect(stored).toHaveLength(CARDS.length);
    for (const row of stored) {
      const details = openDetails(keys.keyring, row);
      expect(details).toEqual({
        billing_address: expect.objectContaining({ line_1: STREET }),
        metadata: { order_id: 'ord_1' },
      });
      expect(leaksInValue(details)).toEqual([]);
    }

    // Events: whatever went through the bus and the outbox.
    await new Promise((r) => setTimeout(r, 300)); // a relay round
    for (const message of events) {
      expect(
        leaksInValue({ key: message.key, headers: message.headers, value: message.value }),
      ).toEqual([]);
    }
  });
});
