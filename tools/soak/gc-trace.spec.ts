import { judge, limitsFor } from './flat';
import { gcCounts, liveHeapSeries, parseGcLine, parseGcLog, processStartFrom } from './gc-trace';

// The --trace-gc parser on lines printed by Node 24.21.0 (V8 13.6) on this machine, between the JSON lines
// pino writes to the same log, and the live-heap series and verdict built from them.

const MC =
  '[29626:0x1ea96000]      345 ms: Mark-Compact 72.3 (120.7) -> 20.9 (88.6) MB, pooled: 21 MB, 8.68 / 0.00 ms  (+ 20.0 ms in 141 steps since start of marking, biggest step 4.8 ms, walltime since start of marking 59 ms) (average mu = 0.943, current mu = 0.943) finalize incremental marking via stack guard; GC in old space requested';
const SCAVENGE =
  '[29571:0x32e0a000]      227 ms: Scavenge 104.2 (158.2) -> 75.5 (140.6) MB, pooled: 0 MB, 17.32 / 0.00 ms  (average mu = 1.000, current mu = 1.000) allocation failure; ';
const INTERLEAVED =
  '[29571:0x32e0a000]      322 ms: Scavenge (interleaved) 64.4 (100.4) -> 47.1 (147.6) MB, pooled: 0 MB, 31.49 / 0.00 ms  (average mu = 0.982, current mu = 0.982) task; ';
const TESTING =
  '[29579:0xd832000]       42 ms: Mark-Compact 8.2 (14.9) -> 7.7 (16.2) MB, pooled: 0 MB, 7.83 / 0.00 ms  (average mu = 0.792, current mu = 0.792) testing; GC in old space requested';
// A full GC the memory reducer asked for (the charges service in the soak, 138 s after it started).
const REDUCE =
  '[31658:0x3bdc7000]   138347 ms: Mark-Compact (reduce) 153.3 (274.9) -> 44.4 (100.2) MB, pooled: 0 MB, 65.45 / 0.01 ms  (+ 35.2 ms in 243 steps since start of marking, biggest step 4.8 ms, walltime since start of marking 111 ms) (average mu = 0.999, current mu = 0.999) finalize incremental marking via task; GC in old space requested';
const PINO =
  '{"level":30,"time":1763788861123,"pid":29626,"hostname":"dev","service":"vault","msg":"request completed","res":{"statusCode":201},"responseTime":12}';

describe('--trace-gc lines', () => {
  it('a Mark-Compact: pid, V8 time, heap before and after (the live heap), committed memory', () => {
    expect(parseGcLine(MC)).toEqual({
      pid: 29626,
      ms: 345,
      collector: 'Mark-Compact',
      qualifier: '',
      beforeMb: 72.3,
      beforeCommittedMb: 120.7,
      afterMb: 20.9,
      afterCommittedMb: 88.6,
    });
    expect(parseGcLine(TESTING)).toMatchObject({
      pid: 29579,
      ms: 42,
      collector: 'Mark-Compact',
      afterMb: 7.7,
    });
    expect(parseGcLine(REDUCE)).toMatchObject({
      pid: 31658,
      collector: 'Mark-Compact',
      qualifier: 'reduce',
      beforeMb: 153.3,
      afterMb: 44.4,
      ms: 138347,
    });
  });

  it('scavenges, plain and interleaved', () => {
    expect(parseGcLine(SCAVENGE)).toMatchObject({
      collector: 'Scavenge',
      qualifier: '',
      beforeMb: 104.2,
      afterMb: 75.5,
    });
    expect(parseGcLine(INTERLEAVED)).toMatchObject({
      collector: 'Scavenge',
      qualifier: 'interleaved',
      afterMb: 47.1,
      afterCommittedMb: 147.6,
    });
  });

  it('anything else is not a GC line: pino JSON, warnings, a truncated line', () => {
    expect(parseGcLine(PINO)).toBeNull();
    expect(
      parseGcLine('(node:29626) TimeoutNegativeWarning: -1763788861 is a negative number.'),
    ).toBeNull();
    expect(
      parseGcLine('[29626:0x1ea96000]      345 ms: Mark-Compact 72.3 (120.7) -> 20.'),
    ).toBeNull();
    expect(parseGcLine('')).toBeNull();
  });

  it('a log: only GC lines, of the pid asked for, CRLF or not, a GC line glued after a partial write', () => {
    const otherPid = MC.replace('[29626:', '[31000:').replace(' 345 ms', ' 900 ms');
    const text = [
      PINO,
      SCAVENGE.replace('29571', '29626'),
      MC,
      PINO,
      otherPid,
      `{"level":30,"msg":"partial${REDUCE.replace('31658', '29626')}`,
      'garbage',
      '',
    ].join('\r\n');
    const all = parseGcLog(text);
    expect(all.map((e) => `${e.pid} ${e.collector}`)).toEqual([
      '29626 Scavenge',
      '29626 Mark-Compact',
      '31000 Mark-Compact',
      '29626 Mark-Compact',
    ]);
    expect(parseGcLog(text, 29626).map((e) => e.ms)).toEqual([227, 345, 138347]);
  });
});

