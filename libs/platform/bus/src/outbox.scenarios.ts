// The outbox → relay → bus → inbox scenarios, run by outbox.spec.ts on the embedded database with the
// in-process bus and by outbox.int.spec.ts on PostgreSQL with the real Kafka broker.
import { decodeEvent, newEnvelope, outboxMessage, type TenantChanged } from '@pgw/contracts';
import type { Db, Migration } from '@pgw/platform-db';
import { waitFor } from '@pgw/testing';
import { HEADER_EVENT_ID, HEADER_EVENT_TYPE, type Bus, type BusMessage } from './bus';
import { inboxHandler } from './inbox';
import { busMigration, enqueue, OutboxRelay } from './outbox';

export const consumerMigration: Migration = {
  name: '0001_tenants',
  up: async (trx) =>
    void (await trx.raw(
      'create table tenants (tenant_id text primary key, name text not null, applied int not null default 1)',
    )),
};

export function tenantEvent(tenantId: string, name: string): TenantChanged {
  return {
    envelope: newEnvelope('gateway.tenant-changed.v1', {
      producer: 'test',
      tenantId,
      livemode: null,
    }),
    tenant_id: tenantId,
    name,
    treasury_available_cash_cents: 0,
    version: 1,
  };
}

export interface Services {
  producer: Db;
  consumer: Db;
  bus: Bus;
  topicSuffix: string;
}

export async function prepare(services: Services): Promise<void> {
  await services.producer.migrate([busMigration]);
  await services.consumer.migrate([busMigration, consumerMigration]);
}

/** A tenant-changed event as a consumer receives it from the bus (Avro body, event-id and event-type headers). */
export function tenantMessage(tenantId: string, name: string): BusMessage {
  const m = outboxMessage('gateway.tenant-changed.v1', tenantId, tenantEvent(tenantId, name));
  return {
    topic: m.topic,
    key: m.key,
    value: m.payload,
    headers: { [HEADER_EVENT_ID]: m.eventId, [HEADER_EVENT_TYPE]: m.eventType },
  };
}

/** Writes the event in a producer transaction, exactly as a service does. */
export async function writeEvent(db: Db, event: TenantChanged, topic: string): Promise<void> {
  await db.tx(async (trx) => {
    await enqueue(db, trx, [
      { ...outboxMessage('gateway.tenant-changed.v1', event.tenant_id, event), topic },
    ]);
  });
}

/** The consumer service: decodes the Avro bytes and applies each event to its own table, in its inbox transaction. */
export function consumerHandler(db: Db, deliveries: BusMessage[]) {
  const apply = inboxHandler(db, 'tenants-consumer', async (trx, message) => {
    if (message.headers[HEADER_EVENT_TYPE] !== 'gateway.tenant-changed.v1')
      throw new Error('unexpected type');
    const event = decodeEvent('gateway.tenant-changed.v1', message.value);
    await trx.raw(
      'insert into tenants (tenant_id, name) values (?, ?) on conflict (tenant_id) do update set applied = tenants.applied + 1',
      [event.tenant_id, event.name],
    );
  });
  return async (batch: BusMessage[]) => {
    deliveries.push(...batch);
    await apply(batch);
  };
}

export async function appliedCount(db: Db, tenantId: string): Promise<number | undefined> {
  const rows = await db.read((q) =>
    q('tenants').where({ tenant_id: tenantId }).select<{ applied: number }[]>('applied'),
  );
  return rows[0]?.applied;
}

export async function unsentCount(db: Db): Promise<number> {
  const rows = await db.read((q) =>
    q('outbox').whereNull('sent_at').count<{ count: string | number }[]>('* as count'),
  );
  return Number(rows[0]?.count ?? 0);
}

/** A bus that publishes and then fails, as a relay that crashes before it marks its rows sent. */
export function crashAfterPublish(bus: Bus): Bus & { crashes: number } {
  const wrapper = {
    crashes: 1,
    publish: async (messages: BusMessage[]) => {
      await bus.publish(messages);
      if (wrapper.crashes > 0) {
        wrapper.crashes--;
        throw new Error('relay crashed after publishing');
      }
    },
    subscribe: bus.subscribe.bind(bus),
    close: bus.close.bind(bus),
  };
  return wrapper;
}

export function relay(db: Db, bus: Bus): OutboxRelay {
  return new OutboxRelay({ db, bus, pollIntervalMs: 20 });
}

export { waitFor };
