import { logs, SeverityNumber, type AnyValue } from '@opentelemetry/api';

// The log lines also go out as OpenTelemetry log records (OTLP, to the collector) when telemetry is set to
// export logs; stdout gets every line as JSON either way. What is exported is the line pino wrote, after
// redaction: the collector never sees more than stdout does. Emitted while pino writes, so inside the
// request's context: the SDK puts the trace and span ids on the record itself.

let exporting = false;

/** Called by the telemetry setup when OTLP logs are configured (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_LOGS_EXPORTER). */
export function exportLogLines(): void {
  exporting = true;
}

const SEVERITY: Record<number, [SeverityNumber, string]> = {
  10: [SeverityNumber.TRACE, 'trace'],
  20: [SeverityNumber.DEBUG, 'debug'],
  30: [SeverityNumber.INFO, 'info'],
  40: [SeverityNumber.WARN, 'warn'],
  50: [SeverityNumber.ERROR, 'error'],
  60: [SeverityNumber.FATAL, 'fatal'],
};

/** pino's `streamWrite` hook: hands the line on unchanged, and exports it as a log record when asked to. */
export function exportLogLine(line: string): string {
  if (!exporting) return line;
  // pino writes one JSON object per line; its level, time and message become the record's own fields.
  const {
    level,
    time,
    msg,
    trace_id: _traceId,
    span_id: _spanId,
    ...attributes
  } = JSON.parse(line) as Record<string, unknown>;
  const [severityNumber, severityText] = SEVERITY[Number(level)] ?? [
    SeverityNumber.UNSPECIFIED,
    String(level),
  ];
  logs.getLogger('@pgw/platform-http').emit({
    ...(typeof time === 'number' ? { timestamp: time } : {}),
    severityNumber,
    severityText,
    body: typeof msg === 'string' ? msg : '',
    attributes: attributes as Record<string, AnyValue>,
  });
  return line;
}
