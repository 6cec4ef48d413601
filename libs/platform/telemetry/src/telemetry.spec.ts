import { ROOT_CONTEXT, SpanKind, trace, TraceFlags } from '@opentelemetry/api';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter, SamplingDecision } from '@opentelemetry/sdk-trace';
import { outboxMessage, newEnvelope } from '@pgw/contracts';
import { busMigration, enqueue, inboxHandler, InProcessBus, OutboxRelay } from '@pgw/platform-bus';
import { createPgliteKnex, sharedDb } from '@pgw/platform-db';
import { waitFor } from '@pgw/testing';
import { exportRequested, samplerWhenNotExporting, startTelemetry } from './telemetry';

describe('telemetry', () => {
  it('exports only when the standard OTEL_* variables ask for it', () => {
    expect(exportRequested({})).toBe(false);
    expect(exportRequested({ OTEL_TRACES_EXPORTER: 'none' })).toBe(false);
    expect(exportRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(exportRequested({ OTEL_TRACES_EXPORTER: 'otlp' })).toBe(true);
  });

  it("records no trace a process starts when it exports none, but keeps a sampled caller's trace whole", () => {
    const decide = (env: NodeJS.ProcessEnv, exporting: boolean, parentSampled: boolean | null) => {
      const sampler = samplerWhenNotExporting(env, exporting);
      if (sampler === undefined) return 'the SDK decides';
      const parent =
        parentSampled === null
          ? ROOT_CONTEXT
          : trace.setSpanContext(ROOT_CONTEXT, {
              traceId: '0af7651916cd43dd8448eb211c80319c',
              spanId: 'b7ad6b7169203331',
              traceFlags: parentSampled ? TraceFlags.SAMPLED : TraceFlags.NONE,
            });
      return SamplingDecision[
        sampler.shouldSample(
          parent,
          '0af7651916cd43dd8448eb211c80319c',
          'POST',
          SpanKind.SERVER,
          {},
          [],
        ).decision
      ];
    };
    expect(decide({}, false, null)).toBe('NOT_RECORD');
    expect(decide({}, false, false)).toBe('NOT_RECORD');
    expect(decide({}, false, true)).toBe('RECORD_AND_SAMPLED');
    // Exporting, or told which sampler to use, the process keeps the SDK's choice.
    expect(decide({}, true, null)).toBe('the SDK decides');
    expect(decide({ OTEL_TRACES_SAMPLER: 'parentbased_always_on' }, false, null)).toBe(
      'the SDK decides',
    );
  });

  it('carries one trace from the producing transaction, through the outbox and the bus, to the consumer, and measures the outbox', async () => {
    // Proves a payment's hops are one trace by the messaging conventions: the relay's send span and the
    // consumer's process span are children of the request that wrote the event, the process span links the send.
    const exporter = new InMemorySpanExporter();
    const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
    const metricReader = new PeriodicExportingMetricReader({
      exporter: metricExporter,
      exportIntervalMillis: 60_000,
    });
    const telemetry = startTelemetry({
      serviceName: 'test',
      spanExporter: exporter,
      metricReader,
      env: {},
    });
    const knex = createPgliteKnex(null);
    try {
      const producer = sharedDb(knex, 'tel_producer');
      const consumer = sharedDb(knex, 'tel_consumer');
      await producer.migrate([busMigration]);
      await consumer.migrate([busMigration]);
      const bus = new InProcessBus();
      const applied: string[] = [];
      await bus.subscribe({
        groupId: 'g',
        topics: ['gateway.directory'],
        handle: inboxHandler(
          consumer,
          'c',
          async () => void applied.push(trace.getActiveSpan()?.spanContext().traceId ?? 'none'),
        ),
      });
      const relay = new OutboxRelay({ db: producer, bus, pollIntervalMs: 10 });
      relay.start();
      const tracer = trace.getTracer('test');
      let eventId = '';
      const traceId = await tracer.startActiveSpan('POST /api/v1/charges', async (span) => {
        const envelope = newEnvelope('gateway.tenant-changed.v1', {
          producer: 'test',
          tenantId: 'ten_t',
          livemode: null,
        });
        eventId = envelope.event_id;
        const event = {
          envelope,
          tenant_id: 'ten_t',
          name: 'x',
          treasury_available_cash_cents: 0,
          version: 1,
        };
        await producer.tx((trx) =>
          enqueue(producer, trx, [outboxMessage('gateway.tenant-changed.v1', 'ten_t', event)]),
        );
        span.end();
        return span.spanContext().traceId;
      });
      await waitFor(() => (applied.length > 0 ? true : undefined));
      await relay.stop();
      expect(applied).toEqual([traceId]);
      const spans = exporter.getFinishedSpans();
      const request = spans.find((s) => s.name === 'POST /api/v1/charges')!;
      const send = spans.find((s) => s.kind === SpanKind.PRODUCER)!;
      const processed = spans.find((s) => s.kind === SpanKind.CONSUMER)!;
      expect(send.name).toBe('send gateway.directory');
      expect(send.attributes).toMatchObject({
        'messaging.system': 'in-process',
        'messaging.destination.name': 'gateway.directory',
        'messaging.operation.type': 'send',
        'messaging.message.id': eventId,
      });
      expect(processed.name).toBe('process gateway.directory');
      expect(processed.attributes).toMatchObject({
        'messaging.system': 'in-process',
        'messaging.destination.name': 'gateway.directory',
        'messaging.operation.type': 'process',
        'messaging.message.id': eventId,
        'messaging.consumer.group.name': 'tel_consumer.c',
      });
      for (const span of [send, processed]) {
        expect(span.spanContext().traceId).toBe(traceId);
        expect(span.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
      }
      expect(processed.links.map((l) => l.context.spanId)).toEqual([send.spanContext().spanId]);
      await metricReader.forceFlush();
      const names = metricExporter
        .getMetrics()
        .flatMap((rm) => rm.scopeMetrics.flatMap((sm) => sm.metrics.map((m) => m.descriptor.name)));
      expect(names).toEqual(
        expect.arrayContaining([
          'outbox.lag',
          'outbox.published',
          'messaging.client.sent.messages',
          'messaging.process.duration',
        ]),
      );
    } finally {
      await knex.destroy();
      await telemetry.shutdown();
    }
  }, 60_000);
});
