import { encodeEvent, newEnvelope, TOPICS, type EventMap } from '@pgw/contracts';
import { HEADER_EVENT_TYPE } from '@pgw/platform-bus';
import { createPgliteKnex, sharedDb, type Db } from '@pgw/platform-db';
import { ManualClock } from '@pgw/platform-service';
import { copyEvent, createCopyTable, directoryConsumer, upsertNewer } from './directory';

const SELLERS = { name: 'sellers', key: 'seller_id' };

function sellerChanged(version: number, tenantId = 'ten_1'): EventMap['gateway.seller-changed.v1'] {
  return {
    envelope: newEnvelope('gateway.seller-changed.v1', {
      producer: 'gateway',
      tenantId,
      livemode: null,
    }),
    seller_id: 'seller_1',
    tenant_id: tenantId,
    name: 'Loja',
    kyc_status: 'approved',
    anticipation_limit_cents: 0,
    fee_bps_per_month: 0,
    settlement_delay_days: 30,
    mdr_bps: { credit_card: 300 },
    pricing_plan_id: null,
    version,
  };
}

describe('directory copies', () => {
  const knex = createPgliteKnex(null);
  let db: Db;
  beforeAll(async () => {
    db = sharedDb(knex, 'svc_directory');
    await db.migrate([
      {
        name: '0001',
        up: (trx) =>
          createCopyTable(trx, SELLERS, ['tenant_id text not null', 'mdr_bps jsonb not null']),
      },
    ]);
  });
  afterAll(() => knex.destroy());
  const stored = () =>
    db.read((q) =>
      q('sellers').select('seller_id', 'tenant_id', 'mdr_bps', 'version', 'updated_at'),
    );

  it('keeps the highest version: a newer row replaces the copy, a repeat or an older one changes nothing', async () => {
    const t1 = new Date('2026-01-01T00:00:00Z');
    const t2 = new Date('2026-01-02T00:00:00Z');
    const write = (tenantId: string, version: number, at: Date) =>
      db.tx((trx) =>
        upsertNewer(
          trx,
          SELLERS,
          { seller_id: 'seller_v', tenant_id: tenantId, mdr_bps: JSON.stringify({ pix: 1 }) },
          version,
          at,
        ),
      );
    expect(await write('ten_a', 2, t1)).toBe(true);
    expect(await write('ten_b', 1, t2)).toBe(false); // late and older
    expect(await write('ten_b', 2, t2)).toBe(false); // a repeat
    const [row] = await db.read((q) => q('sellers').where({ seller_id: 'seller_v' }));
    expect([row.tenant_id, Number(row.version), new Date(row.updated_at).toISOString()]).toEqual([
      'ten_a',
      2,
      t1.toISOString(),
    ]);
    expect(await write('ten_c', 3, t2)).toBe(true);
    const [newer] = await db.read((q) => q('sellers').where({ seller_id: 'seller_v' }));
    expect([
      newer.tenant_id,
      Number(newer.version),
      new Date(newer.updated_at).toISOString(),
      newer.mdr_bps,
    ]).toEqual(['ten_c', 3, t2.toISOString(), { pix: 1 }]);
  });

  it('refuses a row without its key', async () => {
    await expect(
      db.tx((trx) => upsertNewer(trx, SELLERS, { tenant_id: 'ten_a' }, 1, new Date())),
    ).rejects.toMatchObject({
      name: 'InvariantError',
      invariant: 'directory.upsert-row-has-key',
      context: { key: 'seller_id' },
    });
  });

  it("copies the event's named columns and the converted ones, with the event's version; a repeat changes nothing", async () => {
    // Proves copyEvent writes the columns it is told to, as the event has them, beside the converted ones.
    const now = new Date('2026-02-03T00:00:00Z');
    const event = { ...sellerChanged(4, 'ten_copy'), seller_id: 'seller_copy' };
    const copy = () =>
      db.tx((trx) =>
        copyEvent(trx, SELLERS, event, ['seller_id', 'tenant_id'], now, {
          mdr_bps: JSON.stringify(event.mdr_bps),
        }),
      );
    expect(await copy()).toBe(true);
    expect(await copy()).toBe(false);
    const [row] = await db.read((q) => q('sellers').where({ seller_id: 'seller_copy' }));
    expect([row.tenant_id, row.mdr_bps, Number(row.version)]).toEqual([
      'ten_copy',
      { credit_card: 300 },
      4,
    ]);
  });

  it("hands each event it has a handler for to it, decoded, at the service's clock; skips the others", async () => {
    const clock = new ManualClock(new Date('2026-03-04T05:06:07Z'));
    const seen: Array<[string, number, string]> = [];
    const consumer = directoryConsumer(clock, {
      'gateway.seller-changed.v1': async (trx, event, now) => {
        seen.push([event.seller_id, event.version, now.toISOString()]);
        return upsertNewer(
          trx,
          SELLERS,
          {
            seller_id: event.seller_id,
            tenant_id: event.tenant_id,
            mdr_bps: JSON.stringify(event.mdr_bps),
          },
          event.version,
          now,
        );
      },
    });
    expect(consumer.name).toBe('directory');
    expect(consumer.topics).toEqual([TOPICS.directory]);
    const message = (type: string, value: Buffer) => ({
      topic: TOPICS.directory,
      key: 'ten_1/x',
      value,
      headers: { [HEADER_EVENT_TYPE]: type },
    });
    await db.tx((trx) =>
      consumer.apply(
        trx,
        message(
          'gateway.seller-changed.v1',
          encodeEvent('gateway.seller-changed.v1', sellerChanged(7)),
        ),
      ),
    );
    await db.tx((trx) =>
      consumer.apply(
        trx,
        message('gateway.tenant-changed.v1', Buffer.from('not ours, never decoded')),
      ),
    );
    expect(seen).toEqual([['seller_1', 7, '2026-03-04T05:06:07.000Z']]);
    expect((await stored()).find((row) => row.seller_id === 'seller_1')).toMatchObject({
      tenant_id: 'ten_1',
      mdr_bps: { credit_card: 300 },
    });
  });

  it('subscribes to the webhook endpoints topic only for a handler of webhook-endpoint-changed.v2', () => {
    const handle = async () => undefined;
    expect(
      directoryConsumer(new ManualClock(new Date()), {
        'gateway.webhook-endpoint-changed.v2': handle,
      }).topics,
    ).toEqual([TOPICS.directory, TOPICS.webhookEndpoints]);
  });
});
