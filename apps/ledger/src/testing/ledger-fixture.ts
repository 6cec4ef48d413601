// The ledger alone on PGlite and the in-process bus, fed with balance movements as the receivables
// service writes them, and read as the gateway would call it: the fixture of the ledger's specs.
import { encodeEvent, EVENT_TOPICS, newEnvelope, type EventMap } from '@pgw/contracts';
import {
  HEADER_EVENT_ID,
  HEADER_EVENT_TYPE,
  InProcessBus,
  type BusMessage,
} from '@pgw/platform-bus';
import { createPgliteKnex, sharedDb } from '@pgw/platform-db';
import { PRINCIPAL_HEADER, TestPrincipals } from '@pgw/platform-http';
import { InjectPeers, ManualClock, startService, type RunningService } from '@pgw/platform-service';
import { uniqueName } from '@pgw/testing';
import { ledgerService } from '../service';

type Moved = EventMap['receivables.balance-moved.v1'];
const type = 'receivables.balance-moved.v1';

/** The spec plays the gateway: principals are signed with this pair for each request; the ledger holds the public key. */
export const PRINCIPALS = new TestPrincipals();

/** A seller-scoped (or, with `sellerId` null, tenant-wide) API key's principal header with balance:read. */
export function balanceReader(tenantId: string, sellerId: string | null = 'seller_1') {
  return {
    [PRINCIPAL_HEADER]: PRINCIPALS.header({
      kind: 'api_key',
      tenantId,
      sellerId,
      keyId: 'key_x',
      permissions: ['balance:read'],
      livemode: false,
      requestId: 'req_x',
      expiresAtMs: Date.now() + 60_000,
    }),
  };
}

/** Starts the ledger on `db` as the specs run it: no peers, no log, the spec's principals. */
export async function startLedger(
  db: ReturnType<typeof sharedDb>,
  bus: InProcessBus,
  clock: ManualClock,
): Promise<RunningService> {
  const ledger = await startService(ledgerService, {
    db,
    bus,
    clock,
    principalPublicKey: PRINCIPALS.publicKey,
    peers: new InjectPeers(),
    env: {},
    log: { level: 'silent' },
  });
  PRINCIPALS.bind(ledger.app);
  return ledger;
}

/** Call at a spec's top level: the ledger starts before the spec's tests and stops after them. */
export function ledgerFixture() {
  const knex = createPgliteKnex(null);
  const bus = new InProcessBus();
  const db = sharedDb(knex, uniqueName('ledger'));
  const clock = new ManualClock(new Date('2026-03-02T12:00:00Z'));
  let running: RunningService | undefined;

  beforeAll(async () => {
    running = await startLedger(db, bus, clock);
  });
  afterAll(async () => {
    await running?.stop();
    await knex.destroy();
  });

  const ledger = (): RunningService => {
    if (running === undefined) throw new Error('ledgerFixture: used before its beforeAll');
    return running;
  };

  /** A balance movement of `sellerId`, as receivables publishes it. */
  function movement(
    tenantId: string,
    sellerId: string,
    over: Partial<Moved>,
    occurredAtMs = clock.now().getTime(),
    livemode = false,
  ): BusMessage {
    const event: Moved = {
      envelope: newEnvelope(type, { producer: 'receivables', tenantId, livemode, occurredAtMs }),
      seller_id: sellerId,
      type: 'charge.sale',
      charge_id: 'ch_1',
      settlement_id: null,
      anticipation_id: null,
      pending_delta_cents: 0,
      available_delta_cents: 0,
      reserved_delta_cents: 0,
      debt_delta_cents: 0,
      fee_delta_cents: 0,
      gross_delta_cents: 0,
      paid_out_cents: 0,
      ...over,
    };
    return {
      topic: EVENT_TOPICS[type],
      key: sellerId,
      value: encodeEvent(type, event),
      headers: { [HEADER_EVENT_ID]: event.envelope.event_id, [HEADER_EVENT_TYPE]: type },
    };
  }

  /** seller_1's sale: `net` pending, `fee` to the platform. */
  const sale = (tenantId: string, net: number, fee: number, at?: number) =>
    movement(
      tenantId,
      'seller_1',
      { pending_delta_cents: net, fee_delta_cents: fee, gross_delta_cents: net + fee },
      at,
    );

  /** GET `url` with balance:read, as seller `sellerId` of `tenantId` (null: a tenant-wide key). */
  const get = (url: string, tenantId: string, sellerId: string | null = 'seller_1') =>
    ledger().app.inject({ url, headers: balanceReader(tenantId, sellerId) });

  return { knex, bus, db, clock, ledger, movement, sale, get };
}
