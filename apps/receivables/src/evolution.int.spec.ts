// Issue 17: one event in two versions on the real broker and the real schema registry. charges is mid-rollout:
// its older replicas write charge-paid v1, its newer ones v2 (brand, authorization code), interleaved on one
// topic, each message in the Confluent wire format. Two deployments of receivables with the ledger read the
// same stream in consumer groups of their own: one built before v2 (its schemas without it: it reads v2
// through the registry as v1), one built after (it reads each version as written). Each applies every charge
// exactly once, duplicates included, and the money invariants hold in both.
import {
  encodeEvent,
  EVENT_TOPICS,
  EventCatalog,
  eventTypeSchema,
  EventWire,
  HttpSchemaRegistry,
  newEnvelope,
  subjectOf,
  TOPICS,
  type EventMap,
  type EventType,
} from '@pgw/contracts';
import { newId } from '@pgw/domain';
// eslint-disable-next-line @nx/enforce-module-boundaries -- a test composition of receivables with the ledger, as the all-in-one composes them
import { ledgerService } from '@pgw/ledger';
import {
  HEADER_EVENT_ID,
  HEADER_EVENT_TYPE,
  KafkaBus,
  SchemaRegistryBus,
  type Bus,
} from '@pgw/platform-bus';
import { createPgDb, type Db } from '@pgw/platform-db';
import { PRINCIPAL_HEADER, TestPrincipals } from '@pgw/platform-http';
import { HttpPeers, ManualClock, startService, type RunningService } from '@pgw/platform-service';
import { integrationEnv, schemaRegistryUrl, uniqueName, waitFor } from '@pgw/testing';
import { checkInvariants, type ChargeExpectation, type MoneyView } from './scenarios/invariants';
import { receivablesService } from './service';
import { approvedSeller, paidCardCharge } from './testing/events';
import { IsolatedBus } from './testing/isolated-bus';

const PRINCIPALS = new TestPrincipals();
const env = integrationEnv();
const registryUrl = schemaRegistryUrl();
const run = uniqueName('evo');
const tenantId = newId('ten_');
const sellerId = 'seller_evo';
const clock = new ManualClock(new Date('2026-03-02T18:00:00Z'));
const BEFORE_V2 = EventCatalog.current().without('charges.charge-paid.v2');
const SHARED = { prefix: run, topics: [TOPICS.charges, TOPICS.directory] };

/** A bus of one deployment: its own groups and receivables topic, the run's charges and directory topics. */
function bus(deployment: string, clientId: string, catalog: EventCatalog): Bus {
  const kafka = new KafkaBus({
    brokers: env.kafkaBrokers,
    clientId: `${run}-${deployment}-${clientId}`,
    partitions: 3,
  });
  return new SchemaRegistryBus(
    new IsolatedBus(kafka, `${run}.${deployment}`, SHARED),
    new EventWire(new HttpSchemaRegistry(registryUrl), catalog),
  );
}

interface Deployment {
  receivables: RunningService;
  ledger: RunningService;
  view: MoneyView;
  dbs: Db[];
  buses: Bus[];
}

