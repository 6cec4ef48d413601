import { createServer, type Server } from 'node:http';
import { createServer as createHttp2Server, type Http2Server } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { LoggerProvider, SimpleLogRecordProcessor } from '@opentelemetry/sdk-logs';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import {
  logExporterFor,
  metricExporterFor,
  otlpProtocol,
  signalExportRequested,
  spanExporterFor,
} from './exporters';

interface Received {
  path: string;
  contentType: string;
  body: Buffer;
}

/** A collector's OTLP/HTTP receiver, reduced to what it was sent: path, content type and bytes. */
async function httpReceiver(): Promise<{
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
      received.push({ path: request.url ?? '', contentType, body: Buffer.concat(chunks) });
      // An empty export response, in the encoding asked for.
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

/** The same over gRPC (HTTP/2 without TLS): each call answered with an empty message and grpc-status 0. */
async function grpcReceiver(): Promise<{
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
      received.push({
        path: String(headers[':path']),
        contentType: String(headers['content-type']),
        body: Buffer.concat(chunks),
      });
      stream.respond(
        { ':status': 200, 'content-type': 'application/grpc' },
        { waitForTrailers: true },
      );
      stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
      // One length-prefixed message of zero bytes: the empty Export*ServiceResponse.
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

/** One span, one metric point and one log record through the exporters the env selects, flushed. */
async function exportOneOfEach(env: NodeJS.ProcessEnv): Promise<void> {
  const tracerProvider = new TracerProvider({
    spanProcessors: [new SimpleSpanProcessor({ exporter: spanExporterFor(env) })],
  });
  tracerProvider.getTracer('exporters.spec').startSpan('POST /api/v1/charges').end();
  const reader = new PeriodicExportingMetricReader({
    exporter: metricExporterFor(env),
    exportIntervalMillis: 60_000,
  });
  const meterProvider = new MeterProvider({ readers: [reader] });
  meterProvider
    .getMeter('exporters.spec')
    .createCounter('charges.created', { unit: '{charge}' })
    .add(1, { payment_method: 'pix' });
  const loggerProvider = new LoggerProvider({
    processors: [new SimpleLogRecordProcessor({ exporter: logExporterFor(env) })],
  });
  loggerProvider.getLogger('exporters.spec').emit({ body: 'charge created', severityText: 'info' });
  await Promise.all([
    tracerProvider.forceFlush(),
    reader.forceFlush(),
    loggerProvider.forceFlush(),
  ]);
  await Promise.all([
    tracerProvider.shutdown(),
    meterProvider.shutdown(),
    loggerProvider.shutdown(),
  ]);
}

const bySignal = (received: Received[]) =>
  Object.fromEntries(received.map((r) => [r.path, r.contentType]));

describe('OTLP exporters chosen by OTEL_EXPORTER_OTLP_PROTOCOL', () => {
  it('http/protobuf (the default, and what the deployment sets): protobuf bodies to /v1/traces, /v1/metrics and /v1/logs', async () => {
    // Proves the deployment's http/protobuf is what leaves the process, for all three signals (metrics went out as JSON).
    const receiver = await httpReceiver();
    try {
      await exportOneOfEach({
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      });
      expect(bySignal(receiver.received)).toEqual({
        '/v1/traces': 'application/x-protobuf',
        '/v1/metrics': 'application/x-protobuf',
        '/v1/logs': 'application/x-protobuf',
      });
      for (const r of receiver.received) {
        expect(r.body.length).toBeGreaterThan(0);
        expect(r.body[0]).not.toBe('{'.charCodeAt(0));
      }
      // The protobuf strings are there as bytes: the span's name, the metric's name and unit, the log's body.
      const all = Buffer.concat(receiver.received.map((r) => r.body)).toString('latin1');
      for (const text of ['POST /api/v1/charges', 'charges.created', '{charge}', 'charge created'])
        expect(all).toContain(text);
    } finally {
      await receiver.close();
    }
  });

  it('http/json: JSON bodies with the OTLP field names', async () => {
    const receiver = await httpReceiver();
    try {
      await exportOneOfEach({
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      });
      expect(bySignal(receiver.received)).toEqual({
        '/v1/traces': 'application/json',
        '/v1/metrics': 'application/json',
        '/v1/logs': 'application/json',
      });
      const bodies = Object.fromEntries(
        receiver.received.map((r) => [
          r.path,
          JSON.parse(r.body.toString('utf8')) as Record<string, unknown>,
        ]),
      );
      expect(Object.keys(bodies['/v1/traces']!)).toContain('resourceSpans');
      expect(Object.keys(bodies['/v1/metrics']!)).toContain('resourceMetrics');
      expect(Object.keys(bodies['/v1/logs']!)).toContain('resourceLogs');
    } finally {
      await receiver.close();
    }
  });

  it("a signal's own variable wins over the common one: metrics in protobuf while traces and logs go as JSON", async () => {
    const receiver = await httpReceiver();
    try {
      await exportOneOfEach({
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'http/protobuf',
      });
      expect(bySignal(receiver.received)).toEqual({
        '/v1/traces': 'application/json',
        '/v1/metrics': 'application/x-protobuf',
        '/v1/logs': 'application/json',
      });
    } finally {
      await receiver.close();
    }
  });

  it('grpc: the three OTLP services over HTTP/2', async () => {
    const receiver = await grpcReceiver();
    try {
      await exportOneOfEach({
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      });
      expect(bySignal(receiver.received)).toEqual({
        '/opentelemetry.proto.collector.trace.v1.TraceService/Export': 'application/grpc',
        '/opentelemetry.proto.collector.metrics.v1.MetricsService/Export': 'application/grpc',
        '/opentelemetry.proto.collector.logs.v1.LogsService/Export': 'application/grpc',
      });
    } finally {
      await receiver.close();
    }
  });

  it('refuses a protocol outside the three at boot, naming the variable', () => {
    expect(otlpProtocol({}, 'metrics')).toBe('http/protobuf');
    expect(() =>
      otlpProtocol({ OTEL_EXPORTER_OTLP_LOGS_PROTOCOL: 'http/protobuff' }, 'logs'),
    ).toThrow('OTEL_EXPORTER_OTLP_LOGS_PROTOCOL is http/protobuff');
  });

  it('exports a signal only when an endpoint or its exporter is set, and never when its exporter is none', () => {
    expect(signalExportRequested({}, 'logs')).toBe(false);
    expect(
      signalExportRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector:4318' }, 'logs'),
    ).toBe(true);
    expect(
      signalExportRequested(
        { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector:4318', OTEL_LOGS_EXPORTER: 'none' },
        'logs',
      ),
    ).toBe(false);
    expect(
      signalExportRequested(
        { OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'http://otel-collector:4318/v1/metrics' },
        'metrics',
      ),
    ).toBe(true);
    expect(
      signalExportRequested(
        { OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'http://otel-collector:4318/v1/metrics' },
        'traces',
      ),
    ).toBe(false);
  });
});
