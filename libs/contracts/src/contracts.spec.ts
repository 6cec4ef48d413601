import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as avro from 'avsc';
import {
  decodeEvent,
  encodeEvent,
  EVENT_TOPICS,
  newEnvelope,
  type EventType,
  type SellerChanged,
} from './events';
import {
  compatibilityProblems,
  eventTypeSchema,
  eventVersion,
  fingerprintProblems,
  knownEventTypes,
  listSchemaFiles,
  parseSchema,
  recordedFingerprints,
  SCHEMAS_DIR,
  schemaFingerprints,
} from './registry';
import { registeredSchemaText } from './wire';

const topicOf = (eventType: string): string | undefined =>
  (EVENT_TOPICS as Record<string, string>)[eventType];

/** The fields of a schema's own records (the shared envelope excluded), with the type each declares. */
function ownFields(schema: avro.Schema): Array<{ name: string; type: unknown }> {
  const out: Array<{ name: string; type: unknown }> = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (typeof node !== 'object' || node === null) return;
    const record = node as {
      type?: unknown;
      fields?: Array<{ name: string; type: unknown }>;
      items?: unknown;
    };
    for (const field of record.fields ?? []) {
      out.push(field);
      visit(field.type);
    }
    visit(record.items);
  };
  visit(schema);
  return out;
}

const logicalTypeOf = (type: unknown): string | undefined => {
  const branches = Array.isArray(type) ? type : [type];
  return branches
    .map((b) =>
      typeof b === 'object' && b !== null ? (b as { logicalType?: string }).logicalType : undefined,
    )
    .find((t) => t !== undefined);
};