async function deploy(name: string, catalog: EventCatalog): Promise<Deployment> {
  const receivablesDb = createPgDb({
    url: env.databaseUrl,
    schema: uniqueName(`${name}_receivables`),
  });
  const ledgerDb = createPgDb({ url: env.databaseUrl, schema: uniqueName(`${name}_ledger`) });
  const buses = [bus(name, 'ledger', catalog), bus(name, 'receivables', catalog)];
  const context = {
    clock,
    principalPublicKey: PRINCIPALS.publicKey,
    peers: new HttpPeers({}),
    env: {},
    log: { level: 'silent' },
  };
  const ledger = await startService(ledgerService, { ...context, db: ledgerDb, bus: buses[0]! });
  const receivables = await startService(receivablesService, {
    ...context,
    db: receivablesDb,
    bus: buses[1]!,
  });
  PRINCIPALS.bind(ledger.app);
  PRINCIPALS.bind(receivables.app);
  const balance = async (seller: string) => {
    const header = PRINCIPALS.header({
      kind: 'api_key',
      tenantId,
      sellerId: seller,
      keyId: 'key_x',
      permissions: ['balance:read'],
      livemode: false,
      requestId: 'req_evo',
      expiresAtMs: Date.now() + 60_000,
    });
    return (
      await ledger.app.inject({ url: '/api/v1/balance', headers: { [PRINCIPAL_HEADER]: header } })
    ).json();
  };
  const count = async (db: Db, table: string, where: Record<string, unknown>, unsentOnly = false) =>
    Number(
      (
        await db.read((q) =>
          q(table)
            .where(where)
            .modify((b) => void (unsentOnly && b.whereNull('sent_at')))
            .count<{ count: string }[]>('* as count'),
        )
      )[0]?.count,
    );
  const view: MoneyView = {
    tenantId,
    receivablesDb,
    ledgerDb,
    balance,
    settle: async () => {
      await waitFor(
        async () => {
          const unsent = await count(receivablesDb, 'outbox', {}, true);
          const moved = await count(receivablesDb, 'outbox', {
            event_type: 'receivables.balance-moved.v1',
          });
          const booked = await count(ledgerDb, 'journal_entries', { tenant_id: tenantId });
          return unsent === 0 && moved === booked ? true : undefined;
        },
        30_000,
        `${name}: the ledger to book every balance movement`,
      );
    },
  };
  return { receivables, ledger, view, dbs: [receivablesDb, ledgerDb], buses };
}

const deployments: Record<'before' | 'after', Deployment | undefined> = {
  before: undefined,
  after: undefined,
};
const producers = {
  v1: bus('producer', 'charges-old', BEFORE_V2),
  v2: bus('producer', 'charges-new', EventCatalog.current()),
};

async function publish<K extends EventType>(
  producer: Bus,
  type: K,
  key: string,
  event: EventMap[K],
): Promise<void> {
  await producer.publish([
    {
      topic: EVENT_TOPICS[type],
      key,
      value: encodeEvent(type, event),
      headers: { [HEADER_EVENT_ID]: event.envelope.event_id, [HEADER_EVENT_TYPE]: type },
    },
  ]);
}

beforeAll(async () => {
  deployments.before = await deploy('before', BEFORE_V2);
  deployments.after = await deploy('after', EventCatalog.current());
}, 60_000);

afterAll(async () => {
  for (const d of Object.values(deployments)) {
    await d?.receivables.stop();
    await d?.ledger.stop();
    for (const b of d?.buses ?? []) await b.close();
    for (const db of d?.dbs ?? []) {
      await db.knex.raw(`drop schema if exists "${db.schema}" cascade`);
      await db.close();
    }
  }
  for (const b of Object.values(producers)) await b.close();
});

