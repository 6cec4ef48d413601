import * as avro from 'avsc';
import {
  decodeEvent,
  EmbeddedSchemaRegistry,
  encodeEvent,
  EventCatalog,
  EventWire,
  eventTypeSchema,
  frameWire,
  newEnvelope,
  newEventId,
  subjectOf,
  TOPICS,
  type EventMap,
  type SchemaRegistryClient,
  type TenantChanged,
} from '@pgw/contracts';
import { HEADER_EVENT_ID, HEADER_EVENT_TYPE, type BusMessage } from './bus';
import { InProcessBus } from './in-process-bus';
import { SchemaRegistryBus } from './schema-registry-bus';

const TYPE = 'gateway.tenant-changed.v1';

function tenantChanged(): TenantChanged {
  return {
    envelope: newEnvelope(TYPE, { producer: 'gateway', tenantId: 'ten_1', livemode: null }),
    tenant_id: 'ten_1',
    name: 'Loja',
    treasury_available_cash_cents: 0,
    version: 1,
  };
}

function message(value: Buffer, type: string | null): BusMessage {
  return {
    topic: TOPICS.directory,
    key: 'ten_1/ten_1',
    value,
    headers: {
      [HEADER_EVENT_ID]: 'evt_1',
      ...(type === null ? {} : { [HEADER_EVENT_TYPE]: type }),
    },
  };
}

