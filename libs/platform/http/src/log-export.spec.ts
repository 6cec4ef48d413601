import { Writable } from 'node:stream';
import { context, logs, ROOT_CONTEXT, SeverityNumber, trace, TraceFlags } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  InMemoryLogRecordExporter,
  LoggerProvider,
  SimpleLogRecordProcessor,
} from '@opentelemetry/sdk-logs';
import { buildApp } from './build-app';
import { exportLogLines } from './log-export';

describe('log lines exported as OpenTelemetry log records', () => {
  const exporter = new InMemoryLogRecordExporter();
  const provider = new LoggerProvider({ processors: [new SimpleLogRecordProcessor({ exporter })] });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  const lines: string[] = [];
  const stdout = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const app = buildApp({ name: 'charges', log: { stream: stdout } });
  const spanContext = {
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: 'b7ad6b7169203331',
    traceFlags: TraceFlags.SAMPLED,
  };

  beforeAll(() => {
    logs.setGlobalLoggerProvider(provider);
    context.setGlobalContextManager(contextManager);
  });
  afterAll(async () => {
    await app.close();
    await provider.shutdown();
    logs.disable();
    context.disable();
  });

  it('exports nothing until telemetry asks for it, and writes the JSON line to stdout all the same', () => {
    app.log.info({ charge_id: 'ch_1' }, 'charge created');
    expect(exporter.getFinishedLogRecords()).toEqual([]);
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({
      level: 30,
      msg: 'charge created',
      service: 'charges',
      charge_id: 'ch_1',
    });
  });

  it('once asked, exports each line as written to stdout (redacted), with its severity and the trace it was logged in', () => {
    // Proves logs reach the collector without leaving stdout, never carrying more than stdout shows.
    exportLogLines();
    context.with(trace.setSpanContext(ROOT_CONTEXT, spanContext), () => {
      app.log.warn(
        { charge_id: 'ch_2', headers: { authorization: 'Bearer sk_live_secret' } },
        'acquirer slow',
      );
    });
    const line = JSON.parse(lines.at(-1)!) as Record<string, unknown>;
    expect(line).toMatchObject({
      level: 40,
      msg: 'acquirer slow',
      trace_id: spanContext.traceId,
      headers: { authorization: '[redacted]' },
    });

    const [record] = exporter.getFinishedLogRecords();
    expect(record).toBeDefined();
    expect(record!.body).toBe('acquirer slow');
    expect([record!.severityNumber, record!.severityText]).toEqual([SeverityNumber.WARN, 'warn']);
    expect(record!.attributes).toEqual({
      service: 'charges',
      charge_id: 'ch_2',
      headers: { authorization: '[redacted]' },
    });
    expect(record!.spanContext?.traceId).toBe(spanContext.traceId);
    expect(record!.spanContext?.spanId).toBe(spanContext.spanId);
    expect(JSON.stringify(record!.attributes)).not.toContain('sk_live_secret');
  });
});
