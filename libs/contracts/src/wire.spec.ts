import * as avro from 'avsc';
import { decodeEvent, encodeEvent, newEnvelope, TOPICS, type TenantChanged } from './events';
import { eventTypeSchema } from './registry';
import {
  EmbeddedSchemaRegistry,
  EventWire,
  frameWire,
  subjectOf,
  type SchemaRegistryClient,
} from './wire';

const TYPE = 'gateway.tenant-changed.v1';

function tenantChanged(name = 'Loja'): TenantChanged {
  return {
    envelope: newEnvelope(TYPE, { producer: 'gateway', tenantId: 'ten_1', livemode: null }),
    tenant_id: 'ten_1',
    name,
    treasury_available_cash_cents: 5_000,
    version: 3,
  };
}

/** The tenant-changed schema as another producer's build could write it: one more field, with a default. */
function writerWithExtraField(): avro.Type {
  const schema = eventTypeSchema(TYPE).schema() as { fields: object[] };
  return avro.Type.forSchema({
    ...schema,
    fields: [...schema.fields, { name: 'region', type: 'string', default: 'br' }],
  } as avro.Schema);
}

describe('the events wire format (Confluent: magic byte, schema id, Avro body)', () => {
  it('frames an event with its registered schema id and reads it back', async () => {
    const registry = new EmbeddedSchemaRegistry();
    const wire = new EventWire(registry);
    const event = tenantChanged();
    const bytes = await wire.encode(TYPE, event);
    expect(bytes[0]).toBe(0);
    const id = bytes.readUInt32BE(1);
    expect(id).toBe(await wire.schemaId(TYPE));
    // The body after the 5-byte header is the plain Avro encoding, which any Avro library reads with the schema of that id.
    expect(bytes.subarray(5)).toEqual(encodeEvent(TYPE, event));
    expect((await registry.schemaById(id)).fromBuffer(bytes.subarray(5))).toEqual(event);
    expect(await wire.decode(TYPE, bytes)).toEqual(event);
  });

  it('registers under TopicRecordNameStrategy subjects, one id per schema', async () => {
    const registry = new EmbeddedSchemaRegistry();
    const wire = new EventWire(registry);
    expect(subjectOf(TYPE)).toBe(`${TOPICS.directory}-gateway.gateway.v1.TenantChanged`);
    const tenant = await wire.schemaId(TYPE);
    const seller = await wire.schemaId('gateway.seller-changed.v1');
    expect(seller).not.toBe(tenant);
    expect(await wire.schemaId(TYPE)).toBe(tenant);
    expect(registry.versions(subjectOf(TYPE))).toEqual([tenant]);
    // Another process with its own codec gets the same id from the same registry.
    expect(await new EventWire(registry).schemaId(TYPE)).toBe(tenant);
    // The same schema under another subject keeps its id, as in Confluent's and Apicurio's registries.
    expect(
      await registry.register(
        'another-topic-gateway.gateway.v1.TenantChanged',
        eventTypeSchema(TYPE),
      ),
    ).toBe(tenant);
  });

  it('refuses an unknown schema id and bytes that are not framed, saying why', async () => {
    const wire = new EventWire(new EmbeddedSchemaRegistry());
    const body = encodeEvent(TYPE, tenantChanged());
    await expect(wire.decode(TYPE, frameWire(42, body))).rejects.toThrow(
      'schema id 42 is not in the embedded schema registry',
    );
    await expect(wire.decode(TYPE, body)).rejects.toThrow(
      /not in the Confluent wire format: expected magic byte 0/,
    );
    await expect(wire.decode(TYPE, Buffer.from([0, 0, 1]))).rejects.toThrow(
      /not in the Confluent wire format/,
    );
  });

  it("reads a writer's newer schema with its own reader schema", async () => {
    const registry = new EmbeddedSchemaRegistry();
    const wire = new EventWire(registry);
    const writer = writerWithExtraField();
    const id = await registry.register(subjectOf(TYPE), writer);
    const event = tenantChanged('Nova');
    const framed = frameWire(id, writer.toBuffer({ ...event, region: 'pt' }));
    expect(await wire.decode(TYPE, framed)).toEqual(event);
    // What a consumer's handler gets: a body in its own schema, which decodeEvent reads.
    expect(decodeEvent(TYPE, await wire.readerBody(TYPE, framed))).toEqual(event);
  });

  it('refuses a writer schema that its reader schema cannot read', async () => {
    const registry = new EmbeddedSchemaRegistry();
    const wire = new EventWire(registry);
    const incompatible = avro.Type.forSchema({
      type: 'record',
      name: 'gateway.gateway.v1.TenantChanged',
      fields: [{ name: 'other', type: 'long' }],
    });
    const id = await registry.register(subjectOf(TYPE), incompatible);
    await expect(
      wire.decode(TYPE, frameWire(id, incompatible.toBuffer({ other: 1 }))),
    ).rejects.toThrow(`schema id ${id} cannot be read as ${TYPE}`);
  });

  it('registers again after a failed registration rather than caching the failure', async () => {
    const embedded = new EmbeddedSchemaRegistry();
    let failures = 1;
    const flaky: SchemaRegistryClient = {
      register: (subject, schema) =>
        failures-- > 0
          ? Promise.reject(new Error('registry unavailable'))
          : embedded.register(subject, schema),
      schemaById: (id) => embedded.schemaById(id),
    };
    const wire = new EventWire(flaky);
    await expect(wire.encode(TYPE, tenantChanged())).rejects.toThrow('registry unavailable');
    expect((await wire.encode(TYPE, tenantChanged()))[0]).toBe(0);
  });
});
