// Test support for the specs of charges (not shipped code paths): charges started on an in-memory
// PGlite with the in-process bus, a fake vault and the acquirer simulator (in memory) behind InjectPeers, signed
// principals, directory events, and readers of the outbox.
import type { Knex } from 'knex';
import { TestAcquirerSim } from '@pgw/acquirer-simulator/testing';
import type { Response as InjectResponse } from 'light-my-request';
import {
  decodeEvent,
  encodeEvent,
  isEventType,
  newEnvelope,
  TOPICS,
  type EventMap,
  type EventType,
  type KycStatus,
  type SellerChanged,
} from '@pgw/contracts';
import { generateCpf, newId } from '@pgw/domain';
import { HEADER_EVENT_ID, HEADER_EVENT_TYPE, InProcessBus } from '@pgw/platform-bus';
import { sharedDb, type Db } from '@pgw/platform-db';
import {
  buildApp,
  notFound,
  principalPlugin,
  PRINCIPAL_HEADER,
  TestPrincipals,
  type App,
} from '@pgw/platform-http';
import {
  InjectPeers,
  startService,
  systemClock,
  type Clock,
  type RunningService,
} from '@pgw/platform-service';
import { chargesService } from '../service';

/** The specs play the gateway: they sign principals with this pair; charges and the fakes hold the public key. */
export const PRINCIPALS = new TestPrincipals();

interface TokenEntry {
  tenantId: string;
  livemode: boolean;
  sellerId: string;
  cardRef: string;
  last4: string;
  /** The rail the vault stored the card on (`provider:credentials` or `simulator`); absent: a token made before rails were recorded. */
  cardRail?: string;
}

/** The vault's internal token lookup as charges uses it: scoped by the forwarded principal, like the vault's. */
export class FakeVault {
  readonly tokens = new Map<string, TokenEntry>();
  lookups = 0;
  down = false;
  /** While set, lookups wait for it: a test holds a request in flight. */
  gate: Promise<void> | null = null;

  async build(): Promise<App> {
    const app = PRINCIPALS.bind(buildApp({ name: 'fake-vault', log: { level: 'silent' } }));
    await app.register(principalPlugin, { publicKey: PRINCIPALS.publicKey });
    // As the vault's own route: charges forwards the principal the gateway signed for POST /api/v1/charges.
    app.get<{ Params: { id: string } }>(
      '/internal/v1/tokens/:id',
      { config: { principalFrom: ['POST /api/v1/charges'] } },
      async (request, reply) => {
        this.lookups++;
        if (this.gate !== null) await this.gate;
        if (this.down) return reply.code(500).send({ error: { code: 'internal_error' } });
        const p = request.principal;
        const token = this.tokens.get(request.params.id);
        if (
          p?.kind !== 'api_key' ||
          token === undefined ||
          token.tenantId !== p.tenantId ||
          token.livemode !== p.livemode ||
          (p.sellerId !== null && p.sellerId !== token.sellerId)
        ) {
          throw notFound('token');
        }
        return {
          card_ref: token.cardRef,
          card_rail: token.cardRail ?? null,
          brand: 'visa',
          last4: token.last4,
          exp_month: 12,
          exp_year: 2030,
          seller_id: token.sellerId,
        };
      },
    );
    await app.ready();
    return app;
  }
}

export interface Who {
  tenantId: string;
  sellerId: string | null;
  livemode?: boolean;
  permissions?: string[];
  /** The client's address the gateway signs into the principal. */
  clientIp?: string;
}

export const ALL_PERMISSIONS = [
  'charges:create',
  'charges:read',
  'refunds:create',
  'chargebacks:read',
];

/** A principal header for `who`; an app of the harness signs it for each request it is sent on. */
export function apiKey(who: Who): string {
  return PRINCIPALS.header({
    kind: 'api_key',
    tenantId: who.tenantId,
    sellerId: who.sellerId,
    keyId: 'key_x',
    permissions: who.permissions ?? ALL_PERMISSIONS,
    livemode: who.livemode ?? false,
    requestId: 'req_x',
    expiresAtMs: Date.now() + 60_000,
    ...(who.clientIp === undefined ? {} : { clientIp: who.clientIp }),
  });
}

export const operator = (): string =>
  PRINCIPALS.header({ kind: 'operator', requestId: 'req_op', expiresAtMs: Date.now() + 60_000 });

