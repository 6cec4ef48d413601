// Receivables and the ledger running together on the embedded database and the in-process bus, fed
// with the charges and directory events as the real producers write them (Avro bytes, event-id and
// event-type headers). Shared by the scenario suites.
import type { Knex } from 'knex';
import {
  encodeEvent,
  EVENT_TOPICS,
  newEnvelope,
  type ChargeSnapshot,
  type EventMap,
  type EventType,
} from '@pgw/contracts';
import { newId } from '@pgw/domain';
// eslint-disable-next-line @nx/enforce-module-boundaries -- a test composition of receivables with the ledger, as the all-in-one composes them, to check their invariants together
import { ledgerService } from '@pgw/ledger';
import {
  HEADER_EVENT_ID,
  HEADER_EVENT_TYPE,
  InProcessBus,
  type Bus,
  type BusMessage,
} from '@pgw/platform-bus';
import { sharedDb, type Db } from '@pgw/platform-db';
import { PRINCIPAL_HEADER, TestPrincipals } from '@pgw/platform-http';
import { InjectPeers, ManualClock, startService, type RunningService } from '@pgw/platform-service';
import { uniqueName, waitFor } from '@pgw/testing';
import { createReceivablesService } from '../service';
import type { Bank } from '../operations/bank';

/** The scenarios play the gateway: principals are signed with this pair for each request; the services hold the public key. */
const PRINCIPALS = new TestPrincipals();
export const PAID_AT = new Date('2026-03-02T15:00:00.000Z');

function messageOf([type, key, event]: [EventType, string, EventMap[EventType]]): BusMessage {
  return {
    topic: EVENT_TOPICS[type],
    key,
    value: encodeEvent(type, event as never),
    headers: { [HEADER_EVENT_ID]: event.envelope.event_id, [HEADER_EVENT_TYPE]: type },
  };
}

/** Delivers every message `copies` times: a relay that crashed after publishing, a consumer rebalance. */
class RepeatingBus implements Bus {
  constructor(
    private readonly inner: Bus,
    private readonly copies: number,
  ) {}
  async publish(messages: BusMessage[]): Promise<void> {
    for (let i = 0; i < this.copies; i++) await this.inner.publish(messages);
  }
  subscribe: Bus['subscribe'] = (options) => this.inner.subscribe(options);
  close: Bus['close'] = () => this.inner.close();
}

export interface MoneyOptions {
  /** How many times the bus delivers each message (1, or 2 to prove every consumer idempotent). */
  copies?: number;
  bank?: Bank;
  sellersPerRound?: number;
}

/** One item of an anticipation: the receivable as the API showed it, the fee and the days anticipated. */
export interface AnticipationItem {
  receivable: { id: string; charge_id: string; due_date: string; net_amount_cents: number };
  feeCents: number;
  days: number;
}

/**
 * The anticipation service's execution of items on 2026-03-02 (test mode), as its relay writes it: each
 * item's gross is the receivable's net as the anticipation priced it (a copy that may be stale on
 * purpose), its net the gross less feeCents.
 */
export function anticipationExecuted(
  tenantId: string,
  sellerId: string,
  items: AnticipationItem[],
  anticipationId = newId('ant_'),
): EventMap['anticipation.anticipation-executed.v1'] {
  const type = 'anticipation.anticipation-executed.v1';
  const gross = items.reduce((s, i) => s + i.receivable.net_amount_cents, 0);
  const fee = items.reduce((s, i) => s + i.feeCents, 0);
  return {
    envelope: newEnvelope(type, { producer: 'anticipation', tenantId, livemode: false }),
    anticipation_id: anticipationId,
    seller_id: sellerId,
    status: 'succeeded',
    executed_on: '2026-03-02',
    gross_amount_cents: gross,
    fee_amount_cents: fee,
    net_amount_cents: gross - fee,
    fee_bps_per_month: 199,
    settlement_delay_days: 30,
    pricing_plan_id: null,
    items: items.map((i) => ({
      receivable_id: i.receivable.id,
      charge_id: i.receivable.charge_id,
      due_date: i.receivable.due_date,
      receivable_version: 1,
      days_anticipated: i.days,
      gross_amount_cents: i.receivable.net_amount_cents,
      fee_amount_cents: i.feeCents,
      net_amount_cents: i.receivable.net_amount_cents - i.feeCents,
    })),
    created_at: Date.parse('2026-03-02T18:00:00Z'),
    resource_json: '{}',
  };
}

export interface ApiAnswer {
  statusCode: number;
  body: any;
}

export class Money {
  readonly tenantId = newId('ten_');
  private constructor(
    readonly clock: ManualClock,
    readonly bus: Bus,
    readonly receivablesDb: Db,
    readonly ledgerDb: Db,
    readonly receivables: RunningService,
    readonly ledger: RunningService,
  ) {}

