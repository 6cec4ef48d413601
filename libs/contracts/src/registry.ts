import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import * as avro from 'avsc';

// Every event schema lives in schemas/<producer>/<event>.v<N>.avsc; its event type is
// `<producer>.<event>.v<N>` (e.g. charges.charge-paid.v1). A published file is never edited (its
// fingerprint is recorded in schemas/fingerprints.json): a change is a new version beside it, and every
// version of one event reads every other, both ways (FULL_TRANSITIVE). A new version keeps its record's full
// name, namespace included, so that one registry subject holds every version of the event on its topic and
// the registry checks them too.

export const SCHEMAS_DIR = join(__dirname, '..', 'schemas');
export const FINGERPRINTS_FILE = join(SCHEMAS_DIR, 'fingerprints.json');
const ENVELOPE_FILE = join(SCHEMAS_DIR, 'common', 'event-envelope.v1.avsc');

export interface SchemaFile {
  eventType: string;
  path: string;
  schema: avro.Schema;
}

/** The event schema files under `dir` (this build's by default), producer by producer. */
export function listSchemaFiles(dir = SCHEMAS_DIR): SchemaFile[] {
  const out: SchemaFile[] = [];
  for (const producer of readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort()) {
    if (producer === 'common') continue;
    for (const file of readdirSync(join(dir, producer)).sort()) {
      if (!file.endsWith('.avsc')) continue;
      const path = join(dir, producer, file);
      out.push({
        eventType: `${producer}.${file.replace(/\.avsc$/, '')}`,
        path,
        schema: JSON.parse(readFileSync(path, 'utf8')) as avro.Schema,
      });
    }
  }
  return out;
}

/**
 * Avro's `timestamp-millis` (Unix milliseconds in a long) and `date` (days since 1970-01-01 in an int), kept
 * as the numbers they are encoded as: the TypeScript shapes stay numbers, and the schema a registry stores
 * keeps its logical type, so a Java, Python or Go reader gets an instant or a date.
 */
class NumericLogicalType extends avro.types.LogicalType {
  protected override _fromValue(value: unknown): unknown {
    return value;
  }
  protected override _toValue(value: unknown): unknown {
    return value;
  }
  protected override _resolve(type: avro.Type): ((value: unknown) => unknown) | undefined {
    // The same underlying type, annotated or not, reads as it is (Avro's resolution ignores logical types).
    const underlying = avro.Type.isType(type, 'logical:*')
      ? (type as avro.types.LogicalType).underlyingType
      : type;
    return underlying.typeName === this.underlyingType.typeName ? (value) => value : undefined;
  }
}

const LOGICAL_TYPES = {
  'timestamp-millis': NumericLogicalType,
  date: NumericLogicalType,
} as unknown as Record<
  string,
  new (schema: avro.Schema, opts?: avro.ForSchemaOptions) => avro.types.LogicalType
>;

/** Parses a schema with the shared named types (the envelope) available to it, logical types kept. */
export function parseSchema(schema: avro.Schema): avro.Type {
  const registry: Record<string, avro.Type> = {};
  avro.Type.forSchema(JSON.parse(readFileSync(ENVELOPE_FILE, 'utf8')) as avro.Schema, { registry });
  return avro.Type.forSchema(schema, { registry, logicalTypes: LOGICAL_TYPES });
}

/** `charges.charge-paid.v2` → the event `charges.charge-paid`, version 2. */
export function eventVersion(eventType: string): { event: string; version: number } | null {
  const match = /^(.+)\.v(\d+)$/.exec(eventType);
  return match === null ? null : { event: match[1], version: Number(match[2]) };
}

/**
 * The event schemas one build carries: what it writes and the reader schemas it reads with. This build's is
 * `EventCatalog.current()`; an older build's is that `without` the versions added since (a test's stand-in
 * for a consumer deployed before a producer).
 */
export class EventCatalog {
  private static built: EventCatalog | null = null;

  private constructor(private readonly types: ReadonlyMap<string, avro.Type>) {}

  static current(): EventCatalog {
    EventCatalog.built ??= EventCatalog.of(listSchemaFiles());
    return EventCatalog.built;
  }

  static of(files: SchemaFile[]): EventCatalog {
    return new EventCatalog(new Map(files.map((f) => [f.eventType, parseSchema(f.schema)])));
  }

  without(...eventTypes: string[]): EventCatalog {
    return new EventCatalog(
      new Map([...this.types].filter(([type]) => !eventTypes.includes(type))),
    );
  }

  eventTypes(): string[] {
    return [...this.types.keys()];
  }

