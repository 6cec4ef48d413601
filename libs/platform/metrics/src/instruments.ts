import { metrics, type Attributes, type Counter, type Gauge, type Histogram, type MeterProvider, type ObservableGauge, type ObservableResult } from '@opentelemetry/api';
import type { MetricDefinition } from './catalog';

// The only place that makes instruments (a spec checks that nothing else calls createCounter & co.): each one
// from its catalog definition, with the catalog's unit, description and buckets, and attributes typed by the
// catalog's keys, so that the code cannot record an attribute the catalog does not list.

type Value = string | number | boolean;
/** The attributes of a data point: every key the catalog lists as always there, and any of its conditional ones. */
export type MetricAttributes<A extends string, C extends string> = Record<A, Value> & Partial<Record<C, Value>>;

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
    ...(definition.buckets !== undefined ? { advice: { explicitBucketBoundaries: [...definition.buckets] } } : {}),
  };
}

function assertKind(definition: MetricDefinition<string, string>, kind: MetricDefinition['kind']): void {
  if (definition.kind !== kind) throw new Error(`metric ${definition.name} is a ${definition.kind} in the catalog, not a ${kind}`);
}

export interface CounterRecorder<A extends string, C extends string> {
  add(value: number, attributes: MetricAttributes<A, C>): void;
}

export function counter<A extends string, C extends string = never>(definition: MetricDefinition<A, C>): CounterRecorder<A, C> {
  assertKind(definition, 'counter');
  const instrument = perProvider<Counter>((provider) => provider.getMeter(definition.meter).createCounter(definition.name, options(definition)));
  return { add: (value, attributes) => instrument().add(value, attributes as Attributes) };
}

export interface HistogramRecorder<A extends string, C extends string> {
  record(value: number, attributes: MetricAttributes<A, C>): void;
}

export function histogram<A extends string, C extends string = never>(definition: MetricDefinition<A, C>): HistogramRecorder<A, C> {
  assertKind(definition, 'histogram');
  const instrument = perProvider<Histogram>((provider) => provider.getMeter(definition.meter).createHistogram(definition.name, options(definition)));
  return { record: (value, attributes) => instrument().record(value, attributes as Attributes) };
}

export function gauge<A extends string, C extends string = never>(definition: MetricDefinition<A, C>): HistogramRecorder<A, C> {
  assertKind(definition, 'gauge');
  const instrument = perProvider<Gauge>((provider) => provider.getMeter(definition.meter).createGauge(definition.name, options(definition)));
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
export function observeGauge<A extends string, C extends string = never>(definition: MetricDefinition<A, C>, observe: () => Iterable<Observation<A, C>>): () => void {
  assertKind(definition, 'observable_gauge');
  const instrument: ObservableGauge = metrics.getMeter(definition.meter).createObservableGauge(definition.name, options(definition));
  const callback = (result: ObservableResult) => {
    for (const { value, attributes } of observe()) result.observe(value, attributes as Attributes);
  };
  instrument.addCallback(callback);
  return () => instrument.removeCallback(callback);
}

/** Seconds since `startMs` (a performance.now() reading): durations are recorded in seconds. */
export function secondsSince(startMs: number): number {
  return (performance.now() - startMs) / 1000;
}
