// The live heap of a service, from outside: every service of the soak runs with `--trace-gc`, which makes
// V8 print one line per garbage collection to stdout (the service's log, between pino's JSON lines). On
// Node 24 (V8 13.6) a line reads
//   [12345:0x2d1e3000]    61234 ms: Mark-Compact 35.2 (40.1) -> 33.1 (39.8) MB, pooled: 0 MB, 9.1 / 0.0 ms  (+ …) …
//   [12345:0x2d1e3000]    61300 ms: Scavenge (interleaved) 40.2 (45.0) -> 36.1 (47.3) MB, pooled: 0 MB, …
// — pid, isolate, milliseconds since the isolate started, the collector (Scavenge, Mark-Compact,
// Minor Mark-Sweep; V8 adds " (reduce)" when the memory reducer asked for a full GC, " (interleaved)" to a
// scavenge run during incremental marking), then the size of the heap's objects before → after, with the
// memory committed for them in parentheses, in MB (2^20 bytes).
//
// After a Mark-Compact (a full GC: every space marked, every unreachable object freed) the object size is
// the live heap — what the process holds — give or take the objects allocated while incremental marking
// ran (kept until the next one). That series has no saw-tooth and no V8 sizing in it: a leak of the heap
// raises it, nothing else does. After a Scavenge the figure is not the live heap: the old generation then
// holds everything promoted since the last full GC, live or dead, and grows until the next one whatever
// the process leaks; so scavenges are counted, never judged (see docs/soak.md).
// What the heap figure does not include: memory outside V8's heap (Buffers' and ArrayBuffers' backing
// stores, native handles, the allocator's arenas) — that a leak there shows only in RSS.
import { readFileSync } from 'node:fs';
import type { Sample } from './flat';

export type Collector = 'Scavenge' | 'Mark-Compact' | 'Minor Mark-Sweep';

export interface GcEvent {
  pid: number;
  /** Milliseconds since the isolate started (V8's clock). */
  ms: number;
  collector: Collector;
  /** "reduce", "interleaved", … or '' */
  qualifier: string;
  beforeMb: number;
  beforeCommittedMb: number;
  afterMb: number;
  afterCommittedMb: number;
}

// Not anchored at the start of the line: should a line ever arrive glued to another write, its GC part is
// still found; anchored on the `[pid:0x…]` prefix, so a pino line that quotes a GC line in a JSON string
// ("msg":"… ms: Mark-Compact …" has no `[pid:0x` before it unless it is a copy of one) is the only false
// match possible, and a copy carries the pid of the process that printed it (filtered by the caller).
const GC_LINE =
  /\[(\d+):0x[0-9a-f]+\]\s+(\d+(?:\.\d+)?) ms: (Scavenge|Mark-Compact|Minor Mark-Sweep)(?: \(([a-z -]+)\))? (\d+(?:\.\d+)?) \((\d+(?:\.\d+)?)\) -> (\d+(?:\.\d+)?) \((\d+(?:\.\d+)?)\) MB/;

/** One `--trace-gc` line, or null for anything else (pino's JSON, warnings, a truncated line). */
export function parseGcLine(line: string): GcEvent | null {
  const m = GC_LINE.exec(line);
  if (m === null) return null;
  const n = (i: number) => Number(m[i]);
  return {
    pid: n(1),
    ms: n(2),
    collector: m[3] as Collector,
    qualifier: m[4] ?? '',
    beforeMb: n(5),
    beforeCommittedMb: n(6),
    afterMb: n(7),
    afterCommittedMb: n(8),
  };
}

/** Every GC line of a log (of that pid only, when given: a restarted service appends to the same log). */
export function parseGcLog(text: string, pid?: number): GcEvent[] {
  const out: GcEvent[] = [];
  for (const line of text.split(/\r?\n/)) {
    if (!line.includes(' ms: ')) continue;
    const e = parseGcLine(line);
    if (e !== null && (pid === undefined || e.pid === pid)) out.push(e);
  }
  return out;
}

export function readGcLog(file: string, pid?: number): GcEvent[] {
  try {
    return parseGcLog(readFileSync(file, 'utf8'), pid);
  } catch {
    return [];
  }
}

/**
 * When the process started, in epoch milliseconds: /proc/<pid>/stat's starttime (clock ticks since boot,
 * USER_HZ = 100 on Linux) against /proc/uptime read at the same moment. Resolution 10 ms; the isolate
 * starts some milliseconds after the process (V8's clock starts there), negligible against 5 s samples.
 * Null when the process is gone.
 */
export function processStartEpochMs(pid: number, ticksPerSecond = 100): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const uptime = readFileSync('/proc/uptime', 'utf8');
    const now = Date.now();
    return processStartFrom(stat, uptime, now, ticksPerSecond);
  } catch {
    return null;
  }
}

/** The arithmetic of processStartEpochMs, apart for its test. */
export function processStartFrom(
  stat: string,
  uptime: string,
  nowEpochMs: number,
  ticksPerSecond = 100,
): number | null {
  // The command name (field 2) is in parentheses and may hold spaces and parentheses: count after the last ')'.
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const startTicks = Number(rest[19]); // field 22 (starttime); rest[0] is field 3
  const upSeconds = Number(uptime.split(' ')[0]);
  if (!Number.isFinite(startTicks) || !Number.isFinite(upSeconds)) return null;
  return nowEpochMs - (upSeconds - startTicks / ticksPerSecond) * 1000;
}

/**
 * The live heap after each full GC, as samples on the load's clock (seconds since the load started),
 * within [0, runSeconds]; the last full GC before the load, if any, at t = 0 (the `start` of the table).
 */
export function liveHeapSeries(
  events: GcEvent[],
  processStartEpochMs: number,
  loadStartEpochMs: number,
  runSeconds: number,
): Sample[] {
  const full = events.filter((e) => e.collector === 'Mark-Compact');
  const at = (e: GcEvent) => Math.round((processStartEpochMs + e.ms - loadStartEpochMs) / 100) / 10;
  const before = full.filter((e) => at(e) < 0);
  const during = full
    .filter((e) => at(e) >= 0 && at(e) <= runSeconds)
    .map((e) => ({ t: at(e), v: e.afterMb }));
  const last = before[before.length - 1];
  return last === undefined ? during : [{ t: 0, v: last.afterMb }, ...during];
}

/** Counts per collector within the load (for the report): how much evidence the verdict had. */
export function gcCounts(
  events: GcEvent[],
  processStartEpochMs: number,
  loadStartEpochMs: number,
  runSeconds: number,
): Record<Collector, number> {
  const out: Record<Collector, number> = { Scavenge: 0, 'Mark-Compact': 0, 'Minor Mark-Sweep': 0 };
  for (const e of events) {
    const t = (processStartEpochMs + e.ms - loadStartEpochMs) / 1000;
    if (t >= 0 && t <= runSeconds) out[e.collector]++;
  }
  return out;
}
