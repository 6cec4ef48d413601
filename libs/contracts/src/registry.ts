import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as avro from 'avsc';

// Every event schema lives in schemas/<producer>/<event>.v<N>.avsc; its event type is
// `<producer>.<event>.v<N>` (e.g. charges.charge-paid.v1). A published file is never edited: a change is
// a new version beside it, and the compatibility test proves the new one reads the old.

export const SCHEMAS_DIR = join(__dirname, '..', 'schemas');
const ENVELOPE_FILE = join(SCHEMAS_DIR, 'common', 'event-envelope.v1.avsc');

export interface SchemaFile {
  eventType: string;
  path: string;
  schema: avro.Schema;
}

export function listSchemaFiles(): SchemaFile[] {
  const out: SchemaFile[] = [];
  for (const producer of readdirSync(SCHEMAS_DIR).sort()) {
    if (producer === 'common') continue;
    for (const file of readdirSync(join(SCHEMAS_DIR, producer)).sort()) {
      if (!file.endsWith('.avsc')) continue;
      const path = join(SCHEMAS_DIR, producer, file);
      out.push({ eventType: `${producer}.${file.replace(/\.avsc$/, '')}`, path, schema: JSON.parse(readFileSync(path, 'utf8')) as avro.Schema });
    }
  }
  return out;
}

/** Parses a schema with the shared named types (the envelope) available to it. */
export function parseSchema(schema: avro.Schema): avro.Type {
  const registry: Record<string, avro.Type> = {};
  avro.Type.forSchema(JSON.parse(readFileSync(ENVELOPE_FILE, 'utf8')) as avro.Schema, { registry });
  return avro.Type.forSchema(schema, { registry });
}

let types: Map<string, avro.Type> | null = null;

function loadTypes(): Map<string, avro.Type> {
  if (types === null) {
    types = new Map(listSchemaFiles().map((f) => [f.eventType, parseSchema(f.schema)]));
  }
  return types;
}

export function eventTypeSchema(eventType: string): avro.Type {
  const type = loadTypes().get(eventType);
  if (type === undefined) throw new Error(`unknown event type ${eventType}`);
  return type;
}

export function knownEventTypes(): string[] {
  return [...loadTypes().keys()];
}
