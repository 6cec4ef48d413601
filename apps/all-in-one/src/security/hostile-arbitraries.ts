// fast-check arbitraries of requests that are invalid by construction, derived from the JSON schemas of
// docs/openapi.json: each body mutation breaks one rule of the schema (type, range, length, pattern,
// required, additionalProperties), so the only right answer is a 4xx contract error.
import fc from 'fast-check';

export type JsonSchema = {
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean;
  items?: JsonSchema;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  const?: unknown;
  anyOf?: JsonSchema[];
  format?: string;
};

/** A raw JSON text, so that keys such as `__proto__` and numbers such as 1e400 reach the server as written. */
export type RawJson = string;

const PROTOTYPE_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  '__defineGetter__',
  'hasOwnProperty',
  'toString',
];

const junkText = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(
    "' OR 1=1 --",
    '"; drop table charges; --',
    '<script>alert(1)</script>',
    '\u0000',
    '\ud800',
    '../../etc/passwd',
    '%00',
    '${7*7}',
    '{{7*7}}',
    '\u202e',
    'ＡＢＣ',
    '😀'.repeat(50),
  ),
);

const deepArray = fc
  .integer({ min: 50, max: 3000 })
  .map((depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`);
const deepObject = fc
  .integer({ min: 50, max: 3000 })
  .map((depth) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`);
const deepNest = fc.oneof(deepArray, deepObject);

/** A JSON value of a type other than the schema's. */
function wrongType(schema: JsonSchema): fc.Arbitrary<RawJson> {
  const all: Record<string, fc.Arbitrary<RawJson>> = {
    string: junkText.map((s) => JSON.stringify(s)),
    integer: fc.oneof(fc.integer(), fc.constant('1.5'), fc.constant('1e400')).map(String),
    number: fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)),
    boolean: fc.boolean().map(String),
    null: fc.constant('null'),
    object: fc.constantFrom(
      '{}',
      '{"__proto__":{"polluted":true}}',
      '{"constructor":{"prototype":{"polluted":true}}}',
    ),
    array: fc.constantFrom('[]', '[1,2,3]', '[null]', '[{}]'),
  };
  const own = schema.type ?? (schema.anyOf ? 'string' : undefined);
  const others = Object.entries(all)
    .filter(
      ([type]) =>
        type !== own &&
        !(own === 'number' && type === 'integer') &&
        !(own === 'integer' && type === 'number'),
    )
    .map(([, arb]) => arb);
  // Deep nesting of the schema's own kind can be valid (metadata is free-form), so only of the other kind.
  return fc.oneof(
    ...others,
    ...(own === 'array' ? [] : [deepArray]),
    ...(own === 'object' ? [] : [deepObject]),
  );
}

/** Values of the schema's own type that break one of its bounds, when it has any. */
function outOfBounds(schema: JsonSchema): fc.Arbitrary<RawJson>[] {
  const out: fc.Arbitrary<RawJson>[] = [];
  if (schema.type === 'integer' || schema.type === 'number') {
    if (schema.minimum !== undefined)
      out.push(fc.integer({ min: 1, max: 1_000_000 }).map((d) => String(schema.minimum! - d)));
    if (schema.maximum !== undefined)
      out.push(fc.constantFrom(String(schema.maximum + 1), '1e400', '99999999999999999999999999'));
    if (schema.type === 'integer') out.push(fc.constantFrom('0.5', '1.000001', '-0.25'));
  }
  if (schema.type === 'string') {
    if (schema.maxLength !== undefined) {
      const max = schema.maxLength;
      out.push(
        fc
          .tuple(fc.integer({ min: 1, max: 100_000 }), fc.constantFrom('x', 'ç', '😀', '9'))
          .map(([extra, unit]) => JSON.stringify(unit.repeat(max + extra))),
      );
    }
    if ((schema.minLength ?? 0) > 0) out.push(fc.constant('""'));
    if (schema.pattern !== undefined) {
      const pattern = new RegExp(schema.pattern, 'u');
      out.push(junkText.filter((s) => !pattern.test(s)).map((s) => JSON.stringify(s)));
    }
    if (schema.const !== undefined)
      out.push(junkText.filter((s) => s !== schema.const).map((s) => JSON.stringify(s)));
  }
  if (schema.anyOf?.every((s) => s.const !== undefined)) {
    const allowed = new Set(schema.anyOf.map((s) => s.const));
    out.push(junkText.filter((s) => !allowed.has(s)).map((s) => JSON.stringify(s)));
    out.push(
      fc.constantFrom(
        ...[...allowed].map((v) =>
          JSON.stringify(
            String(v).toLowerCase() === v ? String(v).toUpperCase() : String(v).toLowerCase(),
          ),
        ),
      ),
    );
  }
  if (schema.type === 'array') {
    if ((schema.minItems ?? 0) > 0) out.push(fc.constant('[]'));
    if (schema.maxItems !== undefined)
      out.push(
        fc.constant(
          JSON.stringify(Array.from({ length: schema.maxItems + 1 }, (_, i) => `recv_${i}x`)),
        ),
      );
    if (schema.items) out.push(wrongType(schema.items).map((item) => `[${item}]`));
  }
  return out;
}