  static async start(knex: Knex, options: MoneyOptions = {}): Promise<Money> {
    const inner = new InProcessBus();
    const bus = new RepeatingBus(inner, options.copies ?? 1);
    const receivablesDb = sharedDb(knex, uniqueName('receivables'));
    const ledgerDb = sharedDb(knex, uniqueName('ledger'));
    const clock = new ManualClock(new Date('2026-03-02T18:00:00.000Z'));
    const peers = new InjectPeers();
    const context = {
      bus,
      clock,
      principalPublicKey: PRINCIPALS.publicKey,
      peers,
      env: {},
      log: { level: 'silent' },
    };
    // The ledger subscribes first: the in-process bus delivers only to groups already listening.
    const ledger = await startService(ledgerService, { ...context, db: ledgerDb });
    const receivables = await startService(
      createReceivablesService({
        ...(options.bank ? { bank: options.bank } : {}),
        ...(options.sellersPerRound !== undefined
          ? { sellersPerRound: options.sellersPerRound }
          : {}),
      }),
      { ...context, db: receivablesDb },
    );
    PRINCIPALS.bind(ledger.app);
    PRINCIPALS.bind(receivables.app);
    return new Money(clock, bus, receivablesDb, ledgerDb, receivables, ledger);
  }

  async stop(): Promise<void> {
    await this.receivables.stop();
    await this.ledger.stop();
    await this.bus.close();
  }

  /** Publishes events as their producer's relay would, and waits until both services applied everything. */
  async publish(...events: Array<[EventType, string, EventMap[EventType]]>): Promise<void> {
    for (const event of events) await this.bus.publish([messageOf(event)]);
    await this.settle();
  }

  /** As `publish`, but in one batch: each consumer applies them in one transaction. */
  async publishAsOneBatch(
    ...events: Array<[EventType, string, EventMap[EventType]]>
  ): Promise<void> {
    await this.bus.publish(events.map(messageOf));
    await this.settle();
  }

  /** Waits until the receivables outbox is published (the in-process bus resolves once the ledger applied it). */
  async settle(): Promise<void> {
    await waitFor(
      async () => {
        const rows = await this.receivablesDb.read((q) =>
          q('outbox').whereNull('sent_at').count<{ count: string | number }[]>('* as count'),
        );
        return Number(rows[0]?.count ?? 0) === 0 ? true : undefined;
      },
      10_000,
      'the receivables outbox to drain',
    );
  }

  seller(
    sellerId: string,
    over: Partial<EventMap['gateway.seller-changed.v1']> = {},
  ): [EventType, string, EventMap[EventType]] {
    const event: EventMap['gateway.seller-changed.v1'] = {
      envelope: newEnvelope('gateway.seller-changed.v1', {
        producer: 'gateway',
        tenantId: this.tenantId,
        livemode: null,
      }),
      seller_id: sellerId,
      tenant_id: this.tenantId,
      name: sellerId,
      kyc_status: 'approved',
      anticipation_limit_cents: 0,
      fee_bps_per_month: 199,
      settlement_delay_days: 30,
      mdr_bps: { credit_card: 299, debit_card: 199, pix: 99, boleto: 149 },
      pricing_plan_id: null,
      version: 1,
      ...over,
    };
    return ['gateway.seller-changed.v1', this.tenantId, event];
  }

  plan(
    planId: string,
    over: Partial<EventMap['gateway.pricing-plan-changed.v1']> = {},
  ): [EventType, string, EventMap[EventType]] {
    const event: EventMap['gateway.pricing-plan-changed.v1'] = {
      envelope: newEnvelope('gateway.pricing-plan-changed.v1', {
        producer: 'gateway',
        tenantId: this.tenantId,
        livemode: null,
      }),
      pricing_plan_id: planId,
      tenant_id: this.tenantId,
      name: planId,
      fee_bps_per_month: 150,
      settlement_delay_days: 15,
      mdr_bps: {},
      is_default: false,
      version: 1,
      ...over,
    };
    return ['gateway.pricing-plan-changed.v1', this.tenantId, event];
  }

  charge(sellerId: string, over: Partial<ChargeSnapshot> = {}): ChargeSnapshot {
    return {
      charge_id: newId('ch_'),
      seller_id: sellerId,
      status: 'paid',
      amount_cents: 10_000,
      currency: 'BRL',
      payment_method: 'credit_card',
      capture_method: 'automatic',
      installments: 1,
      captured: true,
      paid_at: PAID_AT.getTime(),
      refunded_cents: 0,
      chargeback_cents: 0,
      split: [],
      created_at: PAID_AT.getTime(),
      updated_at: PAID_AT.getTime(),
      ...over,
    };
  }

