import * as avro from 'avsc';
import { decodeEvent, encodeEvent, EVENT_TOPICS, newEnvelope, type EventType, type SellerChanged } from './events';
import { knownEventTypes, listSchemaFiles, parseSchema } from './registry';

// Two versions of a schema are compatible when a reader with the new one decodes what the old one wrote.
function readsPrevious(newer: avro.Type, older: avro.Type): boolean {
  try {
    newer.createResolver(older);
    return true;
  } catch {
    return false;
  }
}

describe('event contracts', () => {
  it('parses every schema file, and every event type has a topic and a TypeScript shape', () => {
    const files = listSchemaFiles();
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) expect(() => parseSchema(file.schema)).not.toThrow();
    expect(knownEventTypes().sort()).toEqual(Object.keys(EVENT_TOPICS).sort());
  });

  it('makes each vN+1 schema read what vN wrote (avsc createResolver)', () => {
    const files = listSchemaFiles();
    const byName = new Map(files.map((f) => [f.eventType, f]));
    for (const file of files) {
      const match = /^(.*)\.v(\d+)$/.exec(file.eventType);
      if (match === null) throw new Error(`${file.eventType} has no version`);
      const previous = byName.get(`${match[1]}.v${Number(match[2]) - 1}`);
      if (previous === undefined) continue;
      expect(readsPrevious(parseSchema(file.schema), parseSchema(previous.schema))).toBe(true);
    }
  });

  it('tells a compatible evolution from a breaking one', () => {
    const v1 = parseSchema({ type: 'record', name: 'X', fields: [{ name: 'a', type: 'long' }] });
    const added = parseSchema({ type: 'record', name: 'X', fields: [{ name: 'a', type: 'long' }, { name: 'b', type: ['null', 'string'], default: null }] });
    const required = parseSchema({ type: 'record', name: 'X', fields: [{ name: 'a', type: 'long' }, { name: 'b', type: 'string' }] });
    expect(readsPrevious(added, v1)).toBe(true);
    expect(readsPrevious(required, v1)).toBe(false);
  });

  it('round-trips an event through Avro bytes and refuses one that does not match its schema', () => {
    const type: EventType = 'gateway.seller-changed.v1';
    const event: SellerChanged = {
      envelope: newEnvelope(type, { producer: 'gateway', tenantId: 'ten_1', livemode: null, requestId: 'req_1' }),
      seller_id: 'seller_1',
      tenant_id: 'ten_1',
      name: 'Loja',
      kyc_status: 'approved',
      anticipation_limit_cents: 1_000_000,
      fee_bps_per_month: 199,
      settlement_delay_days: 30,
      mdr_bps: { credit_card: 299 },
      pricing_plan_id: null,
      version: 1,
    };
    const bytes = encodeEvent(type, event);
    expect(bytes.subarray(0, 1).length).toBe(1);
    expect(decodeEvent(type, bytes)).toEqual(event);
    expect(event.envelope.event_id).toMatch(/^evt_[A-Za-z0-9]{24}$/);
    expect(() => encodeEvent(type, { ...event, kyc_status: 'maybe' } as unknown as SellerChanged)).toThrow();
  });
});

describe('where the webhook signing secret travels', () => {
  it('Proves the event carrying it (v2) goes to a topic of its own, not to gateway.directory that every service reads', () => {
    expect(EVENT_TOPICS['gateway.webhook-endpoint-changed.v2']).toBe('gateway.webhook-endpoints');
    expect(EVENT_TOPICS['gateway.webhook-endpoint-changed.v2']).not.toBe(EVENT_TOPICS['gateway.seller-changed.v1']);
  });
});
