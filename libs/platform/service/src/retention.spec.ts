import { InProcessBus } from '@pgw/platform-bus';
import { createPgliteKnex, sharedDb } from '@pgw/platform-db';
import { generatePrincipalKeys } from '@pgw/platform-http';
import { waitFor } from '@pgw/testing';
import { systemClock } from './clock';
import { InjectPeers } from './peers';
import { startService, type ServiceDefinition } from './service';

const definition: ServiceDefinition = { name: 'keeper', migrations: [], build: async () => ({}) };

describe('a service prunes its outbox and inbox by itself', () => {
  const knex = createPgliteKnex(null);
  afterAll(() => knex.destroy());

  // Proves every service started by startService runs the retention of issue 16 item 10, on its interval.
  it('deletes a sent outbox row and an old inbox row on its interval, keeping the unsent row', async () => {
    const db = sharedDb(knex, 'keeper');
    const env = {
      BUS_RETENTION_INTERVAL_MS: '100',
      OUTBOX_RETENTION_MS: '60000',
      INBOX_RETENTION_MS: '60000',
    };
    const service = await startService(definition, {
      db,
      bus: new InProcessBus(),
      clock: systemClock,
      principalPublicKey: generatePrincipalKeys().publicKey,
      peers: new InjectPeers(),
      env,
      log: { level: 'silent' },
    });
    try {
      const old = db.knex.raw(`now() - interval '1 hour'`);
      await db.tx(async (trx) => {
        await trx('outbox').insert([
          {
            topic: 't',
            key: 'k',
            event_id: 'evt_sent',
            event_type: 'x',
            payload: Buffer.from('p'),
            sent_at: old,
          },
          {
            topic: 't',
            key: 'k',
            event_id: 'evt_unsent',
            event_type: 'x',
            payload: Buffer.from('p'),
            sent_at: null,
            xid: trx.raw('pg_current_xact_id()'),
          },
        ]);
        await trx('inbox').insert({ consumer: 'c', event_id: 'evt_seen', received_at: old });
      });
      const inboxRows = async () =>
        Number(
          (await db.read((q) => q('inbox').count<{ count: string | number }[]>('* as count')))[0]
            ?.count,
        );
      await waitFor(
        async () => ((await inboxRows()) === 0 ? true : undefined),
        10_000,
        'the inbox row to be pruned',
      );
      expect(
        await db.read((q) => q('outbox').where('event_id', 'evt_sent').first()),
      ).toBeUndefined();
      expect(await db.read((q) => q('outbox').pluck('event_id'))).toEqual(['evt_unsent']);
    } finally {
      await service.stop();
    }
  }, 60_000);
});
