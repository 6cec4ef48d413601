import {
  context,
  trace,
  TraceFlags,
  type Attributes,
  type AttributeValue,
  type Context,
} from '@opentelemetry/api';

// Exemplars on the latency histograms: for each series (attribute set) and bucket, the last measurement made
// while a sampled span was active, with that span's trace and span id — the OpenTelemetry specification's
// AlignedHistogramBucketExemplarReservoir behind its trace_based filter. `@opentelemetry/sdk-metrics` 3.1 has
// neither (open-telemetry/opentelemetry-js#6483), so the reservoir is here: fed beside each histogram record
// (instruments.ts: `histogram` for the catalog's, `withExemplars` for the HTTP instrumentation's), and read by
// the OTLP metric exporter of @pgw/platform-telemetry, which writes the exemplars into the matching data points.
//
// The hot path (`offer`): when exemplars are off (no OTLP metric export) one boolean test. Otherwise the
// active span is read from the context (no allocation); an unsampled or absent span stops there. A sampled
// one costs a binary search over the bucket boundaries, a hash of the attribute set computed in place (no key
// string, no sorted copy), one Map lookup by that number, a clock read and five array writes. Nothing is
// allocated per measurement (but for a non-integer number among the attributes, hashed through its string;
// the catalog has none); a series' arrays are made once, when it is first sampled (at most MAX_SERIES per instrument,
// the SDK's own cardinality limit). Two attribute sets that hash alike share a slot; the exporter compares
// the stored attributes with the data point's before it writes an exemplar, so a collision loses one, never
// misattributes one. Measured on a CI VM (2 cores, Node 24), for the HTTP server's five attributes: about 30 ns
// per unsampled record and 250 ns per sampled one, most of it the clock (Date.now(), the SDK's own clock for
// a collection's time) and the attribute hash.

/** Per instrument, as many series as the SDK aggregates by default (its cardinality limit). */
export const MAX_SERIES = 2000;

/** One exemplar as the exporter writes it: the measurement, when (epoch ms), and the span it was made in. */
export interface Exemplar {
  value: number;
  timeMs: number;
  traceId: string;
  spanId: string;
}

class Series {
  readonly values: Float64Array;
  readonly times: Float64Array;
  readonly traceIds: Array<string | undefined>;
  readonly spanIds: Array<string | undefined>;
  /** The measurement's own attributes object, compared with the data point's at export. */
  readonly attributes: Array<Attributes | undefined>;

  constructor(buckets: number) {
    this.values = new Float64Array(buckets);
    this.times = new Float64Array(buckets);
    this.traceIds = new Array<string | undefined>(buckets).fill(undefined);
    this.spanIds = new Array<string | undefined>(buckets).fill(undefined);
    this.attributes = new Array<Attributes | undefined>(buckets).fill(undefined);
  }
}

/** The exemplars of one histogram stream (instrumentation scope and metric name) with explicit buckets. */
export class ExemplarReservoir {
  private readonly series = new Map<number, Series>();

  constructor(
    private readonly registry: ExemplarRegistry,
    readonly scope: string,
    readonly name: string,
    /** The bucket boundaries the SDK aggregates with (the instrument's advice); checked again at export. */
    readonly boundaries: readonly number[],
  ) {}

  /** Keeps `value` as its bucket's exemplar when a sampled span is active in `ctx`. */
  offer(value: number, attributes: Attributes | undefined, ctx?: Context): void {
    if (!this.registry.enabled) return;
    const span = trace.getSpan(ctx ?? context.active());
    if (span === undefined) return;
    const spanContext = span.spanContext();
    if ((spanContext.traceFlags & TraceFlags.SAMPLED) === 0) return;
    const attrs = attributes ?? EMPTY;
    const hash = hashAttributes(attrs);
    let series = this.series.get(hash);
    if (series === undefined) {
      if (this.series.size >= MAX_SERIES) return;
      series = new Series(this.boundaries.length + 1);
      this.series.set(hash, series);
    }
    const bucket = bucketOf(this.boundaries, value);
    series.values[bucket] = value;
    series.times[bucket] = Date.now();
    series.traceIds[bucket] = spanContext.traceId;
    series.spanIds[bucket] = spanContext.spanId;
    series.attributes[bucket] = attrs;
  }