describe('SchemaRegistryBus: the wire format over another bus', () => {
  let inner: InProcessBus;
  let registry: EmbeddedSchemaRegistry;
  let bus: SchemaRegistryBus;
  const onTheWire: BusMessage[] = [];
  const handled: BusMessage[] = [];

  beforeEach(async () => {
    onTheWire.length = 0;
    handled.length = 0;
    inner = new InProcessBus();
    registry = new EmbeddedSchemaRegistry();
    bus = new SchemaRegistryBus(inner, new EventWire(registry));
    await inner.subscribe({
      groupId: 'raw',
      topics: [TOPICS.directory],
      handle: async (batch) => void onTheWire.push(...batch),
    });
    await bus.subscribe({
      groupId: 'consumer',
      topics: [TOPICS.directory],
      handle: async (batch) => void handled.push(...batch),
    });
  });

  it('frames what it publishes with the schema id of the event type, and hands consumers a body decodeEvent reads', async () => {
    const event = tenantChanged();
    await bus.publish([message(encodeEvent(TYPE, event), TYPE)]);
    const raw = onTheWire[0]!.value;
    expect(raw[0]).toBe(0);
    expect(registry.versions(subjectOf(TYPE))).toEqual([raw.readUInt32BE(1)]);
    expect(decodeEvent(TYPE, handled[0]!.value)).toEqual(event);
    expect(handled[0]!.headers[HEADER_EVENT_TYPE]).toBe(TYPE);
  });

  it("resolves a writer's other schema version into the consumer's schema", async () => {
    const schema = eventTypeSchema(TYPE).schema() as { fields: object[] };
    const newer = avro.Type.forSchema({
      ...schema,
      fields: [...schema.fields, { name: 'region', type: 'string', default: 'br' }],
    } as avro.Schema);
    const id = await registry.register(subjectOf(TYPE), newer);
    const event = tenantChanged();
    await inner.publish([message(frameWire(id, newer.toBuffer({ ...event, region: 'pt' })), TYPE)]);
    expect(decodeEvent(TYPE, handled[0]!.value)).toEqual(event);
  });

  it('hands over as it is a plain body written before the wire format (an older producer during a rolling deploy)', async () => {
    const event = tenantChanged();
    await inner.publish([message(encodeEvent(TYPE, event), TYPE)]);
    expect(decodeEvent(TYPE, handled[0]!.value)).toEqual(event);
  });

  it('hands over as it came a framed message no registry lookup can read, which decodeEvent then refuses (the consumer parks it)', async () => {
    const event = tenantChanged();
    // Framed against another registry: id 42 is not in this one.
    const foreign = frameWire(42, encodeEvent(TYPE, event));
    await inner.publish([message(foreign, TYPE)]);
    expect(handled[0]!.value).toEqual(foreign);
    expect(() => decodeEvent(TYPE, handled[0]!.value)).toThrow(
      `a ${TYPE} message in the wire format (schema id 42) that its schema registry could not read`,
    );
  });

  it('fails the batch, to be tried again, while the registry does not answer', async () => {
    const id = await registry.register(subjectOf(TYPE), eventTypeSchema(TYPE));
    const down: SchemaRegistryClient = {
      register: () => Promise.reject(new Error('connect ECONNREFUSED')),
      schemaById: () => Promise.reject(new Error('connect ECONNREFUSED')),
    };
    const other = new InProcessBus();
    const seen: BusMessage[] = [];
    await new SchemaRegistryBus(other, new EventWire(down)).subscribe({
      groupId: 'g',
      topics: [TOPICS.directory],
      handle: async (batch) => void seen.push(...batch),
    });
    await expect(
      other.publish([message(frameWire(id, encodeEvent(TYPE, tenantChanged())), TYPE)]),
    ).rejects.toThrow('ECONNREFUSED');
    expect(seen).toEqual([]);
  });

  it('forwards a framed message of a type this build does not know, and refuses to publish an unframed one', async () => {
    const framed = frameWire(7, Buffer.from('opaque'));
    await bus.publish([message(framed, 'gateway.future-event.v1')]);
    expect(onTheWire[0]!.value).toEqual(framed);
    expect(handled[0]!.value).toEqual(framed);
    await expect(
      bus.publish([message(Buffer.from('opaque'), 'gateway.future-event.v1')]),
    ).rejects.toThrow(
      `cannot publish a message of event type gateway.future-event.v1 to ${TOPICS.directory}: no schema for it in this build`,
    );
    await expect(bus.publish([message(Buffer.from('opaque'), null)])).rejects.toThrow(
      'event type (none)',
    );
  });

  it('reads a mix of two versions of one event in an older build (as the version it has) and in a newer one (each as written)', async () => {
    // charges deployed first writes charge-paid v2 beside the v1 events of its older replicas; a consumer
    // built before v2 (its catalog without it) and one built after both read every message.
    const random = eventTypeSchema(
      'charges.charge-paid.v1',
    ).random() as unknown as EventMap['charges.charge-paid.v1'];
    // A real event id: avsc's random string may be empty, and a plain body never starts with byte 0.
    const v1: EventMap['charges.charge-paid.v1'] = {
      ...random,
      envelope: { ...random.envelope, event_id: newEventId() },
      resource_json: '{"id":"ch_1"}',
    };
    const v2: EventMap['charges.charge-paid.v2'] = {
      ...v1,
      brand: 'visa',
      authorization_code: 'A1B2C3',
    };
    const older = new EventWire(registry, EventCatalog.current().without('charges.charge-paid.v2'));
    const seen = { older: [] as BusMessage[], newer: [] as BusMessage[] };
    await new SchemaRegistryBus(inner, older).subscribe({
      groupId: 'older',
      topics: [TOPICS.charges],
      handle: async (batch) => void seen.older.push(...batch),
    });
    await bus.subscribe({
      groupId: 'newer',
      topics: [TOPICS.charges],
      handle: async (batch) => void seen.newer.push(...batch),
    });
    const charge = (
      type: 'charges.charge-paid.v1' | 'charges.charge-paid.v2',
      body: Buffer,
    ): BusMessage => ({
      topic: TOPICS.charges,
      key: 'ch_1',
      value: body,
      headers: { [HEADER_EVENT_ID]: 'evt_1', [HEADER_EVENT_TYPE]: type },
    });
    await new SchemaRegistryBus(inner, older).publish([
      charge('charges.charge-paid.v1', encodeEvent('charges.charge-paid.v1', v1)),
    ]);
    await bus.publish([
      charge('charges.charge-paid.v2', encodeEvent('charges.charge-paid.v2', v2)),
    ]);
    // One subject holds both versions, as the registry checks them against each other.
    expect(registry.versions(subjectOf('charges.charge-paid.v1'))).toHaveLength(2);
    expect(subjectOf('charges.charge-paid.v2')).toBe(subjectOf('charges.charge-paid.v1'));

    expect(seen.older.map((m) => m.headers[HEADER_EVENT_TYPE])).toEqual([
      'charges.charge-paid.v1',
      'charges.charge-paid.v1',
    ]);
    expect(seen.older.map((m) => decodeEvent('charges.charge-paid.v1', m.value))).toEqual([v1, v1]);
    expect(seen.newer.map((m) => m.headers[HEADER_EVENT_TYPE])).toEqual([
      'charges.charge-paid.v1',
      'charges.charge-paid.v2',
    ]);
    expect(decodeEvent('charges.charge-paid.v1', seen.newer[0]!.value)).toEqual(v1);
    expect(decodeEvent('charges.charge-paid.v2', seen.newer[1]!.value)).toEqual(v2);
  });

  it('reads a version newer than any it has as the newest it has, and leaves an event it has no version of as it came', () => {
    const wire = new EventWire(registry);
    expect(wire.readerTypeOf('charges.charge-paid.v7')).toBe('charges.charge-paid.v2');
    expect(wire.readerTypeOf('charges.charge-paid.v1')).toBe('charges.charge-paid.v1');
    expect(
      new EventWire(
        registry,
        EventCatalog.current().without('charges.charge-paid.v2'),
      ).readerTypeOf('charges.charge-paid.v2'),
    ).toBe('charges.charge-paid.v1');
    expect(wire.readerTypeOf('charges.charge-teleported.v1')).toBeUndefined();
    expect(wire.readerTypeOf('charges.charge-paid')).toBeUndefined();
  });
});