describe('the live heap on the load clock', () => {
  it('process start from /proc/<pid>/stat and /proc/uptime (a command name with spaces and parentheses)', () => {
    // starttime (field 22) 726091 ticks = 7260.91 s after boot; uptime now 7300.00 s: started 39.09 s ago.
    const stat =
      '29803 (node (x) y) S 29797 29797 27397 0 -1 4194304 125 0 0 0 0 0 0 0 20 0 11 0 726091 3133440 410 18446744073709551615';
    expect(processStartFrom(stat, '7300.00 14000.00\n', 1_000_000)).toBeCloseTo(1_000_000 - 39_090);
    expect(processStartFrom('garbage', 'x', 0)).toBeNull();
  });

  it('full GCs only, placed on the load clock; the last one before the load is the start; none after the run', () => {
    const ev = (ms: number, collector: 'Scavenge' | 'Mark-Compact', afterMb: number) => ({
      pid: 1,
      ms,
      collector,
      qualifier: '',
      beforeMb: afterMb + 10,
      beforeCommittedMb: 0,
      afterMb,
      afterCommittedMb: 0,
    });
    // Process started at epoch 10 000 ms; the load at 15 000 (V8's 5 000 ms), for 120 s.
    const events = [
      ev(1000, 'Mark-Compact', 8),
      ev(3000, 'Mark-Compact', 20),
      ev(4000, 'Scavenge', 30),
      ev(35_000, 'Mark-Compact', 33),
      ev(95_000, 'Mark-Compact', 34),
      ev(126_000, 'Mark-Compact', 99),
    ];
    expect(liveHeapSeries(events, 10_000, 15_000, 120)).toEqual([
      { t: 0, v: 20 },
      { t: 30, v: 33 },
      { t: 90, v: 34 },
    ]);
    expect(gcCounts(events, 10_000, 15_000, 120)).toEqual({
      Scavenge: 0,
      'Mark-Compact': 2,
      'Minor Mark-Sweep': 0,
    });
  });

  it('flat live heap after full GCs every ~40 s on a 10-minute run: flat; a 2 MB/min heap leak: grows', () => {
    const heap = limitsFor(10).heap;
    const at = (f: (t: number) => number) =>
      Array.from({ length: 15 }, (_, i) => ({ t: 20 + i * 40, v: f(20 + i * 40) }));
    const flat = judge(
      at((t) => 35 + (t % 80 === 20 ? 1.5 : 0)),
      600,
      heap,
    );
    expect(flat.judged).toBe(true);
    expect(flat.flat).toBe(true);
    const leak = judge(
      at((t) => 35 + (2 * t) / 60),
      600,
      heap,
    );
    expect(leak.flat).toBe(false);
    expect(leak.reason).toMatch(/grew/);
  });

  it('too few full GCs (none in the last judged half) is no verdict, not flat', () => {
    const v = judge(
      [
        { t: 0, v: 30 },
        { t: 200, v: 33 },
        { t: 300, v: 33 },
      ],
      600,
      limitsFor(10).heap,
    );
    expect(v.judged).toBe(false);
    expect(v.flat).toBe(false);
    expect(v.reason).toMatch(/no verdict/);
  });

  it('sparse but enough: one full GC in each judged half and two in the second half of the run', () => {
    const v = judge(
      [
        { t: 0, v: 30 },
        { t: 320, v: 34 },
        { t: 500, v: 35 },
      ],
      600,
      limitsFor(10).heap,
    );
    expect(v.judged).toBe(true);
    expect(v.flat).toBe(true);
  });
});
