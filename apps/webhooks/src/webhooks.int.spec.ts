import { KafkaBus } from '@pgw/platform-bus';
import { createPgDb, type Db } from '@pgw/platform-db';
import { integrationEnv, uniqueName, waitFor } from '@pgw/testing';
import { verifyWebhook } from '@pgw/webhook-signature';
import { createWebhooksService } from './service';
import {
  newCharge,
  newTenant,
  onTopicsOfThisRun,
  operatorHeaders,
  publishCharge,
  publishEndpoint,
  Receiver,
  startWebhooks,
  type Harness,
} from './testing/harness';

// The distributed mode's path: an event published to the real Kafka broker, consumed by the webhooks
// service on the real PostgreSQL, reaches a receiver on 127.0.0.1 signed, after a retry. Topics,
// consumer groups and the schema belong to this run only.
const env = integrationEnv();

describe('webhooks over real Kafka and PostgreSQL', () => {
  const suffix = uniqueName('it');
  let db: Db;
  let bus: KafkaBus;
  let h: Harness;
  let receiver: Receiver;

  beforeAll(async () => {
    db = createPgDb({ url: env.databaseUrl, schema: uniqueName('webhooks') });
    bus = new KafkaBus({ brokers: env.kafkaBrokers, clientId: 'webhooks-it' });
    receiver = await Receiver.start();
    const definition = {
      ...onTopicsOfThisRun(createWebhooksService(), { topicSuffix: suffix }),
      name: uniqueName('webhooks_it'),
    };
    h = await startWebhooks(db.knex, { db, bus, definition });
  }, 60_000);
  afterAll(async () => {
    await h?.stop();
    await bus?.close();
    await db?.close();
    await receiver?.stop();
  });

  it('delivers a charge event published through Kafka to the receiver, signed with the endpoint secret, retried after a 500', async () => {
    const tenantId = newTenant();
    const endpoint = await publishEndpoint(
      bus,
      { tenantId, url: receiver.url('/kafka') },
      { topicSuffix: suffix },
    );
    // The directory and the charges are two topics: wait for the endpoint before the charge event.
    await waitFor(
      async () =>
        (await db.read((q) => q('webhook_endpoints').where({ id: endpoint.id }).first()))
          ? true
          : undefined,
      30_000,
      'the endpoint',
    );
    receiver.on('/kafka', (i) => (i === 0 ? { status: 500 } : { status: 200 }));
    const event = await publishCharge(
      bus,
      'charges.charge-paid.v1',
      { tenantId, chargeId: newCharge() },
      { topicSuffix: suffix },
    );

    const requests = await waitFor(
      () => (receiver.requestsTo('/kafka').length >= 2 ? receiver.requestsTo('/kafka') : undefined),
      30_000,
      'two attempts',
    );
    for (const r of requests) {
      expect(r.event).toMatchObject({
        id: event.envelope.event_id,
        object: 'event',
        type: 'charge.paid',
        livemode: false,
        data: { object: JSON.parse(event.resource_json) },
      });
      expect(
        verifyWebhook({
          rawBody: r.rawBody,
          header: r.headers['x-signature'],
          secrets: [endpoint.secret],
        }).ok,
      ).toBe(true);
    }
    const list = await h.service.app.inject({
      url: `/admin/v1/webhook-endpoints/${endpoint.id}/deliveries`,
      headers: operatorHeaders(),
    });
    const [delivery] = list.json().data;
    const detail = await waitFor(
      async () => {
        const d = (
          await h.service.app.inject({
            url: `/admin/v1/webhook-deliveries/${delivery.id}`,
            headers: operatorHeaders(),
          })
        ).json();
        return d.status === 'succeeded' ? d : undefined;
      },
      10_000,
      'the delivery to succeed',
    );
    expect(detail.attempts.map((a: { status_code: number }) => a.status_code)).toEqual([500, 200]);
  }, 60_000);
});