export interface Harness {
  charges: RunningService;
  app: App;
  db: Db;
  bus: InProcessBus;
  acquirer: TestAcquirerSim;
  vault: FakeVault;
  peers: InjectPeers;
  stop(): Promise<void>;
}

/**
 * Charges on `knex` (one PGlite per spec file: it takes seconds to boot), with its own schema so specs
 * sharing a knex never meet. The background recovery is off; specs run the jobs themselves.
 */
export async function startCharges(
  knex: Knex,
  options: { schema?: string; env?: NodeJS.ProcessEnv; clock?: Clock } = {},
): Promise<Harness> {
  return startChargesOn(sharedDb(knex, options.schema ?? 'charges'), options);
}

/** Charges on a given database: the shared PGlite of the unit specs, or a PostgreSQL pool (integration). */
export async function startChargesOn(
  db: Db,
  options: { env?: NodeJS.ProcessEnv; clock?: Clock } = {},
): Promise<Harness> {
  const bus = new InProcessBus();
  // One clock for charges and the outside world, so that what the simulator dates (a Pix expiry) agrees with the charge.
  const acquirer = new TestAcquirerSim({ clock: options.clock ?? systemClock });
  const vault = new FakeVault();
  const peers = new InjectPeers();
  peers.register('acquirer-sim', await acquirer.build(PRINCIPALS));
  peers.register('vault', await vault.build());
  const charges = await startService(chargesService, {
    db,
    bus,
    clock: options.clock ?? systemClock,
    principalPublicKey: PRINCIPALS.publicKey,
    peers,
    env: {
      ACQUIRER_TIMEOUT_MS: '200',
      CHARGES_RECOVERY_INTERVAL_MS: '0',
      CHARGES_RECOVERY_MIN_AGE_MS: '1000',
      ...options.env,
    },
    log: { level: 'silent' },
  });
  PRINCIPALS.bind(charges.app);
  peers.register('charges', charges.app);
  return {
    charges,
    app: charges.app,
    db,
    bus,
    acquirer,
    vault,
    peers,
    stop: async () => {
      acquirer.releaseHeld();
      await charges.stop();
      await bus.close();
    },
  };
}

let sellerVersion = 1_000;

/** Delivers gateway.seller-changed.v1 to charges, as the gateway's relay would; resolves once applied. */
export async function publishSeller(
  bus: InProcessBus,
  seller: { sellerId: string; tenantId: string; kycStatus?: KycStatus; version?: number },
): Promise<void> {
  const event: SellerChanged = {
    envelope: newEnvelope('gateway.seller-changed.v1', {
      producer: 'gateway',
      tenantId: seller.tenantId,
      livemode: null,
    }),
    seller_id: seller.sellerId,
    tenant_id: seller.tenantId,
    name: 'Loja',
    kyc_status: seller.kycStatus ?? 'approved',
    anticipation_limit_cents: 0,
    fee_bps_per_month: 0,
    settlement_delay_days: 30,
    mdr_bps: {},
    pricing_plan_id: null,
    version: seller.version ?? ++sellerVersion,
  };
  await bus.publish([
    {
      topic: TOPICS.directory,
      key: seller.tenantId,
      value: encodeEvent('gateway.seller-changed.v1', event),
      headers: {
        [HEADER_EVENT_ID]: event.envelope.event_id,
        [HEADER_EVENT_TYPE]: 'gateway.seller-changed.v1',
      },
    },
  ]);
}

export interface Merchant {
  tenantId: string;
  sellerId: string;
  /** Headers of a seller-scoped test key of this tenant. */
  key: Record<string, string>;
  /** A card token of this seller (visa 4111…1111 unless said otherwise). */
  token(pan?: string): string;
}

/** A fresh tenant with a seller charges knows of, and helpers to make tokens for it. */
export async function merchant(
  h: Harness,
  options: { livemode?: boolean } = {},
): Promise<Merchant> {
  const tenantId = newId('ten_');
  const sellerId = newId('seller_');
  await publishSeller(h.bus, { sellerId, tenantId });
  const livemode = options.livemode ?? false;
  return {
    tenantId,
    sellerId,
    key: { [PRINCIPAL_HEADER]: apiKey({ tenantId, sellerId, livemode }) },
    token: (pan = '4111111111111111') => {
      const id = newId('tok_');
      h.vault.tokens.set(id, {
        tenantId,
        livemode,
        sellerId,
        cardRef: h.acquirer.addCard(pan),
        last4: pan.slice(-4),
      });
      return id;
    },
  };
}