it('applies an interleaved mix of charge-paid v1 and v2 exactly once in a consumer built before v2 and in one built after', async () => {
  await publish(
    producers.v2,
    'gateway.seller-changed.v1',
    `${tenantId}/${sellerId}`,
    approvedSeller(tenantId, sellerId),
  );

  const paidAt = Date.parse('2026-03-02T15:00:00Z');
  const expected = new Map<string, ChargeExpectation & { installments: number }>();
  for (let i = 0; i < 12; i++) {
    const chargeId = newId('ch_');
    const amount = 10_000 + i * 137;
    const installments = 1 + (i % 3);
    expected.set(chargeId, { grossCents: amount, installments });
    const charge = paidCardCharge(chargeId, sellerId, amount, installments, paidAt);
    // Old and new replicas of charges take turns; one of each is delivered twice, as after a relay crash.
    const times = i === 4 || i === 5 ? 2 : 1;
    for (let t = 0; t < times; t++) {
      if (i % 2 === 0) {
        const paid = {
          envelope: newEnvelope('charges.charge-paid.v1', {
            producer: 'charges',
            tenantId,
            livemode: false,
          }),
          charge,
          resource_json: '{}',
        };
        await publish(producers.v1, 'charges.charge-paid.v1', chargeId, paid);
      } else {
        const paid = {
          envelope: newEnvelope('charges.charge-paid.v2', {
            producer: 'charges',
            tenantId,
            livemode: false,
          }),
          charge,
          resource_json: '{}',
          brand: 'visa',
          authorization_code: `A${i}`,
        };
        await publish(producers.v2, 'charges.charge-paid.v2', chargeId, paid);
      }
    }
  }

  // The registry holds both versions under the one subject, set to FULL_TRANSITIVE.
  const subject = encodeURIComponent(subjectOf('charges.charge-paid.v2'));
  expect(subjectOf('charges.charge-paid.v1')).toBe(subjectOf('charges.charge-paid.v2'));
  expect(
    ((await (await fetch(`${registryUrl}/subjects/${subject}/versions`)).json()) as number[])
      .length,
  ).toBeGreaterThanOrEqual(2);
  expect(await (await fetch(`${registryUrl}/config/${subject}`)).json()).toMatchObject({
    compatibilityLevel: 'FULL_TRANSITIVE',
  });
  // What another language's reader gets for v2: its instants as timestamp-millis.
  const v2Id = await new EventWire(new HttpSchemaRegistry(registryUrl)).schemaId(
    'charges.charge-paid.v2',
  );
  const stored = JSON.parse(
    ((await (await fetch(`${registryUrl}/schemas/ids/${v2Id}`)).json()) as { schema: string })
      .schema,
  ) as { fields: Array<{ name: string; type: unknown }> };
  expect(JSON.stringify(stored.fields.find((f) => f.name === 'charge')?.type)).toContain(
    '"created_at","type":{"type":"long","logicalType":"timestamp-millis"}',
  );

  const rows = [...expected.values()].reduce((sum, c) => sum + c.installments, 0);
  for (const [name, d] of Object.entries(deployments)) {
    const { receivablesDb, ledgerDb } = d!.view;
    await waitFor(
      async () =>
        (await receivablesDb.read((q) => q('receivables').where({ tenant_id: tenantId })))
          .length === rows
          ? true
          : undefined,
      60_000,
      `${name}: every installment of every charge`,
    );
    await checkInvariants(d!.view, expected);
    // Exactly once: each charge's installments, each sale booked once, duplicates and versions alike.
    const perCharge = (await receivablesDb.read((q) =>
      q('receivables')
        .where({ tenant_id: tenantId })
        .select('charge_id')
        .count<{ charge_id: string; count: string }[]>('* as count')
        .groupBy('charge_id'),
    )) as Array<{ charge_id: string; count: string }>;
    expect(Object.fromEntries(perCharge.map((r) => [r.charge_id, Number(r.count)]))).toEqual(
      Object.fromEntries([...expected].map(([id, c]) => [id, c.installments])),
    );
    const sales = await ledgerDb.read((q) =>
      q('journal_entries')
        .where({ tenant_id: tenantId, type: 'charge.sale' })
        .count<{ count: string }[]>('* as count'),
    );
    expect([name, Number(sales[0]?.count)]).toEqual([name, expected.size]);
  }
  // Both read the same money: the same balance, to the cent.
  const money = async (d: Deployment) => {
    const { request_id: _r, ...balance } = (await d.view.balance(sellerId)) as Record<
      string,
      unknown
    >;
    return balance;
  };
  expect(await money(deployments.before!)).toEqual(await money(deployments.after!));
  expect((await money(deployments.after!)).pending_cents).toBeGreaterThan(0);
}, 120_000);

it('refuses, in the registry, a version that breaks FULL_TRANSITIVE compatibility with the published ones', async () => {
  const v2 = eventTypeSchema('charges.charge-paid.v2').schema() as { fields: object[] };
  // A required field with no default: v3 could not read v1 or v2.
  const breaking = { ...v2, fields: [...v2.fields, { name: 'acquirer_fee_cents', type: 'long' }] };
  const res = await fetch(
    `${registryUrl}/subjects/${encodeURIComponent(subjectOf('charges.charge-paid.v2'))}/versions`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/vnd.schemaregistry.v1+json' },
      body: JSON.stringify({ schemaType: 'AVRO', schema: JSON.stringify(breaking) }),
    },
  );
  expect(res.status).toBe(409);
});
