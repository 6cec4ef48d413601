import { decodeEvent, EVENT_TOPICS } from '@pgw/contracts';
import { createPgliteKnex, sharedDb } from '@pgw/platform-db';
import { uniqueName } from '@pgw/testing';
import { emit } from './emit';
import { busMigration } from './outbox';

describe('emit', () => {
  const knex = createPgliteKnex(null);
  afterAll(() => knex.destroy());

  async function service() {
    const db = sharedDb(knex, uniqueName('emit'));
    await db.migrate([busMigration]);
    return db;
  }

  const outbox = (db: ReturnType<typeof sharedDb>) =>
    db.read((q) =>
      q('outbox')
        .orderBy('id')
        .select<
          { topic: string; key: string; event_id: string; event_type: string; payload: Buffer }[]
        >('topic', 'key', 'event_id', 'event_type', 'payload'),
    );

  it('writes each event to the outbox with its topic, key, a new envelope and its Avro body, and returns the envelopes', async () => {
    const db = await service();
    const envelopes = await db.tx((trx) =>
      emit(
        db,
        trx,
        {
          type: 'gateway.tenant-changed.v1',
          key: 'ten_1',
          producer: 'gateway',
          tenantId: 'ten_1',
          livemode: null,
          requestId: 'req_1',
          occurredAtMs: 1_700_000_000_000,
          body: { tenant_id: 'ten_1', name: 'Loja', treasury_available_cash_cents: 5, version: 2 },
        },
        {
          type: 'gateway.tenant-changed.v1',
          key: 'ten_2',
          producer: 'gateway',
          tenantId: 'ten_2',
          livemode: null,
          body: { tenant_id: 'ten_2', name: 'Outra', treasury_available_cash_cents: 0, version: 1 },
        },
      ),
    );
    const rows = await outbox(db);
    expect(rows.map((r) => [r.topic, r.key, r.event_type])).toEqual([
      [EVENT_TOPICS['gateway.tenant-changed.v1'], 'ten_1', 'gateway.tenant-changed.v1'],
      [EVENT_TOPICS['gateway.tenant-changed.v1'], 'ten_2', 'gateway.tenant-changed.v1'],
    ]);
    const first = decodeEvent('gateway.tenant-changed.v1', Buffer.from(rows[0]!.payload));
    expect(first).toMatchObject({
      tenant_id: 'ten_1',
      name: 'Loja',
      treasury_available_cash_cents: 5,
      version: 2,
    });
    expect(first.envelope).toMatchObject({
      event_type: 'gateway.tenant-changed.v1',
      producer: 'gateway',
      tenant_id: 'ten_1',
      livemode: null,
      request_id: 'req_1',
      occurred_at: 1_700_000_000_000,
    });
    expect(rows.map((r) => r.event_id)).toEqual(envelopes.map((e) => e.event_id));
    expect(first.envelope.event_id).toMatch(/^evt_[A-Za-z0-9]{24}$/);
    expect(envelopes[0]!.event_id).not.toBe(envelopes[1]!.event_id);
  });

  it('writes nothing when the transaction rolls back', async () => {
    const db = await service();
    await expect(
      db.tx(async (trx) => {
        await emit(db, trx, {
          type: 'gateway.tenant-changed.v1',
          key: 'ten_1',
          producer: 'gateway',
          tenantId: 'ten_1',
          livemode: null,
          body: { tenant_id: 'ten_1', name: 'Loja', treasury_available_cash_cents: 0, version: 1 },
        });
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await outbox(db)).toEqual([]);
  });
});
