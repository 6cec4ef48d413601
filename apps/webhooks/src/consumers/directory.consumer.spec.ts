import type { Knex } from 'knex';
import { createPgliteKnex } from '@pgw/platform-db';
import { waitFor } from '@pgw/testing';
import {
  newCharge,
  newTenant,
  publishCharge,
  publishEndpoint,
  Receiver,
  startWebhooks,
  type Harness,
} from '../testing/harness';

// The endpoint (and its signing secret) comes as gateway.webhook-endpoint-changed.v2 on gateway.webhook-endpoints,
// which only this service consumes; v1 on gateway.directory, what earlier gateways sent, is still applied.

describe('endpoint announcements', () => {
  let knex: Knex;
  let h: Harness;
  let receiver: Receiver;

  beforeAll(async () => {
    knex = createPgliteKnex(null);
    h = await startWebhooks(knex);
    receiver = await Receiver.start();
  });
  afterAll(async () => {
    await h.stop();
    await receiver.stop();
    await knex.destroy();
  });

  it.each(['gateway.webhook-endpoint-changed.v2', 'gateway.webhook-endpoint-changed.v1'] as const)(
    'Proves an endpoint announced as %s receives its tenant events',
    async (type) => {
      const tenantId = newTenant();
      await publishEndpoint(h.bus, { tenantId, url: receiver.url(`/${type}`) }, {}, type);
      await publishCharge(h.bus, 'charges.charge-paid.v1', { tenantId, chargeId: newCharge() });
      await waitFor(
        () => (receiver.requestsTo(`/${type}`).length === 1 ? true : undefined),
        5_000,
        'the delivery',
      );
    },
  );
});
