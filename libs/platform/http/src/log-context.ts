import { isSpanContextValid, trace } from '@opentelemetry/api';

// Every log line carries the active trace and span ids, so a log line leads to its trace and back.
export function logMixin(): Record<string, string> {
  const span = trace.getActiveSpan();
  if (span === undefined) return {};
  const context = span.spanContext();
  if (!isSpanContextValid(context)) return {};
  return { trace_id: context.traceId, span_id: context.spanId };
}