  knows(eventType: string | undefined): boolean {
    return eventType !== undefined && this.types.has(eventType);
  }

  schema(eventType: string): avro.Type {
    const type = this.types.get(eventType);
    if (type === undefined) throw new Error(`unknown event type ${eventType}`);
    return type;
  }

  /**
   * The event type a message written as `eventType` is read as here: that version when this build has it,
   * else the newest version of the same event it has (a producer deployed first writes a version this build
   * does not know yet; FULL_TRANSITIVE compatibility makes it readable as any other), else none.
   */
  readerTypeOf(eventType: string | undefined): string | undefined {
    if (eventType === undefined || this.knows(eventType)) return eventType;
    const written = eventVersion(eventType);
    if (written === null) return undefined;
    let newest: { type: string; version: number } | undefined;
    for (const type of this.types.keys()) {
      const known = eventVersion(type);
      if (
        known?.event === written.event &&
        (newest === undefined || known.version > newest.version)
      )
        newest = { type, version: known.version };
    }
    return newest?.type;
  }
}

export function eventTypeSchema(eventType: string): avro.Type {
  return EventCatalog.current().schema(eventType);
}

export function knownEventTypes(): string[] {
  return EventCatalog.current().eventTypes();
}

/**
 * How a reader resolves a writer's schema: record names match without their namespaces, as in Avro Java's
 * SchemaCompatibility. A new object each time: avsc keeps its resolvers in the options it is given.
 */
export const resolveOptions = () => ({ ignoreNamespaces: true });

/** Why `reader` cannot read what `writer` wrote, by Avro's resolution rules; null when it can. */
export function readError(reader: avro.Type, writer: avro.Type): string | null {
  try {
    reader.createResolver(writer, resolveOptions());
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * What breaks FULL_TRANSITIVE compatibility among the versions of each event: every version must read every
 * other, in both directions (so an old consumer reads a new producer and a new consumer an old one), and two
 * versions on one topic must share their record's full name (one registry subject). `topicOf` places a
 * version; an empty list means the files evolve as the rules say.
 */
export function compatibilityProblems(
  files: SchemaFile[],
  topicOf: (eventType: string) => string | undefined,
): string[] {
  const problems: string[] = [];
  const byEvent = new Map<string, SchemaFile[]>();
  for (const file of files) {
    const version = eventVersion(file.eventType);
    if (version === null) {
      problems.push(`${file.eventType}: the file name has no version (<event>.v<N>.avsc)`);
      continue;
    }
    byEvent.set(version.event, [...(byEvent.get(version.event) ?? []), file]);
  }
  for (const versions of byEvent.values()) {
    for (const a of versions) {
      for (const b of versions) {
        if (a === b) continue;
        const [reader, writer] = [parseSchema(b.schema), parseSchema(a.schema)];
        const error = readError(reader, writer);
        if (error !== null)
          problems.push(`${b.eventType} cannot read what ${a.eventType} wrote: ${error}`);
        if (
          a.eventType < b.eventType &&
          topicOf(a.eventType) === topicOf(b.eventType) &&
          reader.name !== writer.name
        ) {
          problems.push(
            `${a.eventType} and ${b.eventType} share a topic but not a record name (${writer.name ?? '?'} and ${reader.name ?? '?'}): the registry would not check them as one subject`,
          );
        }
      }
    }
  }
  return problems;
}

/** The sha256 of every .avsc under `dir` (the envelope included), by its path there: a published schema never changes. */
export function schemaFingerprints(dir = SCHEMAS_DIR): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true }).filter(
    (e) => e.isFile() && e.name.endsWith('.avsc'),
  )) {
    const path = join(entry.parentPath, entry.name);
    out[relative(dir, path)] =
      `sha256:${createHash('sha256').update(readFileSync(path)).digest('hex')}`;
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}

/** The fingerprints recorded when each schema was published (schemas/fingerprints.json). */
export function recordedFingerprints(file = FINGERPRINTS_FILE): Record<string, string> {
  return JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
}

/**
 * How the schema files differ from what was recorded: a published file edited or removed. A file not
 * recorded yet is new, not a problem here (`npm run schemas:record` records it; the spec asks for it).
 */
export function fingerprintProblems(
  current: Record<string, string>,
  recorded: Record<string, string>,
): string[] {
  const problems: string[] = [];
  for (const [path, fingerprint] of Object.entries(recorded)) {
    if (current[path] === undefined)
      problems.push(`${path} was published and is gone: a published schema is never removed`);
    else if (current[path] !== fingerprint)
      problems.push(`${path} was published and has changed: add a new version beside it instead`);
  }
  return problems;
}
