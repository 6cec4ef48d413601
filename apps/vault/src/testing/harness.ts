// Test support for the vault's specs (not shipped code paths): a card-store stand-in behind Peers, the
// vault started on a shared in-memory PGlite, principals, and directory events.
import { Writable } from 'node:stream';
import type { Knex } from 'knex';
import { detectBrand, luhnValid } from '@pgw/domain';
import { InProcessBus } from '@pgw/platform-bus';
import { sharedDb, type Db } from '@pgw/platform-db';
import { TestPrincipals } from '@pgw/platform-http';
import {
  ManualClock,
  startService,
  type PeerRequest,
  type PeerResponse,
  type Peers,
  type RunningService,
} from '@pgw/platform-service';
import { createVaultService } from '../service';

/** The specs play the gateway: they sign principals with this pair; the vault holds the public key. */
export const PRINCIPALS = new TestPrincipals();

/**
 * The acquirer's card store as the vault sees it through Peers: answers POST /acquirer/v1/cards like the
 * simulator does (idempotent by reference), and remembers what it was sent, so tests can show that the
 * PAN did leave for the card store. `mode` fakes the simulator's fault modes.
 */
export class CardStoreStub implements Peers {
  mode: 'normal' | 'unavailable' | 'timeout' = 'normal';
  /** What charges answers for the tenant's live rails (none by default: live keys reach this card store, the sandbox). */
  liveRails: { card: { provider: string; credentials: string } | null; pix: null; boleto: null } = {
    card: null,
    pix: null,
    boleto: null,
  };
  readonly received: Array<{ reference: string; number: string }> = [];
  private readonly cards = new Map<string, { card_ref: string; brand: string; last4: string }>();

  async request(service: string, request: PeerRequest): Promise<PeerResponse> {
    // Charges keeps the tenants' live rails: none unless a spec sets liveRails, so live keys reach this card store (the sandbox).
    if (
      service === 'charges' &&
      request.method === 'GET' &&
      request.url === '/internal/v1/live-rails'
    )
      return { statusCode: 200, body: this.liveRails };
    if (service !== 'acquirer-sim') throw new Error(`unexpected peer ${service}`);
    if (request.timeoutMs === undefined)
      throw new Error('the vault must give every acquirer call a deadline');
    if (this.mode === 'unavailable')
      return { statusCode: 503, body: { error: { code: 'service_unavailable' } } };
    if (request.method !== 'POST' || request.url !== '/acquirer/v1/cards')
      return { statusCode: 404, body: null };
    const body = request.body as { reference: string; number: string };
    this.received.push({ reference: body.reference, number: body.number });
    if (!luhnValid(body.number))
      return { statusCode: 422, body: { error: { code: 'card_number_invalid', message: 'Luhn' } } };
    let card = this.cards.get(body.reference);
    if (card === undefined) {
      card = {
        card_ref: `card_stub${this.cards.size + 1}`,
        brand: detectBrand(body.number),
        last4: body.number.slice(-4),
      };
      this.cards.set(body.reference, card);
    }
    if (this.mode === 'timeout')
      throw new DOMException('acquirer-sim did not answer in time', 'TimeoutError');
    return { statusCode: 201, body: { reference: body.reference, ...card } };
  }
}

export class LogCapture {
  readonly lines: string[] = [];
  readonly stream = new Writable({
    write: (chunk, _encoding, done) => {
      this.lines.push(String(chunk));
      done();
    },
  });
}

export interface VaultHarness {
  vault: RunningService;
  db: Db;
  bus: InProcessBus;
  cardStore: CardStoreStub;
  clock: ManualClock;
  stop(): Promise<void>;
}

export async function startVault(
  knex: Knex,
  options: {
    schema?: string;
    env?: NodeJS.ProcessEnv;
    log?: LogCapture;
    keysFromEnvOnly?: boolean;
  } = {},
): Promise<VaultHarness> {
  const db = sharedDb(knex, options.schema ?? 'vault');
  const bus = new InProcessBus();
  const cardStore = new CardStoreStub();
  const clock = new ManualClock(new Date('2026-03-01T12:00:00Z'));
  const vault = await startService(
    createVaultService({
      keys: options.keysFromEnvOnly === true ? 'environment' : 'environment-or-local',
    }),
    {
      db,
      bus,
      clock,
      principalPublicKey: PRINCIPALS.publicKey,
      peers: cardStore,
      env: options.env ?? {},
      log:
        options.log !== undefined
          ? { level: 'trace', stream: options.log.stream }
          : { level: 'warn' },
    },
  );
  PRINCIPALS.bind(vault.app);
  return { vault, db, bus, cardStore, clock, stop: () => vault.stop() };
}

export interface PrincipalInput {
  tenantId: string;
  sellerId: string | null;
  livemode?: boolean;
  permissions?: string[];
}

/** A principal header for `input`; the vault's app under test signs it for each request it is sent on. */
export function principal(input: PrincipalInput): string {
  return PRINCIPALS.header({
    kind: 'api_key',
    tenantId: input.tenantId,
    sellerId: input.sellerId,
    keyId: 'key_test',
    permissions: input.permissions ?? ['payment_methods:tokenize', 'charges:create'],
    livemode: input.livemode ?? false,
    requestId: 'req_x',
    expiresAtMs: Date.now() + 60_000,
  });
}

let sellerSeq = 0;

/** A fresh tenant and seller: the vault keeps no directory (the gateway decides KYC), so any ids will do. */
export function newSeller(): { tenantId: string; sellerId: string } {
  sellerSeq++;
  return {
    tenantId: `ten_t${sellerSeq}x${Date.now()}`,
    sellerId: `seller_s${sellerSeq}x${Date.now()}`,
  };
}

export const validCard = (overrides: Record<string, unknown> = {}) => ({
  number: '4111 1111 1111 1111',
  exp_month: 12,
  exp_year: 2030,
  cvv: '123',
  holder_name: 'ANA SILVA',
  ...overrides,
});