/** The paths (and schemas) of a valid base body that a mutation may target. */
function targets(
  schema: JsonSchema,
  value: unknown,
  path: string[] = [],
): { path: string[]; schema: JsonSchema; required: boolean }[] {
  const found: { path: string[]; schema: JsonSchema; required: boolean }[] = [];
  if (
    schema.type === 'object' &&
    schema.properties &&
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value)
  ) {
    for (const [name, child] of Object.entries(schema.properties)) {
      if (!(name in value)) continue;
      found.push({
        path: [...path, name],
        schema: child,
        required: (schema.required ?? []).includes(name),
      });
      found.push(...targets(child, (value as Record<string, unknown>)[name], [...path, name]));
    }
  }
  return found;
}

function objectPaths(schema: JsonSchema, value: unknown, path: string[] = []): string[][] {
  if (
    schema.type !== 'object' ||
    typeof value !== 'object' ||
    value === null ||
    Array.isArray(value)
  )
    return [];
  const own = schema.additionalProperties === false ? [path] : [];
  return [
    ...own,
    ...Object.entries(schema.properties ?? {})
      .filter(([n]) => n in value)
      .flatMap(([n, s]) => objectPaths(s, (value as Record<string, unknown>)[n], [...path, n])),
  ];
}

/** The raw JSON of `base` with the value at `path` replaced by the raw text `raw` (or removed when null). */
function withRaw(base: unknown, path: string[], raw: RawJson | null, extraKey?: string): RawJson {
  const marker = `__HOSTILE_${Math.random().toString(36).slice(2)}__`;
  const copy = structuredClone(base) as Record<string, unknown>;
  let parent: Record<string, unknown> = copy;
  const target = extraKey === undefined ? path.slice(0, -1) : path;
  for (const step of target) parent = parent[step] as Record<string, unknown>;
  const key = extraKey ?? path[path.length - 1]!;
  if (raw === null) delete parent[key];
  else parent[key === '__proto__' ? marker : key] = marker;
  let text = JSON.stringify(copy);
  if (raw !== null) {
    // A `__proto__` key cannot be set on a plain object; the raw text carries it.
    text = text.replace(
      key === '__proto__' ? `"${marker}":"${marker}"` : `"${marker}"`,
      key === '__proto__' ? `"__proto__":${raw}` : raw,
    );
  }
  return text;
}

const schemaAt = (schema: JsonSchema, path: string[]): JsonSchema =>
  path.reduce((s, step) => s.properties?.[step] ?? {}, schema);

/** A body that breaks the schema: one field broken, one unknown field, or no object at all. */
export function invalidBody(
  schema: JsonSchema,
  base: Record<string, unknown>,
): fc.Arbitrary<RawJson> {
  const fields = targets(schema, base);
  const fieldMutation =
    fields.length === 0
      ? null
      : fc.constantFrom(...fields).chain((field) => {
          const options = [wrongType(field.schema), ...outOfBounds(field.schema)];
          const broken = fc.oneof(...options).map((raw) => withRaw(base, field.path, raw));
          return field.required
            ? fc.oneof(broken, fc.constant(withRaw(base, field.path, null)))
            : broken;
        });
  const objects = objectPaths(schema, base);
  const unknownKey = fc.oneof(
    fc.constantFrom(...PROTOTYPE_KEYS),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }),
  );
  const unknownField = fc
    .tuple(
      fc.constantFrom(...objects),
      unknownKey,
      fc.oneof(
        fc.constant('{"polluted":true}'),
        fc.constant('1'),
        junkText.map((s) => JSON.stringify(s)),
        deepNest,
      ),
    )
    .filter(([path, key]) => !Object.hasOwn(schemaAt(schema, path).properties ?? {}, key))
    .map(([path, key, raw]) => withRaw(base, path, raw, key));
  const notAnObject = fc.oneof(
    fc.constantFrom(
      'null',
      'true',
      '0',
      '-1',
      '"body"',
      '[]',
      `[${JSON.stringify(base)}]`,
      '1e400',
      '"\\u0000"',
    ),
    deepNest,
    // Malformed JSON: truncated, trailing garbage, single quotes, comments, a BOM, a lone surrogate.
    fc.constantFrom(
      JSON.stringify(base).slice(0, -1),
      `${JSON.stringify(base)}}`,
      "{'a':1}",
      '{/* c */}',
      '\ufeff{}x',
      '{"a":"\\ud800"',
      '{"a":01}',
      '{,}',
      'NaN',
    ),
  );
  return fc.oneof(
    ...(fieldMutation ? [{ arbitrary: fieldMutation, weight: 4 }] : []),
    { arbitrary: unknownField, weight: 2 },
    { arbitrary: notAnObject, weight: 1 },
  );
}

