import { encodeEvent, EVENT_TOPICS, newEnvelope, type EventMap } from '@pgw/contracts';
import { newId } from '@pgw/domain';
import {
  busMigration,
  HEADER_EVENT_ID,
  HEADER_EVENT_TYPE,
  inboxHandler,
  type BusMessage,
} from '@pgw/platform-bus';
import { createPgliteKnex, sharedDb } from '@pgw/platform-db';
import { statementsDuring, uniqueName } from '@pgw/testing';
import { anticipationMigrations } from '../migrations';
import { receivablesConsumer } from './receivables.consumer';

type Receivable = EventMap['receivables.receivable-changed.v1']['receivable'];

const knex = createPgliteKnex(null);
afterAll(() => knex.destroy());

function changed(receivable: Receivable): BusMessage {
  const type = 'receivables.receivable-changed.v1';
  const envelope = newEnvelope(type, {
    producer: 'receivables',
    tenantId: 'ten_a',
    livemode: false,
  });
  return {
    topic: EVENT_TOPICS[type],
    key: receivable.seller_id,
    value: encodeEvent(type, { envelope, receivable, previous_status: null, reason: 'created' }),
    headers: { [HEADER_EVENT_ID]: envelope.event_id, [HEADER_EVENT_TYPE]: type },
  };
}

function receivable(id: string, version: number, status: Receivable['status']): Receivable {
  return {
    receivable_id: id,
    seller_id: 'seller_a',
    charge_id: 'ch_a',
    payment_method: 'credit_card',
    installment: 1,
    installments: 1,
    gross_amount_cents: 10_000,
    fee_amount_cents: 299,
    net_amount_cents: 9_701,
    mdr_bps: 299,
    debited_gross_cents: 0,
    due_date: '2026-04-01',
    original_due_date: '2026-04-01',
    status,
    anticipation_id: null,
    settlement_id: null,
    created_at: 0,
    updated_at: 0,
    version,
  };
}

describe('the receivables copy (anticipation)', () => {
  it('keeps the newest version of each receivable, in one statement at commit with the inbox, whatever the order within a batch', async () => {
    const db = sharedDb(knex, uniqueName('anticipation'));
    await db.migrate([busMigration, ...anticipationMigrations]);
    const handle = inboxHandler(db, 'receivables', receivablesConsumer().apply);
    const [a, b] = [newId('recv_'), newId('recv_')];
    const copies = () =>
      db.read((q) =>
        q('receivables').orderBy('version').select('receivable_id', 'status', 'version'),
      );
    // a twice in one batch, the newer first: one row each, the newer one kept.
    const sent = await statementsDuring(knex, () =>
      handle([
        changed(receivable(a, 2, 'anticipated')),
        changed(receivable(a, 1, 'pending')),
        changed(receivable(b, 1, 'pending')),
      ]),
    );
    const writes = sent
      .map((sql) => sql.trim())
      .filter((sql) => !/^(begin|commit|rollback|set local)/i.test(sql));
    expect(writes).toHaveLength(1);
    expect(writes[0]).toMatch(
      /^with write_0 as \(insert into "inbox".*\) insert into receivables/s,
    );
    expect(await copies()).toEqual(
      expect.arrayContaining([
        { receivable_id: a, status: 'anticipated', version: 2 },
        { receivable_id: b, status: 'pending', version: 1 },
      ]),
    );

    // An older version in a later batch changes nothing; a newer one replaces the copy.
    await handle([changed(receivable(a, 1, 'pending')), changed(receivable(b, 3, 'settled'))]);
    expect(await copies()).toEqual([
      { receivable_id: a, status: 'anticipated', version: 2 },
      { receivable_id: b, status: 'settled', version: 3 },
    ]);
  });
});
