import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { createServer as createHttp2Server, type Http2Server } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { context, ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  AggregationTemporality,
  AggregationType,
  MeterProvider,
  PeriodicExportingMetricReader,
  type PushMetricExporter,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import {
  ExemplarRegistry,
  HTTP_SERVER_REQUEST_DURATION,
  withExemplars,
} from '@pgw/platform-metrics';
import { childEnv } from '@pgw/testing';
import * as protobuf from 'protobufjs';
import { exemplarSerializer } from './exemplar-export';
import type { ExemplarsResult } from './testing/exemplars.fixture';

const ROOT = join(__dirname, '..', '..', '..', '..');

// The OTLP metrics messages (opentelemetry-proto v1, collector/metrics/v1 and metrics/v1), field numbers as
// published, to decode what the exporter sent independently of how it was encoded.
const OTLP_METRICS_PROTO = `
syntax = "proto3";
package otlp;
message ExportMetricsServiceRequest { repeated ResourceMetrics resource_metrics = 1; }
message ResourceMetrics { Resource resource = 1; repeated ScopeMetrics scope_metrics = 2; string schema_url = 3; }
message Resource { repeated KeyValue attributes = 1; uint32 dropped_attributes_count = 2; }
message ScopeMetrics { InstrumentationScope scope = 1; repeated Metric metrics = 2; string schema_url = 3; }
message InstrumentationScope { string name = 1; string version = 2; repeated KeyValue attributes = 3; uint32 dropped_attributes_count = 4; }
message KeyValue { string key = 1; AnyValue value = 2; }
message AnyValue { oneof value { string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4; ArrayValue array_value = 5; KeyValueList kvlist_value = 6; bytes bytes_value = 7; } }
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
message Metric { string name = 1; string description = 2; string unit = 3; oneof data { Gauge gauge = 5; Sum sum = 7; Histogram histogram = 9; } }
message Gauge { repeated NumberDataPoint data_points = 1; }
message Sum { repeated NumberDataPoint data_points = 1; int32 aggregation_temporality = 2; bool is_monotonic = 3; }
message Histogram { repeated HistogramDataPoint data_points = 1; int32 aggregation_temporality = 2; }
message NumberDataPoint { repeated KeyValue attributes = 7; fixed64 start_time_unix_nano = 2; fixed64 time_unix_nano = 3; oneof value { double as_double = 4; sfixed64 as_int = 6; } repeated Exemplar exemplars = 5; uint32 flags = 8; }
message HistogramDataPoint { repeated KeyValue attributes = 9; fixed64 start_time_unix_nano = 2; fixed64 time_unix_nano = 3; fixed64 count = 4; optional double sum = 5; repeated fixed64 bucket_counts = 6; repeated double explicit_bounds = 7; repeated Exemplar exemplars = 8; uint32 flags = 10; optional double min = 11; optional double max = 12; }
message Exemplar { repeated KeyValue filtered_attributes = 7; fixed64 time_unix_nano = 2; oneof value { double as_double = 3; sfixed64 as_int = 6; } bytes span_id = 4; bytes trace_id = 5; }
`;
const ExportRequest = protobuf
  .parse(OTLP_METRICS_PROTO)
  .root.lookupType('otlp.ExportMetricsServiceRequest');

/** A histogram point as a reader of either encoding sees it. */
interface Point {
  scope: string;
  metric: string;
  attributes: Record<string, unknown>;
  startNanos: bigint;
  timeNanos: bigint;
  count: number;
  bucketCounts: number[];
  bounds: number[];
  exemplars: Array<{ traceId: string; spanId: string; value: number; timeNanos: bigint }>;
}

type Json = { [key: string]: any };

const anyValue = (value: Json): unknown =>
  value.stringValue ??
  value.boolValue ??
  (value.intValue !== undefined ? Number(value.intValue) : value.doubleValue);
const attributesOf = (list: Json[] | undefined) =>
  Object.fromEntries((list ?? []).map((kv) => [kv.key, anyValue(kv.value ?? {})]));
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

/** The histogram points of an OTLP/JSON body (hex ids, nanoseconds as strings, as the OTLP JSON mapping says). */
function jsonPoints(body: Buffer): Point[] {
  const request = JSON.parse(body.toString('utf8')) as Json;
  return (request.resourceMetrics as Json[]).flatMap((rm) =>
    (rm.scopeMetrics as Json[]).flatMap((sm) =>
      (sm.metrics as Json[])
        .filter((m) => m.histogram !== undefined)
        .flatMap((m) =>
          (m.histogram.dataPoints as Json[]).map((p) => ({
            scope: sm.scope.name as string,
            metric: m.name as string,
            attributes: attributesOf(p.attributes),
            startNanos: BigInt(p.startTimeUnixNano),
            timeNanos: BigInt(p.timeUnixNano),
            count: Number(p.count),
            bucketCounts: (p.bucketCounts as Array<string | number>).map(Number),
            bounds: p.explicitBounds as number[],
            exemplars: ((p.exemplars ?? []) as Json[]).map((e) => ({
              traceId: e.traceId,
              spanId: e.spanId,
              value: e.asDouble,
              timeNanos: BigInt(e.timeUnixNano),
            })),
          })),
        ),
    ),
  );
}

/** The same from an OTLP/protobuf body, decoded by protobufjs with the published messages. */
function protobufPoints(body: Buffer): Point[] {
  const request = ExportRequest.toObject(ExportRequest.decode(body), {
    longs: String,
    defaults: true,
  }) as Json;
  return (request.resourceMetrics as Json[]).flatMap((rm) =>
    (rm.scopeMetrics as Json[]).flatMap((sm) =>
      (sm.metrics as Json[])
        .filter((m) => m.histogram !== undefined && m.histogram !== null)
        .flatMap((m) =>
          (m.histogram.dataPoints as Json[]).map((p) => ({
            scope: sm.scope.name as string,
            metric: m.name as string,
            attributes: attributesOf(p.attributes),
            startNanos: BigInt(p.startTimeUnixNano),
            timeNanos: BigInt(p.timeUnixNano),
            count: Number(p.count),
            bucketCounts: (p.bucketCounts as string[]).map(Number),
            bounds: p.explicitBounds as number[],
            exemplars: (p.exemplars as Json[]).map((e) => ({
              traceId: hex(e.traceId),
              spanId: hex(e.spanId),
              value: e.asDouble,
              timeNanos: BigInt(e.timeUnixNano),
            })),
          })),
        ),
    ),
  );
}

interface Received {
  contentType: string;
  body: Buffer;
}

/** A collector's OTLP/HTTP receiver for metrics: what each export sent, answered with an empty response. */
async function metricsReceiver(): Promise<{
  url: string;
  received: Received[];
  close(): Promise<void>;
}> {
  const received: Received[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const contentType = request.headers['content-type'] ?? '';
      if (request.url === '/v1/metrics')
        received.push({ contentType, body: Buffer.concat(chunks) });
      response.writeHead(200, { 'content-type': contentType });
      response.end(contentType === 'application/json' ? '{}' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The same over gRPC (HTTP/2 without TLS): the request message, without gRPC's 5-byte frame prefix. */
async function grpcMetricsReceiver(): Promise<{
  url: string;
  received: Received[];
  close(): Promise<void>;
}> {
  const received: Received[] = [];
  const server: Http2Server = createHttp2Server();
  server.on('stream', (stream, headers) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => {
      const frame = Buffer.concat(chunks);
      if (headers[':path'] === '/opentelemetry.proto.collector.metrics.v1.MetricsService/Export')
        received.push({
          contentType: String(headers['content-type']),
          body: frame.subarray(5, 5 + frame.readUInt32BE(1)),
        });
      stream.respond(
        { ':status': 200, 'content-type': 'application/grpc' },
        { waitForTrailers: true },
      );
      stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
      stream.end(Buffer.from([0, 0, 0, 0, 0]));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The fixture in a process of its own (telemetry patches http before it loads), exporting to `url`. */
async function runFixture(
  url: string,
  protocol: 'http/json' | 'http/protobuf' | 'grpc',
): Promise<ExemplarsResult> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', join(__dirname, 'testing', 'exemplars.fixture.ts')],
    {
      cwd: ROOT,
      env: childEnv({
        OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: protocol === 'grpc' ? url : `${url}/v1/metrics`,
        OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: protocol,
        OTEL_METRIC_EXPORT_INTERVAL: '600000',
        LOG_LEVEL: 'silent',
      }),
      timeout: 120_000,
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  const line = stdout.split('\n').find((l) => l.startsWith('EXEMPLARS_RESULT '));
  if (line === undefined)
    throw new Error(`exemplars fixture wrote no result:\n${stdout.slice(-4000)}`);
  return JSON.parse(line.slice('EXEMPLARS_RESULT '.length)) as ExemplarsResult;
}

/** The bucket a value is counted in: (bounds[i-1], bounds[i]]. */
const bucketOf = (bounds: number[], value: number) =>
  bounds.filter((bound) => value > bound).length;

describe('exemplars on the latency histograms, exported over OTLP (grpc, http/protobuf, http/json)', () => {
  it.each([
    ['http/json', 'application/json', jsonPoints, metricsReceiver],
    ['http/protobuf', 'application/x-protobuf', protobufPoints, metricsReceiver],
    ['grpc', 'application/grpc', protobufPoints, grpcMetricsReceiver],
  ] as const)(
    '%s: http.server.request.duration and http.client.request.duration points carry the sampled requests’ trace and span ids, and no exemplar of an unsampled one',
    async (protocol, contentType, decode, startReceiver) => {
      // Proves what an SRE clicks from a slow bucket in Grafana: the exemplar is the trace of a request that was
      // made, in the encoding the deployment sends; a request whose trace was not sampled leaves none.
      const receiver = await startReceiver();
      try {
        const result = await runFixture(receiver.url, protocol);
        expect(result.sampledUntraced).toBe(0);
        expect(result.traced.every((t) => t.serverSpanId !== '')).toBe(true);
        expect(receiver.received.map((r) => r.contentType)).toEqual([contentType]);
        const points = decode(receiver.received[0]!.body);

        const server = (status: number) =>
          points.filter(
            (p) =>
              p.metric === 'http.server.request.duration' &&
              p.attributes['http.response.status_code'] === status,
          );
        const [traced] = server(200);
        const [untraced] = server(202);
        expect([traced?.scope, traced?.count, untraced?.count]).toEqual([
          '@opentelemetry/instrumentation-http',
          3,
          3,
        ]);
        expect(traced!.exemplars.length).toBeGreaterThan(0);
        for (const exemplar of traced!.exemplars) {
          // The server span of one of the requests made: its trace, its span.
          expect(result.traced.map((t) => [t.traceId, t.serverSpanId])).toContainEqual([
            exemplar.traceId,
            exemplar.spanId,
          ]);
          // In a bucket that counted it, and within the point's window.
          expect(traced!.bucketCounts[bucketOf(traced!.bounds, exemplar.value)]).toBeGreaterThan(0);
          expect(
            exemplar.timeNanos >= traced!.startNanos && exemplar.timeNanos <= traced!.timeNanos,
          ).toBe(true);
        }
        // One exemplar per bucket at most (the aligned-bucket reservoir).
        expect(new Set(traced!.exemplars.map((e) => bucketOf(traced!.bounds, e.value))).size).toBe(
          traced!.exemplars.length,
        );
        expect(untraced!.exemplars).toEqual([]);

        // The catalog's own histogram (timeClientRequest, @pgw/platform-http): the client spans that timed the calls.
        const client = (status: number) =>
          points.find(
            (p) =>
              p.scope === '@pgw/platform-http' &&
              p.metric === 'http.client.request.duration' &&
              p.attributes['http.response.status_code'] === status,
          );
        expect(client(200)!.exemplars.length).toBeGreaterThan(0);
        for (const exemplar of client(200)!.exemplars)
          expect(result.traced.map((t) => [t.traceId, t.clientSpanId])).toContainEqual([
            exemplar.traceId,
            exemplar.spanId,
          ]);
        expect(client(202)!.exemplars).toEqual([]);
        expect(
          points.flatMap((p) => p.exemplars).filter((e) => result.untraced.includes(e.traceId)),
        ).toEqual([]);
      } finally {
        await receiver.close();
      }
    },
    150_000,
  );
});

describe('the exemplar reservoir and serializer', () => {
  // The active span is read from the context, as in a service (the SDK registers this manager there).
  const contextManager = new AsyncLocalStorageContextManager();
  beforeAll(() => context.setGlobalContextManager(contextManager.enable()));
  afterAll(() => {
    contextManager.disable();
    context.disable();
  });

  /** An exporter that keeps what the serializer makes of each export. */
  function serializingExporter(
    registry: ExemplarRegistry,
    encoding: 'json' | 'protobuf',
    bodies: Uint8Array[],
  ): PushMetricExporter {
    const serializer = exemplarSerializer(encoding, registry);
    return {
      export: (metrics: ResourceMetrics, done) => {
        bodies.push(serializer.serializeRequest(metrics)!);
        done({ code: 0 });
      },
      forceFlush: async () => {},
      shutdown: async () => {},
      selectAggregationTemporality: () => AggregationTemporality.CUMULATIVE,
    };
  }

  it('keeps the last sampled measurement per series and bucket, writes it once, and nothing while off', async () => {
    // Proves the reservoir's semantics without the network: per bucket the latest, series kept apart, each
    // exemplar exported once, attribute order irrelevant, and an unsampled or absent span ignored.
    const registry = new ExemplarRegistry();
    const bodies: Uint8Array[] = [];
    const reader = new PeriodicExportingMetricReader({
      exporter: serializingExporter(registry, 'protobuf', bodies),
      exportIntervalMillis: 600_000,
    });
    const provider = withExemplars(new MeterProvider({ readers: [reader] }), registry);
    const duration = provider
      .getMeter('@opentelemetry/instrumentation-http')
      .createHistogram('http.server.request.duration', {
        unit: 's',
        advice: { explicitBucketBoundaries: [...HTTP_SERVER_REQUEST_DURATION.buckets!] },
      });
    const span = (traceId: string, flags: number) =>
      trace.setSpanContext(ROOT_CONTEXT, {
        traceId,
        spanId: traceId.slice(0, 16),
        traceFlags: flags,
        isRemote: false,
      });
    const a = '1'.repeat(32);
    const b = '2'.repeat(32);
    const c = '3'.repeat(32);
    duration.record(0.003, { route: '/x', status: 200 }, span(a, TraceFlags.SAMPLED)); // off: not kept
    registry.enabled = true;
    duration.record(0.004, { route: '/x', status: 200 }, span(a, TraceFlags.SAMPLED));
    duration.record(0.0045, { status: 200, route: '/x' }, span(b, TraceFlags.SAMPLED)); // same series and bucket: replaces a
    duration.record(0.3, { route: '/x', status: 200 }, span(c, TraceFlags.NONE)); // unsampled
    context.with(span(c, TraceFlags.SAMPLED), () =>
      duration.record(0.3, { route: '/y', status: 200 }),
    ); // the active span
    duration.record(0.3, { route: '/z', status: 200 }); // no span
    await reader.forceFlush();
    await reader.forceFlush();
    const [first, second] = bodies.map((body) => protobufPoints(Buffer.from(body)));
    const exemplarsOf = (points: Point[]) =>
      Object.fromEntries(
        points.map((p) => [p.attributes.route, p.exemplars.map((e) => [e.traceId, e.value])]),
      );
    expect(exemplarsOf(first!)).toEqual({ '/x': [[b, 0.0045]], '/y': [[c, 0.3]], '/z': [] });
    expect(exemplarsOf(second!)).toEqual({ '/x': [], '/y': [], '/z': [] });
    provider.getMeter('x').createCounter('unused').add(0); // the wrapped meter's other instruments still work
    expect(first!.find((p) => p.attributes.route === '/x')!.count).toBe(4); // every measurement counted, sampled or not
  });

  it('leaves a point alone whose buckets are not the ones the reservoir kept (a view changed them)', async () => {
    const registry = new ExemplarRegistry();
    registry.enabled = true;
    const bodies: Uint8Array[] = [];
    const reader = new PeriodicExportingMetricReader({
      exporter: serializingExporter(registry, 'json', bodies),
      exportIntervalMillis: 600_000,
    });
    const meterProvider = new MeterProvider({
      readers: [reader],
      views: [
        {
          instrumentName: 'd',
          aggregation: {
            type: AggregationType.EXPLICIT_BUCKET_HISTOGRAM,
            options: { boundaries: [1, 2] },
          },
        },
      ],
    });
    const duration = withExemplars(meterProvider, registry)
      .getMeter('m')
      .createHistogram('d', { advice: { explicitBucketBoundaries: [0.5] } });
    duration.record(
      1.5,
      { k: 'v' },
      trace.setSpanContext(ROOT_CONTEXT, {
        traceId: 'a'.repeat(32),
        spanId: 'b'.repeat(16),
        traceFlags: TraceFlags.SAMPLED,
      }),
    );
    await reader.forceFlush();
    const [point] = jsonPoints(Buffer.from(bodies[0]!));
    expect([point!.bounds, point!.count, point!.exemplars]).toEqual([[1, 2], 1, []]);
  });
});