/** Path ids that match no object: junk, encoded slashes and dots, very long. */
export const badId: fc.Arbitrary<string> = fc.oneof(
  // A lone surrogate cannot be %-encoded; as UTF-8 it becomes U+FFFD, which is still junk.
  junkText
    .filter((s) => s.length > 0)
    .map((s) => encodeURIComponent(Buffer.from(s, 'utf8').toString('utf8'))),
  fc.constantFrom(
    '%2F',
    'a%2Fb',
    '..%2F..%2Fhealth',
    '%2e%2e',
    'ch_%2F..',
    '%00',
    'ch_x%00',
    'null',
    'undefined',
    '0',
    '-1',
    'NaN',
    '__proto__',
    'constructor',
    'ch_',
    'recv_',
    '%25',
    '%C0%AF',
    '%E2%80%AE',
  ),
  fc
    .tuple(
      fc.constantFrom('ch_', 'recv_', 'stl_', 'cb_', 'antc_', ''),
      fc.integer({ min: 256, max: 7000 }),
      fc.constantFrom('a', '0', '%F0%9F%98%80'),
    )
    .map(([prefix, n, unit]) => prefix + unit.repeat(Math.ceil(n / unit.length))),
  fc.stringMatching(/^[a-z]{2,6}_[A-Za-z0-9]{1,30}$/),
);

/** Query strings that break the paging (and status) rules of contract §4a. */
export function badQuery(hasStatus: boolean): fc.Arbitrary<string> {
  const badPage = fc.oneof(
    fc.integer({ min: -1_000_000, max: 0 }).map(String),
    fc.constantFrom('abc', '1.5', '', ' ', '１', '1,2', 'null', '[]', '%00', '-0.5'),
  );
  const badLimit = fc.oneof(
    fc.integer({ min: 101, max: 1_000_000_000 }).map(String),
    fc.integer({ min: -1_000, max: 0 }).map(String),
    fc.constantFrom('abc', '2.5', '', '1e9', '-0.5', 'Infinity'),
  );
  const statusValues = [
    'pending',
    'available',
    'paid',
    'canceled',
    'anticipated',
    'processing',
    'failed',
  ];
  const badStatus = junkText.filter((s) => !statusValues.includes(s));
  const parts: fc.Arbitrary<string>[] = [
    badPage.map((p) => `page=${encodeURIComponent(p)}`),
    badLimit.map((l) => `limit=${encodeURIComponent(l)}`),
    fc
      .tuple(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 6, max: 9 }))
      .map(([a, b]) => `page=${a}&page=${b}`),
  ];
  if (hasStatus)
    parts.push(
      badStatus.map((s) => `status=${encodeURIComponent(Buffer.from(s, 'utf8').toString('utf8'))}`),
      fc.constant('status=PENDING'),
      fc.constant('status=pending&status=paid&status=x'),
    );
  return fc.oneof(...parts);
}

/** Idempotency-Key values the contract refuses (§3): empty or longer than 255 characters. */
export const badIdempotencyKey: fc.Arbitrary<string> = fc.oneof(
  fc.constant(''),
  fc.integer({ min: 256, max: 6000 }).map((n) => 'k'.repeat(n)),
);

/** Content types that are not JSON, or JSON in a charset we do not read. */
export const badContentType: fc.Arbitrary<string> = fc.constantFrom(
  'text/plain',
  'application/xml',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  'text/html; charset=utf-8',
  'application/javascript',
  'image/png',
  'application/jsonx',
);