  /**
   * The exemplars of one data point, by bucket, and forgets them: the measurements of the series `attributes`
   * made within [startMs, endMs] (the SDK stamps a collection with Date.now(), as `offer` does). Undefined
   * when the point's buckets are not the reservoir's (a view changed them) or it has none.
   */
  take(
    attributes: Attributes,
    boundaries: readonly number[],
    startMs: number,
    endMs: number,
  ): Exemplar[] | undefined {
    if (!sameBoundaries(boundaries, this.boundaries)) return undefined;
    const series = this.series.get(hashAttributes(attributes));
    if (series === undefined) return undefined;
    let found: Exemplar[] | undefined;
    for (let bucket = 0; bucket < series.traceIds.length; bucket++) {
      const traceId = series.traceIds[bucket];
      const time = series.times[bucket]!;
      if (
        traceId === undefined ||
        time < startMs ||
        time > endMs ||
        !sameAttributes(series.attributes[bucket]!, attributes)
      )
        continue;
      (found ??= []).push({
        value: series.values[bucket]!,
        timeMs: time,
        traceId,
        spanId: series.spanIds[bucket]!,
      });
      series.traceIds[bucket] = undefined;
      series.spanIds[bucket] = undefined;
      series.attributes[bucket] = undefined;
    }
    return found;
  }
}

/** Every reservoir of the process, by stream; `enabled` when an exporter will read them. */
export class ExemplarRegistry {
  enabled = false;
  private readonly reservoirs = new Map<string, ExemplarReservoir>();

  /** The reservoir of a stream, made on first use; the same one for every instrument of that stream. */
  reservoir(scope: string, name: string, boundaries: readonly number[]): ExemplarReservoir {
    const key = streamKey(scope, name);
    let reservoir = this.reservoirs.get(key);
    if (reservoir === undefined) {
      reservoir = new ExemplarReservoir(this, scope, name, [...boundaries]);
      this.reservoirs.set(key, reservoir);
    }
    return reservoir;
  }

  /** The reservoir of a data point's stream, if any of its measurements were offered. */
  find(scope: string, name: string): ExemplarReservoir | undefined {
    return this.reservoirs.get(streamKey(scope, name));
  }
}

/** The process's registry: instruments.ts and `withExemplars` feed it, the OTLP metric exporter reads it. */
export const exemplars = new ExemplarRegistry();

/** The SDK's boundaries for a histogram with no advice (sdk-metrics' ExplicitBucketHistogramAggregation). */
export const SDK_DEFAULT_BOUNDARIES = [
  0, 5, 10, 25, 50, 75, 100, 250, 500, 750, 1000, 2500, 5000, 7500, 10000,
] as const;

const EMPTY: Attributes = Object.freeze({});

function streamKey(scope: string, name: string): string {
  return `${scope}\u0000${name}`;
}

/** The bucket `value` falls in, as the SDK counts: bucket i holds (boundaries[i-1], boundaries[i]]. */
function bucketOf(boundaries: readonly number[], value: number): number {
  let low = 0;
  let high = boundaries.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (value <= boundaries[mid]!) high = mid;
    else low = mid + 1;
  }
  return low;
}

function sameBoundaries(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function hashString(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash;
}

function hashValue(value: AttributeValue): number {
  switch (typeof value) {
    case 'string':
      return hashString(value);
    case 'number':
      return Number.isInteger(value)
        ? Math.imul(value | 0, 0x9e3779b1) ^ ((value / 0x100000000) | 0)
        : hashString(String(value));
    case 'boolean':
      return value ? 0x51ed27 : 0x2f8d1c;
    default:
      // An array: its length (equal arrays hash alike; the exporter compares the elements).
      return Array.isArray(value) ? Math.imul(value.length, 0x27d4eb2f) : 0;
  }
}

/**
 * The same number for the same keys and values in any order (a sum of per-pair hashes). A key counts by its
 * length only: the series of one histogram differ by their values (the keys come from one call site), and
 * the exporter compares the attributes in full, so a collision only ever costs an exemplar.
 */
export function hashAttributes(attributes: Attributes): number {
  let hash = 0;
  for (const key in attributes) {
    const value = attributes[key];
    if (value !== undefined)
      hash =
        (hash + Math.imul(Math.imul(key.length + 1, 0x9e3779b1) ^ hashValue(value), 0x85ebca6b)) |
        0;
  }
  return hash;
}

function sameValue(a: AttributeValue | undefined, b: AttributeValue | undefined): boolean {
  if (a === b) return true;
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Same keys and values (the SDK drops undefined values from a data point's attributes; so does this). */
export function sameAttributes(a: Attributes, b: Attributes): boolean {
  let count = 0;
  for (const key in a) {
    if (a[key] === undefined) continue;
    count++;
    if (!sameValue(a[key], b[key])) return false;
  }
  for (const key in b) if (b[key] !== undefined) count--;
  return count === 0;
}