describe('event contracts', () => {
  it('parses every schema file, and every event type has a topic and a TypeScript shape', () => {
    const files = listSchemaFiles();
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) expect(() => parseSchema(file.schema)).not.toThrow();
    expect(knownEventTypes().sort()).toEqual(Object.keys(EVENT_TOPICS).sort());
  });

  it('keeps every version of each event readable by every other, both ways, under one subject per topic (FULL_TRANSITIVE)', () => {
    const files = listSchemaFiles();
    expect(compatibilityProblems(files, topicOf)).toEqual([]);
    // The pairs that exist are checked: charge-paid v1 and v2 share a topic and a record name.
    expect(
      files
        .filter((f) => eventVersion(f.eventType)?.event === 'charges.charge-paid')
        .map((f) => f.eventType),
    ).toEqual(['charges.charge-paid.v1', 'charges.charge-paid.v2']);
    expect(eventTypeSchema('charges.charge-paid.v2').name).toBe(
      eventTypeSchema('charges.charge-paid.v1').name,
    );
  });

  it('fails on the committed breaking evolutions of its fixture, naming each pair and direction', () => {
    const problems = compatibilityProblems(
      listSchemaFiles(join(__dirname, 'testing', 'incompatible')),
      () => 'orders.orders',
    );
    expect(problems).toEqual([
      expect.stringMatching(
        /^orders\.order-canceled\.v1 and orders\.order-canceled\.v2 share a topic but not a record name/,
      ),
      'orders.order-placed.v2 cannot read what orders.order-placed.v1 wrote: no matching field for default-less fixtures.orders.v1.OrderPlaced.total_cents',
      'orders.order-shipped.v1 cannot read what orders.order-shipped.v2 wrote: no matching field for default-less fixtures.orders.v1.OrderShipped.carrier',
    ]);
  });

  it('matches every published schema file with its recorded fingerprint, and has recorded every file', () => {
    const current = schemaFingerprints();
    expect(fingerprintProblems(current, recordedFingerprints())).toEqual([]);
    // A new version is recorded when it is published: `npm run schemas:record`.
    expect(
      Object.keys(current).filter((path) => recordedFingerprints()[path] === undefined),
    ).toEqual([]);
  });

  it('refuses a published schema that was edited or removed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'schemas-'));
    try {
      cpSync(SCHEMAS_DIR, dir, { recursive: true });
      writeFileSync(
        join(dir, 'charges', 'charge-paid.v1.avsc'),
        JSON.stringify(
          listSchemaFiles().find((f) => f.eventType === 'charges.charge-paid.v1')?.schema,
        ),
      );
      rmSync(join(dir, 'gateway', 'tenant-changed.v1.avsc'));
      expect(fingerprintProblems(schemaFingerprints(dir), recordedFingerprints())).toEqual([
        'charges/charge-paid.v1.avsc was published and has changed: add a new version beside it instead',
        'gateway/tenant-changed.v1.avsc was published and is gone: a published schema is never removed',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('declares instants as timestamp-millis and days as date in every version after the first', () => {
    const later = listSchemaFiles().filter((f) => (eventVersion(f.eventType)?.version ?? 1) > 1);
    expect(later.length).toBeGreaterThan(0);
    for (const file of later) {
      for (const field of ownFields(file.schema)) {
        if (field.name.endsWith('_at'))
          expect([file.eventType, field.name, logicalTypeOf(field.type)]).toEqual([
            file.eventType,
            field.name,
            'timestamp-millis',
          ]);
        if (field.name.endsWith('_on') || field.name.endsWith('_date'))
          expect([file.eventType, field.name, logicalTypeOf(field.type)]).toEqual([
            file.eventType,
            field.name,
            'date',
          ]);
      }
    }
  });

  it('keeps the logical types in the schema a registry stores, and reads them as Unix milliseconds across versions', () => {
    const v1 = eventTypeSchema('charges.charge-paid.v1');
    const v2 = eventTypeSchema('charges.charge-paid.v2');
    const stored = JSON.parse(registeredSchemaText(v2)) as avro.Schema;
    expect(
      ownFields(stored)
        .filter((f) => logicalTypeOf(f.type) === 'timestamp-millis')
        .map((f) => f.name),
    ).toEqual(['paid_at', 'created_at', 'updated_at']);
    const written = {
      ...(v1.random() as unknown as { charge: { created_at: number } }),
      resource_json: '{}',
    };
    written.charge.created_at = Date.parse('2026-11-25T10:00:00Z');
    const asV2 = v2.fromBuffer(v1.toBuffer(written), v2.createResolver(v1)) as {
      charge: { created_at: number };
      brand: string | null;
      authorization_code: string | null;
    };
    expect([asV2.charge.created_at, asV2.brand, asV2.authorization_code]).toEqual([
      Date.parse('2026-11-25T10:00:00Z'),
      null,
      null,
    ]);
    expect(
      v1.fromBuffer(
        v2.toBuffer({ ...asV2, brand: 'visa', authorization_code: 'A1B2C3' }),
        v1.createResolver(v2),
      ),
    ).toEqual(written);
  });

  it('round-trips an event through Avro bytes and refuses one that does not match its schema', () => {
    const type: EventType = 'gateway.seller-changed.v1';
    const event: SellerChanged = {
      envelope: newEnvelope(type, {
        producer: 'gateway',
        tenantId: 'ten_1',
        livemode: null,
        requestId: 'req_1',
      }),
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
    expect(decodeEvent(type, bytes)).toEqual(event);
    expect(event.envelope.event_id).toMatch(/^evt_[A-Za-z0-9]{24}$/);
    expect(() =>
      encodeEvent(type, { ...event, kyc_status: 'maybe' } as unknown as SellerChanged),
    ).toThrow();
  });
});

describe('where the webhook signing secret travels', () => {
  it('Proves the event carrying it (v2) goes to a topic of its own, not to gateway.directory that every service reads', () => {
    expect(EVENT_TOPICS['gateway.webhook-endpoint-changed.v2']).toBe('gateway.webhook-endpoints');
    expect(EVENT_TOPICS['gateway.webhook-endpoint-changed.v2']).not.toBe(
      EVENT_TOPICS['gateway.seller-changed.v1'],
    );
  });
});
