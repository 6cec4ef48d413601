// The anticipation service on the embedded database and the in-process bus, fed with directory and
// receivable events as their producers write them (Avro bytes, event-id and event-type headers), and
// driven through its routes as the gateway forwards them (a signed principal). Shared by the suites.
import type { Knex } from 'knex';
import {
  decodeEvent,
  encodeEvent,
  EVENT_TOPICS,
  newEnvelope,
  type EventMap,
  type EventType,
} from '@pgw/contracts';
import { newId } from '@pgw/domain';
import { HEADER_EVENT_ID, HEADER_EVENT_TYPE, InProcessBus, type Bus } from '@pgw/platform-bus';
import { sharedDb, type Db } from '@pgw/platform-db';
import { PRINCIPAL_HEADER, TestPrincipals } from '@pgw/platform-http';
import { InjectPeers, ManualClock, startService, type RunningService } from '@pgw/platform-service';
import { uniqueName } from '@pgw/testing';
import { anticipationService } from '../service';

/** The suites play the gateway: principals are signed with this pair for each request; the service holds the public key. */
export const PRINCIPALS = new TestPrincipals();
/** Today, for every suite: 2026-03-02. */
export const NOW = new Date('2026-03-02T12:00:00.000Z');
export const TODAY = '2026-03-02';

export interface Answer {
  statusCode: number;
  headers: Record<string, unknown>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a JSON answer, read by the tests' expectations field by field
  body: any;
}

export interface PrincipalOptions {
  tenantId?: string;
  sellerId?: string | null;
  permissions?: string[];
  livemode?: boolean;
}

type Event<K extends EventType> = Omit<EventMap[K], 'envelope'>;

export class Harness {
  readonly tenantId = newId('ten_');
  private versions = new Map<string, number>();

  private constructor(
    readonly db: Db,
    readonly bus: Bus,
    readonly clock: ManualClock,
    readonly service: RunningService,
  ) {}

  /**
   * A fresh schema on the shared embedded database (suites share one database per file, not one
   * service), or the given database and bus (PostgreSQL and Kafka in the integration suite).
   */
  static async start(knex: Knex | null, options: { db?: Db; bus?: Bus } = {}): Promise<Harness> {
    let db = options.db;
    if (db === undefined) {
      if (knex === null) throw new Error('Harness.start needs a knex or a db');
      db = sharedDb(knex, uniqueName('anticipation'));
    }
    const bus = options.bus ?? new InProcessBus();
    const clock = new ManualClock(NOW);
    const service = await startService(anticipationService, {
      db,
      bus,
      clock,
      principalPublicKey: PRINCIPALS.publicKey,
      peers: new InjectPeers(),
      env: {},
      log: { level: 'silent' },
    });
    PRINCIPALS.bind(service.app);
    return new Harness(db, bus, clock, service);
  }

  async stop(): Promise<void> {
    await this.service.stop();
    await this.bus.close();
  }

  private nextVersion(key: string): number {
    const v = (this.versions.get(key) ?? 0) + 1;
    this.versions.set(key, v);
    return v;
  }

  /** Publishes as the producer's relay would; the in-process bus resolves once the service applied it (Kafka does not). */
  async publish<K extends EventType>(
    type: K,
    key: string,
    body: Event<K>,
    env: { tenantId?: string | null; livemode?: boolean | null } = {},
  ): Promise<void> {
    const envelope = newEnvelope(type, {
      producer: type.split('.')[0] ?? 'test',
      tenantId: env.tenantId === undefined ? this.tenantId : env.tenantId,
      livemode: env.livemode === undefined ? null : env.livemode,
    });
    const event = { envelope, ...body } as EventMap[K];
    await this.bus.publish([
      {
        topic: EVENT_TOPICS[type],
        key,
        value: encodeEvent(type, event),
        headers: { [HEADER_EVENT_ID]: envelope.event_id, [HEADER_EVENT_TYPE]: type },
      },
    ]);
  }

  async tenant(treasuryCents: number, tenantId = this.tenantId): Promise<void> {
    await this.publish(
      'gateway.tenant-changed.v1',
      tenantId,
      {
        tenant_id: tenantId,
        name: 'Loja',
        treasury_available_cash_cents: treasuryCents,
        version: this.nextVersion(tenantId),
      },
      { tenantId },
    );
  }

  async seller(
    sellerId: string,
    over: Partial<Event<'gateway.seller-changed.v1'>> = {},
  ): Promise<void> {
    await this.publish('gateway.seller-changed.v1', this.tenantId, {
      seller_id: sellerId,
      tenant_id: this.tenantId,
      name: sellerId,
      kyc_status: 'approved',
      anticipation_limit_cents: 100_000_000,
      fee_bps_per_month: 199,
      settlement_delay_days: 30,
      mdr_bps: { credit_card: 299 },
      pricing_plan_id: null,
      version: this.nextVersion(sellerId),
      ...over,
    });
  }