export function buyer(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'Ana Souza',
    email: 'ana@example.com',
    phone: '+55 (11) 98765-4321',
    document: generateCpf(7),
    address: {
      line_1: 'Av. Paulista, 1000',
      zip_code: '01310-100',
      city: 'São Paulo',
      state: 'SP',
    },
    ...overrides,
  };
}

export function cardCharge(
  token: string,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    amount: 10_000,
    payment_method: 'CREDIT_CARD',
    installments: 1,
    card_token: token,
    buyer: buyer(),
    ...overrides,
  };
}

export function post(
  h: Harness,
  url: string,
  headers: Record<string, string>,
  payload?: unknown,
): Promise<InjectResponse> {
  return h.app.inject({
    method: 'POST',
    url,
    headers,
    ...(payload !== undefined ? { payload: payload as object } : {}),
  });
}

export function get(
  h: Harness,
  url: string,
  headers: Record<string, string>,
): Promise<InjectResponse> {
  return h.app.inject({ method: 'GET', url, headers });
}

export const asOperator = (): Record<string, string> => ({ [PRINCIPAL_HEADER]: operator() });

export async function setProviderMode(
  h: Harness,
  mode: 'normal' | 'unavailable' | 'timeout',
): Promise<void> {
  const res = await h.peers.request('acquirer-sim', {
    method: 'POST',
    url: '/admin/v1/simulations/provider',
    headers: asOperator(),
    body: { mode },
  });
  if (res.statusCode !== 200) throw new Error(`could not set the provider mode: ${res.statusCode}`);
}

export async function runJob(
  h: Harness,
  job: string,
  asOfDate?: string,
): Promise<{ job: string; as_of_date: string; processed: number }> {
  const res = await post(
    h,
    `/admin/v1/jobs/${job}`,
    asOperator(),
    asOfDate === undefined ? undefined : { as_of_date: asOfDate },
  );
  if (res.statusCode !== 200) throw new Error(`job ${job} answered ${res.statusCode}: ${res.body}`);
  return res.json();
}

export interface OutboxEvent<K extends EventType = EventType> {
  type: K;
  key: string;
  event: EventMap[K];
}

/** The events in charges' outbox (sent or not), decoded from their Avro bytes, in write order. */
export async function outboxEvents(h: Harness, key?: string): Promise<OutboxEvent[]> {
  const rows = await h.db.read((q) => {
    const query = q('outbox')
      .orderBy('id')
      .select<{ key: string; event_type: string; payload: Buffer | Uint8Array }[]>(
        'key',
        'event_type',
        'payload',
      );
    return key === undefined ? query : query.where({ key });
  });
  return rows.map((row) => {
    if (!isEventType(row.event_type)) throw new Error(`unknown event type ${row.event_type}`);
    return {
      type: row.event_type,
      key: row.key,
      event: decodeEvent(row.event_type, Buffer.from(row.payload)),
    };
  });
}

export interface TransactionCount {
  /**
   * COMMITs sent, plus statements run outside any transaction that succeeded (PostgreSQL commits each of
   * those alone; one that fails writes nothing). The shared embedded connection's search_path settings are
   * not counted: PostgreSQL's pooled connections have theirs from the start.
   */
  commits: number;
  rollbacks: number;
}

/**
 * What `fn` costs the charges database in transactions, counted from the statements knex sends on it.
 * The outbox relay is paused meanwhile (and the background recovery is off in the harness), so nothing
 * else of this service runs on the database; the spec's own reads must stay outside `fn`.
 */
export async function transactionsDuring<T>(
  h: Harness,
  fn: () => Promise<T>,
): Promise<{ result: T; count: TransactionCount }> {
  await h.charges.relay.stop();
  const count: TransactionCount = { commits: 0, rollbacks: 0 };
  const sent = (query: { sql: string }) => {
    const sql = query.sql.trim().toUpperCase();
    if (sql.startsWith('COMMIT')) count.commits++;
    else if (sql.startsWith('ROLLBACK')) count.rollbacks++;
  };
  const answered = (_response: unknown, query: { sql: string; __knexTxId?: string }) => {
    if (query.__knexTxId === undefined && !/^\s*(BEGIN|COMMIT|ROLLBACK|SET )/i.test(query.sql))
      count.commits++;
  };
  h.db.knex.on('query', sent);
  h.db.knex.on('query-response', answered);
  try {
    return { result: await fn(), count };
  } finally {
    h.db.knex.off('query', sent);
    h.db.knex.off('query-response', answered);
    h.charges.startRelay();
  }
}
