// CPU time per process of the machine's share in a charge (issue 18: "machine CPU per charge, summed over
// every process: services, PostgreSQL, broker, registry, printed per process"). Read from /proc, so Linux
// only: each process's user + system time, its reaped children's included (a PostgreSQL backend that
// exits leaves its time in the postmaster's cutime), in milliseconds.
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's times: USER_HZ, 100 on every Linux this runs on. */
const TICKS_PER_SECOND = 100;

function procTimesMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces), from field 3 on: utime is 14, stime 15,
    // cutime 16, cstime 17 (proc(5)).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
    return (ticks * 1000) / TICKS_PER_SECOND;
  } catch {
    return undefined; // gone
  }
}

function readOr(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** The machine's shared servers, by what their processes are: PostgreSQL, the Kafka broker, the registry. */
function serverOf(pid: number): string | undefined {
  const comm = readOr(`/proc/${pid}/comm`).trim();
  if (comm === 'postgres') return 'postgresql';
  if (comm !== 'java') return undefined;
  const cmdline = readOr(`/proc/${pid}/cmdline`);
  if (cmdline.includes('kafka.Kafka')) return 'kafka';
  if (cmdline.includes('tools.registry.run') || cmdline.includes('apicurio')) return 'registry';
  return undefined;
}

/**
 * CPU milliseconds used so far, by process group: each named service's pid, every PostgreSQL process, the
 * broker's and the registry's JVMs, and this process (the load generator). On a machine others share,
 * PostgreSQL's figure includes their queries: measure on a quiet one.
 */
export function cpuSnapshot(services: Record<string, number | undefined>): Record<string, number> {
  const byGroup: Record<string, number> = {};
  const add = (group: string, ms: number | undefined) => {
    if (ms !== undefined) byGroup[group] = (byGroup[group] ?? 0) + ms;
  };
  for (const [name, pid] of Object.entries(services))
    if (pid !== undefined) add(name, procTimesMs(pid));
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    const server = serverOf(pid);
    if (server !== undefined) add(server, procTimesMs(pid));
  }
  const own = process.cpuUsage();
  add('bench (load)', (own.user + own.system) / 1000);
  return byGroup;
}

/** Milliseconds of CPU per unit of work between two snapshots, by group, and their total. */
export function cpuPer(
  before: Record<string, number>,
  after: Record<string, number>,
  units: number,
): { total_ms: number; by_process_ms: Record<string, number> } {
  const byProcess: Record<string, number> = {};
  for (const [group, ms] of Object.entries(after))
    byProcess[group] = Math.round(((ms - (before[group] ?? 0)) / Math.max(1, units)) * 100) / 100;
  const total = Object.values(byProcess).reduce((sum, ms) => sum + ms, 0);
  return { total_ms: Math.round(total * 100) / 100, by_process_ms: byProcess };
}