  async plan(
    planId: string,
    over: Partial<Event<'gateway.pricing-plan-changed.v1'>> = {},
  ): Promise<void> {
    await this.publish('gateway.pricing-plan-changed.v1', this.tenantId, {
      pricing_plan_id: planId,
      tenant_id: this.tenantId,
      name: planId,
      fee_bps_per_month: 150,
      settlement_delay_days: 15,
      mdr_bps: {},
      is_default: false,
      version: this.nextVersion(planId),
      ...over,
    });
  }

  /** A receivable as the receivables service announces it (pending, due in 30 days, net 9,701 unless told). */
  async receivable(
    sellerId: string,
    over: Partial<EventMap['receivables.receivable-changed.v1']['receivable']> = {},
    env: { livemode?: boolean; tenantId?: string } = {},
  ): Promise<string> {
    const id = over.receivable_id ?? newId('recv_');
    const gross = over.gross_amount_cents ?? 10_000;
    const fee = over.fee_amount_cents ?? 299;
    await this.publish(
      'receivables.receivable-changed.v1',
      sellerId,
      {
        receivable: {
          receivable_id: id,
          seller_id: sellerId,
          charge_id: newId('ch_'),
          payment_method: 'credit_card',
          installment: 1,
          installments: 1,
          gross_amount_cents: gross,
          fee_amount_cents: fee,
          net_amount_cents: gross - fee,
          mdr_bps: 299,
          debited_gross_cents: 0,
          due_date: '2026-04-01',
          original_due_date: over.due_date ?? '2026-04-01',
          status: 'pending',
          anticipation_id: null,
          settlement_id: null,
          created_at: NOW.getTime(),
          updated_at: NOW.getTime(),
          version: this.nextVersion(id),
          ...over,
        },
        previous_status: null,
        reason: 'created',
      },
      { tenantId: env.tenantId ?? this.tenantId, livemode: env.livemode ?? false },
    );
    return id;
  }

  principal(options: PrincipalOptions = {}): string {
    return PRINCIPALS.header({
      kind: 'api_key',
      tenantId: options.tenantId ?? this.tenantId,
      sellerId: options.sellerId === undefined ? 'seller_a' : options.sellerId,
      keyId: 'key_x',
      permissions: options.permissions ?? ['anticipations:read', 'anticipations:create'],
      livemode: options.livemode ?? false,
      requestId: 'req_x',
      expiresAtMs: Date.now() + 60_000,
    });
  }

  async request(
    method: 'GET' | 'POST',
    url: string,
    options: { body?: unknown; principal?: string | null; headers?: Record<string, string> } = {},
  ): Promise<Answer> {
    const principal = options.principal === undefined ? this.principal() : options.principal;
    const res = await this.service.app.inject({
      method,
      url,
      headers: {
        ...(principal === null ? {} : { [PRINCIPAL_HEADER]: principal }),
        ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...options.headers,
      },
      ...(options.body !== undefined ? { payload: JSON.stringify(options.body) } : {}),
    });
    return {
      statusCode: res.statusCode,
      headers: res.headers,
      body: res.body === '' ? null : res.json(),
    };
  }

  simulate(body?: unknown, principal?: string): Promise<Answer> {
    return this.request('POST', '/api/v1/anticipations/simulate', {
      body,
      ...(principal === undefined ? {} : { principal }),
    });
  }

  execute(body?: unknown, options: { principal?: string; key?: string } = {}): Promise<Answer> {
    return this.request('POST', '/api/v1/anticipations', {
      body,
      ...(options.principal === undefined ? {} : { principal: options.principal }),
      ...(options.key === undefined ? {} : { headers: { 'idempotency-key': options.key } }),
    });
  }

  /** The executed events this service wrote to its outbox, decoded, oldest first. */
  async executedEvents(): Promise<
    Array<EventMap['anticipation.anticipation-executed.v1'] & { key: string }>
  > {
    const rows = (await this.db.read((q) =>
      q('outbox').where({ event_type: 'anticipation.anticipation-executed.v1' }).orderBy('id'),
    )) as Array<{ key: string; payload: Uint8Array }>;
    return rows.map((r) => ({
      ...decodeEvent('anticipation.anticipation-executed.v1', Buffer.from(r.payload)),
      key: r.key,
    }));
  }

  /** Every table of the service's schema, every row, in a stable order: what "changes nothing" compares. */
  async snapshot(): Promise<Record<string, unknown[]>> {
    return this.db.read(async (q) => {
      const tables = (
        await q.raw(
          'select table_name from information_schema.tables where table_schema = ? order by table_name',
          [this.db.schema],
        )
      ).rows as Array<{ table_name: string }>;
      const out: Record<string, unknown[]> = {};
      for (const { table_name: table } of tables) {
        const rows = (await q.raw(`select * from "${this.db.schema}"."${table}"`)).rows as Array<
          Record<string, unknown>
        >;
        out[table] = rows
          .map((r) =>
            JSON.stringify(r, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)),
          )
          .sort();
      }
      return out;
    });
  }
}
