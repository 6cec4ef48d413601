import { cpuPer, cpuSnapshot } from './cpu';

describe('CPU per charge by process (/proc)', () => {
  it('counts the CPU a named process spends, as the process itself counts it, divided by the work done', () => {
    // Proves the bench's figure is the process's real CPU time: ~200 ms burnt between two snapshots (by
    // this process's own clock, whatever the machine's load) is what /proc reports, per unit of work.
    const before = cpuSnapshot({ me: process.pid });
    const start = process.cpuUsage();
    let spin = 0;
    while (process.cpuUsage(start).user < 200_000) spin += 1;
    const burntMs = (process.cpuUsage(start).user + process.cpuUsage(start).system) / 1000;
    expect(spin).toBeGreaterThan(0);
    const after = cpuSnapshot({ me: process.pid });
    const per = cpuPer(before, after, 2);
    // /proc counts in ticks of 10 ms.
    expect(Math.abs(per.by_process_ms.me! - burntMs / 2)).toBeLessThanOrEqual(20);
    expect(per.total_ms).toBeGreaterThanOrEqual(per.by_process_ms.me!);
  });
});
