import type { Knex } from 'knex';
import { createPgliteKnex } from '@pgw/platform-db';
import { statementsDuring } from '@pgw/testing';
import {
  chargeEvent,
  newCharge,
  newTenant,
  publishEndpoint,
  startWebhooks,
  type ChargeEventInput,
  type ChargeEventType,
  type Harness,
} from '../testing/harness';
import { EVENT_TOPICS, encodeEvent, type ChargeEvent } from '@pgw/contracts';
import { HEADER_EVENT_ID, HEADER_EVENT_TYPE, type BusMessage } from '@pgw/platform-bus';

// The events consumer on one embedded PostgreSQL, fed one batch at a time through the in-process bus (one
// publish is one batch for the group, as one fetch of a partition is on Kafka).

describe('the webhooks events consumer', () => {
  let knex: Knex;
  let h: Harness;

  beforeAll(async () => {
    knex = createPgliteKnex(null);
    // Deliveries are not attempted within a test: the rows the consumer wrote stay as written.
    h = await startWebhooks(knex, { env: { WEBHOOK_POLL_INTERVAL_MS: '60000' } });
  });
  afterAll(async () => {
    await h?.stop();
    await knex.destroy();
  });

  const messageOf = (
    type: ChargeEventType,
    input: ChargeEventInput,
    change: (event: ChargeEvent) => ChargeEvent = (event) => event,
  ): BusMessage => {
    const event = change(chargeEvent(type, input));
    return {
      topic: EVENT_TOPICS[type],
      key: input.chargeId,
      value: encodeEvent(type, event),
      headers: { [HEADER_EVENT_ID]: event.envelope.event_id, [HEADER_EVENT_TYPE]: type },
    };
  };
  const idOf = (m: BusMessage) => m.headers[HEADER_EVENT_ID] as string;
  const deliveries = (eventIds: string[]) =>
    h.db.read((q) =>
      q('webhook_deliveries')
        .whereIn('event_id', eventIds)
        .orderBy('seq')
        .select<Array<{ endpoint_id: string; event_id: string }>>('endpoint_id', 'event_id'),
    );
  const storedEvents = (eventIds: string[]) =>
    h.db.read((q) => q('webhook_events').whereIn('event_id', eventIds).pluck('event_id'));

  it('reads the endpoints of a whole batch once and writes its deliveries in one statement, in the order of its events', async () => {
    const [a, b, quiet] = [newTenant(), newTenant(), newTenant()];
    const aTest = await publishEndpoint(h.bus, { tenantId: a, url: 'https://a.example/test' });
    const aLive = await publishEndpoint(h.bus, {
      tenantId: a,
      url: 'https://a.example/live',
      livemode: true,
    });
    // Wants refunds only: no delivery of the paid event.
    await publishEndpoint(h.bus, {
      tenantId: b,
      url: 'https://b.example/refunds',
      events: ['charge.refunded'],
    });
    const bAll = await publishEndpoint(h.bus, { tenantId: b, url: 'https://b.example/all' });
    const chargeA = newCharge();
    const batch = [
      messageOf('charges.charge-created.v1', { tenantId: a, chargeId: chargeA, status: 'pending' }),
      messageOf('charges.charge-paid.v1', { tenantId: b, chargeId: newCharge() }),
      messageOf('charges.charge-paid.v1', { tenantId: quiet, chargeId: newCharge() }),
      messageOf('charges.charge-paid.v1', { tenantId: a, chargeId: chargeA, livemode: true }),
      messageOf('charges.charge-paid.v1', { tenantId: a, chargeId: chargeA }),
    ];
    const ids = batch.map(idOf);

    const sent = (await statementsDuring(knex, () => h.bus.publish(batch)))
      .map((sql) => sql.trim())
      .filter((sql) => !sql.startsWith('set search_path'));
    expect(sent).toEqual([
      expect.stringMatching(
        /^select \* from "webhook_endpoints" where \("tenant_id", "livemode"\) in/,
      ),
      expect.stringMatching(/^with write_0 as \(insert into "inbox"/),
    ]);

    expect(await deliveries(ids)).toEqual([
      { endpoint_id: aTest.id, event_id: ids[0] },
      { endpoint_id: bAll.id, event_id: ids[1] },
      { endpoint_id: aLive.id, event_id: ids[3] },
      { endpoint_id: aTest.id, event_id: ids[4] },
    ]);
    expect((await storedEvents(ids)).sort()).toEqual([ids[0], ids[1], ids[3], ids[4]].sort());
  });

  it("reads nothing for a batch whose events are no integrator's business", async () => {
    const tenantId = newTenant();
    await publishEndpoint(h.bus, { tenantId, url: 'https://c.example/hooks' });
    // Outside any environment, as a system event would be.
    const batch = [
      messageOf('charges.charge-paid.v1', { tenantId, chargeId: newCharge() }, (event) => ({
        ...event,
        envelope: { ...event.envelope, livemode: null },
      })),
    ];
    const sent = await statementsDuring(knex, () => h.bus.publish(batch));
    expect(sent.filter((sql) => /webhook_endpoints|^begin/i.test(sql))).toEqual([]);
    expect(await deliveries(batch.map(idOf))).toEqual([]);
  });

  it('records an event once: redelivered, or replayed after its inbox id was pruned', async () => {
    const tenantId = newTenant();
    const endpoint = await publishEndpoint(h.bus, { tenantId, url: 'https://d.example/hooks' });
    const batch = [
      messageOf('charges.charge-paid.v1', { tenantId, chargeId: newCharge() }),
      messageOf('charges.charge-paid.v1', { tenantId, chargeId: newCharge() }),
    ];
    const ids = batch.map(idOf);
    await h.bus.publish(batch);
    await h.bus.publish(batch);
    await h.db.tx((trx) => trx('inbox').whereIn('event_id', ids).del());
    await h.bus.publish(batch);
    expect(await deliveries(ids)).toEqual(
      ids.map((eventId) => ({ endpoint_id: endpoint.id, event_id: eventId })),
    );
    expect(await h.db.read((q) => q('inbox').whereIn('event_id', ids).pluck('event_id'))).toEqual(
      expect.arrayContaining(ids),
    );
  });
});
