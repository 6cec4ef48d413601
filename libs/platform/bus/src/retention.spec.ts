import { createPgliteKnex, sharedDb } from '@pgw/platform-db';
import { deadLetterMigration } from './dead-letters';
import { busMigration } from './outbox';
import { busRetentionMigration, pruneBusTables } from './retention';

jest.setTimeout(60_000);
const knex = createPgliteKnex(null);
const db = sharedDb(knex, 'retention');

beforeAll(async () => {
  await db.migrate([busMigration, busRetentionMigration, deadLetterMigration]);
});
afterAll(async () => {
  await knex.destroy();
});

const DAY_MS = 24 * 3_600_000;
const daysAgo = (days: number) => db.knex.raw(`now() - interval '${days} days'`);

describe('pruning the outbox, the inbox and replayed dead letters', () => {
  // Proves issue 16 item 10: sent events and old inbox rows go after their retention; nothing else does.
  it('deletes sent outbox rows and inbox rows past retention, keeps unsent and recent ones, in bounded batches', async () => {
    const row = (id: number, sentDaysAgo: number | null) => ({
      topic: 't',
      key: 'k',
      event_id: `evt_${id}`,
      event_type: 'x',
      payload: Buffer.from('buyer data'),
      created_at: daysAgo(30),
      sent_at: sentDaysAgo === null ? null : daysAgo(sentDaysAgo),
    });
    await db.tx(async (trx) => {
      await trx('outbox').insert([
        ...Array.from({ length: 25 }, (_, i) => row(i, 10)),
        row(100, 1),
        row(101, null),
      ]);
      await trx('inbox').insert([
        ...Array.from({ length: 12 }, (_, i) => ({
          consumer: 'c',
          event_id: `old_${i}`,
          received_at: daysAgo(40),
        })),
        { consumer: 'c', event_id: 'recent', received_at: daysAgo(3) },
      ]);
      const parked = (id: string, replayedDaysAgo: number | null) => ({
        id,
        consumer: 'c',
        event_id: `evt_${id}`,
        topic: 't',
        key: 'k',
        payload: Buffer.from('buyer data'),
        headers: '{}',
        reason: 'unknown_type',
        parked_at: daysAgo(20),
        replayed_at: replayedDaysAgo === null ? null : daysAgo(replayedDaysAgo),
      });
      await trx('dead_letters').insert([
        parked('replayed_long_ago', 10),
        parked('replayed_yesterday', 1),
        parked('still_parked', null),
      ]);
    });
    const pruned = await pruneBusTables(db, {
      outboxRetentionMs: 7 * DAY_MS,
      inboxRetentionMs: 30 * DAY_MS,
      batchSizeMax: 10,
    });
    expect(pruned).toEqual({ outbox: 25, inbox: 12, deadLetters: 1 });
    // A parked event is work for an operator, whatever its age; a replayed one goes after the outbox's retention.
    expect(await db.read((q) => q('dead_letters').orderBy('id').pluck('id'))).toEqual([
      'replayed_yesterday',
      'still_parked',
    ]);
    const left = await db.read((q) => q('outbox').orderBy('event_id').pluck('event_id'));
    expect(left).toEqual(['evt_100', 'evt_101']);
    expect(await db.read((q) => q('inbox').pluck('event_id'))).toEqual(['recent']);
    // A second run finds nothing more: the job is idempotent.
    expect(
      await pruneBusTables(db, {
        outboxRetentionMs: 7 * DAY_MS,
        inboxRetentionMs: 30 * DAY_MS,
        batchSizeMax: 10,
      }),
    ).toEqual({ outbox: 0, inbox: 0, deadLetters: 0 });
  });
});
