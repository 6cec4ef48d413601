import {
  metrics,
  type Attributes,
  type Context,
  type Histogram,
  type Meter,
  type MeterProvider,
  type MetricOptions,
  type ObservableGauge,
  type ObservableResult,
} from '@opentelemetry/api';
import type { MetricDefinition } from './catalog';
import { exemplars, SDK_DEFAULT_BOUNDARIES, type ExemplarRegistry } from './exemplars';
import { assert } from '@pgw/domain';

// The only place that makes instruments (a spec checks that nothing else calls createCounter & co.): each one
// from its catalog definition, with the catalog's unit, description and buckets, and attributes typed by the
// catalog's keys, so that the code cannot record an attribute the catalog does not list.

type Value = string | number | boolean;
/** The attributes of a data point: every key the catalog lists as always there, and any of its conditional ones. */
export type MetricAttributes<A extends string, C extends string> = Record<A, Value> &
  Partial<Record<C, Value>>;

// The metrics API has no proxy meter: an instrument made before the SDK starts stays a no-op for good. So
// each recorder makes its instrument against whichever provider is registered when it records, once per
// provider (a test that starts an SDK of its own gets instruments of its own).
function perProvider<T>(make: (provider: MeterProvider) => T): () => T {
  const made = new WeakMap<MeterProvider, T>();
  return () => {
    const provider = metrics.getMeterProvider();
    let instrument = made.get(provider);
    if (instrument === undefined) {
      instrument = make(provider);
      made.set(provider, instrument);
    }
    return instrument;
  };
}

function options(definition: MetricDefinition<string, string>) {
  return {
    unit: definition.unit,
    description: definition.description,
    ...(definition.buckets !== undefined
      ? { advice: { explicitBucketBoundaries: [...definition.buckets] } }
      : {}),
  };
}

function assertKind(
  definition: MetricDefinition<string, string>,
  kind: MetricDefinition['kind'],
): void {
  assert(definition.kind === kind, 'metrics.instrument-of-catalog-kind', {
    metric: definition.name,
    catalog_kind: definition.kind,
    kind,
  });
}

/** The definition's instrument, checked to be of `kind`, made by `create` per provider (perProvider). */
function instrumentOf<T>(
  definition: MetricDefinition<string, string>,
  kind: MetricDefinition['kind'],
  create: (meter: Meter, name: string, options: MetricOptions) => T,
): () => T {
  assertKind(definition, kind);
  return perProvider((provider) =>
    create(provider.getMeter(definition.meter), definition.name, options(definition)),
  );
}

export interface CounterRecorder<A extends string, C extends string> {
  add(value: number, attributes: MetricAttributes<A, C>): void;
}

export function counter<A extends string, C extends string = never>(
  definition: MetricDefinition<A, C>,
): CounterRecorder<A, C> {
  const instrument = instrumentOf(definition, 'counter', (m, n, o) => m.createCounter(n, o));
  return { add: (value, attributes) => instrument().add(value, attributes as Attributes) };
}

export interface HistogramRecorder<A extends string, C extends string> {
  record(value: number, attributes: MetricAttributes<A, C>): void;
}

/** A histogram of the catalog; each measurement is also offered as its bucket's exemplar (exemplars.ts). */
export function histogram<A extends string, C extends string = never>(
  definition: MetricDefinition<A, C>,
): HistogramRecorder<A, C> {
  const instrument = instrumentOf(definition, 'histogram', (m, n, o) => m.createHistogram(n, o));
  const reservoir = exemplars.reservoir(
    definition.meter,
    definition.name,
    definition.buckets ?? SDK_DEFAULT_BOUNDARIES,
  );
  return {
    record: (value, attributes) => {
      instrument().record(value, attributes as Attributes);
      reservoir.offer(value, attributes as Attributes);
    },
  };
}

export function gauge<A extends string, C extends string = never>(
  definition: MetricDefinition<A, C>,
): HistogramRecorder<A, C> {
  const instrument = instrumentOf(definition, 'gauge', (m, n, o) => m.createGauge(n, o));
  return { record: (value, attributes) => instrument().record(value, attributes as Attributes) };
}

export interface Observation<A extends string, C extends string> {
  value: number;
  attributes: MetricAttributes<A, C>;
}

/**
 * Registers `observe` with the provider registered now (call it once the SDK has started, e.g. when a
 * relay starts); it is asked for the current values at each collection. Returns the function that stops it.
 */
export function observeGauge<A extends string, C extends string = never>(
  definition: MetricDefinition<A, C>,
  observe: () => Iterable<Observation<A, C>>,
): () => void {
  assertKind(definition, 'observable_gauge');
  const instrument: ObservableGauge = metrics
    .getMeter(definition.meter)
    .createObservableGauge(definition.name, options(definition));
  const callback = (result: ObservableResult) => {
    for (const { value, attributes } of observe()) result.observe(value, attributes as Attributes);
  };
  instrument.addCallback(callback);
  return () => instrument.removeCallback(callback);
}

/**
 * A meter provider whose histograms also offer each measurement to the registry: for instrumentations that
 * record through a provider they are given (the HTTP instrumentation's `setMeterProvider`). Everything else
 * is the wrapped provider's own: the instruments are still the instrumentation's (the catalog lists them).
 */
export function withExemplars(
  provider: MeterProvider,
  registry: ExemplarRegistry = exemplars,
): MeterProvider {
  return {
    getMeter(name, version, options): Meter {
      const meter = provider.getMeter(name, version, options);
      return new Proxy(meter, {
        get(target, property, receiver) {
          if (property !== 'createHistogram') {
            const value = Reflect.get(target, property, receiver) as unknown;
            return typeof value === 'function'
              ? (value as (...args: unknown[]) => unknown).bind(target)
              : value;
          }
          return (histogramName: string, histogramOptions?: MetricOptions): Histogram => {
            const histogram = target.createHistogram(histogramName, histogramOptions);
            const reservoir = registry.reservoir(
              name,
              histogramName,
              histogramOptions?.advice?.explicitBucketBoundaries ?? SDK_DEFAULT_BOUNDARIES,
            );
            return {
              record(value: number, attributes?: Attributes, ctx?: Context): void {
                histogram.record(value, attributes, ctx);
                reservoir.offer(value, attributes, ctx);
              },
            };
          };
        },
      });
    },
  };
}

/** Seconds since `startMs` (a performance.now() reading): durations are recorded in seconds. */
export function secondsSince(startMs: number): number {
  return (performance.now() - startMs) / 1000;
}