  paid(charge: ChargeSnapshot, livemode = false): [EventType, string, EventMap[EventType]] {
    const type = 'charges.charge-paid.v1';
    return [
      type,
      charge.charge_id,
      {
        envelope: newEnvelope(type, { producer: 'charges', tenantId: this.tenantId, livemode }),
        charge,
        resource_json: '{}',
      },
    ];
  }

  refunded(
    charge: ChargeSnapshot,
    amountCents: number,
    livemode = false,
  ): [EventType, string, EventMap[EventType]] {
    const type = 'charges.refund-succeeded.v1';
    const snapshot = {
      ...charge,
      refunded_cents: charge.refunded_cents + amountCents,
      status: 'partially_refunded',
    };
    charge.refunded_cents += amountCents;
    return [
      type,
      charge.charge_id,
      {
        envelope: newEnvelope(type, { producer: 'charges', tenantId: this.tenantId, livemode }),
        charge: snapshot,
        refund: {
          refund_id: newId('rf_'),
          status: 'succeeded',
          amount_cents: amountCents,
          reason: null,
          succeeded_at: Date.now(),
          created_at: Date.now(),
        },
        resource_json: '{}',
      },
    ];
  }

  chargeback(
    step: 'opened' | 'won' | 'lost',
    charge: ChargeSnapshot,
    chargebackId: string,
    amountCents: number,
  ): [EventType, string, EventMap[EventType]] {
    const type = `charges.chargeback-${step}.v1` as const;
    return [
      type,
      charge.charge_id,
      {
        envelope: newEnvelope(type, {
          producer: 'charges',
          tenantId: this.tenantId,
          livemode: false,
        }),
        charge: { ...charge, status: 'chargeback' },
        chargeback: {
          chargeback_id: chargebackId,
          status: step === 'opened' ? 'open' : step,
          amount_cents: amountCents,
          reason_code: null,
          opened_at: Date.now(),
          resolved_at: null,
        },
        resource_json: '{}',
      },
    ];
  }

  /** The anticipation service's execution of items in this tenant (anticipationExecuted). */
  anticipated(
    sellerId: string,
    items: AnticipationItem[],
    anticipationId = newId('ant_'),
  ): [EventType, string, EventMap['anticipation.anticipation-executed.v1']] {
    return [
      'anticipation.anticipation-executed.v1',
      sellerId,
      anticipationExecuted(this.tenantId, sellerId, items, anticipationId),
    ];
  }

  principal(
    options: {
      sellerId?: string | null;
      permissions?: string[];
      tenantId?: string;
      livemode?: boolean;
    } = {},
  ): string {
    return PRINCIPALS.header({
      kind: 'api_key',
      tenantId: options.tenantId ?? this.tenantId,
      sellerId: options.sellerId ?? null,
      keyId: 'key_x',
      permissions: options.permissions ?? ['receivables:read', 'settlements:read', 'balance:read'],
      livemode: options.livemode ?? false,
      requestId: 'req_x',
      expiresAtMs: Date.now() + 60_000,
    });
  }

  /** GET on the service that owns the path, as the gateway forwards it. */
  async get(url: string, principal = this.principal()): Promise<ApiAnswer> {
    const app = url.startsWith('/api/v1/balance') ? this.ledger.app : this.receivables.app;
    const res = await app.inject({
      method: 'GET',
      url,
      headers: { [PRINCIPAL_HEADER]: principal },
    });
    return { statusCode: res.statusCode, body: res.json() };
  }

  async balance(sellerId: string): Promise<{
    pending_cents: number;
    available_cents: number;
    reserved_cents: number;
    requestable_cents: number;
  }> {
    const res = await this.get('/api/v1/balance', this.principal({ sellerId }));
    if (res.statusCode !== 200)
      throw new Error(`balance answered ${res.statusCode}: ${JSON.stringify(res.body)}`);
    return res.body;
  }

  operatorPrincipal(): string {
    return PRINCIPALS.header({
      kind: 'operator',
      requestId: 'req_op',
      expiresAtMs: Date.now() + 60_000,
    });
  }

  async job(name: 'receivables-release' | 'settlement-run', asOfDate?: string): Promise<ApiAnswer> {
    const principal = this.operatorPrincipal();
    const res = await this.receivables.app.inject({
      method: 'POST',
      url: `/admin/v1/jobs/${name}`,
      headers: { [PRINCIPAL_HEADER]: principal },
      ...(asOfDate === undefined ? {} : { payload: { as_of_date: asOfDate } }),
    });
    await this.settle();
    return { statusCode: res.statusCode, body: res.json() };
  }

  async receivablesOf(chargeId: string): Promise<any[]> {
    const res = await this.get(`/api/v1/receivables?limit=100`);
    return (res.body.data as any[])
      .filter((r) => r.charge_id === chargeId)
      .sort((a, b) => a.seller_id.localeCompare(b.seller_id) || a.installment - b.installment);
  }
}
