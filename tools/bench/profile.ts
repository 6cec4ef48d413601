// Reads the .cpuprofile files written by `node --cpu-prof` (bench --profile gateway,charges) and sums the
// samples' self time by function and by package, so that the JSON says where the CPU went. Frames in an
// esbuild bundle are mapped back to their source file (and so to their package) through the bundle's .map.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A span of the monotonic clock, in microseconds: V8's profile timestamps and `process.hrtime` share it. */
export interface Window {
  startUs: number;
  endUs: number;
}

/** Now on the clock of a .cpuprofile's timestamps (CLOCK_MONOTONIC, microseconds). */
export const monotonicUs = (): number => Number(process.hrtime.bigint() / 1000n);

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  hitCount?: number;
}

const sourceMaps = new Map<string, SourceMap | null>();

/** The original file and line of a frame in a bundle with a source map beside it; the frame itself otherwise. */
function original(
  url: string,
  lineNumber: number,
  columnNumber: number,
): { url: string; lineNumber: number } {
  if (!url.startsWith('file://') || !url.endsWith('.js')) return { url, lineNumber };
  let map = sourceMaps.get(url);
  if (map === undefined) {
    const file = `${fileURLToPath(url)}.map`;
    map = existsSync(file) ? new SourceMap(JSON.parse(readFileSync(file, 'utf8'))) : null;
    sourceMaps.set(url, map);
  }
  const entry = map?.findEntry(lineNumber, columnNumber);
  if (entry === undefined || !('originalSource' in entry)) return { url, lineNumber };
  return { url: entry.originalSource, lineNumber: entry.originalLine };
}

export interface ProfileSummary {
  files: string[];
  samples: number;
  /** Share of the samples in which the process was busy (not idle). */
  busyPercent: number;
  byPackage: Array<{ name: string; percent: number }>;
  byFunction: Array<{ name: string; percent: number }>;
}

export function packageOf(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1]}` : (rest[0] ?? url);
  }
  if (url.startsWith('node:')) return url;
  const m = /\/(apps|libs|tools)\/([^/]+)(?:\/([^/]+))?/.exec(url);
  if (m)
    return m[1] === 'libs' && m[2] === 'platform' ? `libs/platform/${m[3]}` : `${m[1]}/${m[2]}`;
  return url;
}

function top(
  map: Map<string, number>,
  total: number,
  n: number,
): Array<{ name: string; percent: number }> {
  return [...map.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([name, v]) => ({ name, percent: Math.round((v / total) * 1000) / 10 }));
}

/** Self time by function and package; with a window, only the samples taken inside it (the load, not start-up). */
export function summarizeProfile(files: string[], window?: Window): ProfileSummary {
  const byPackage = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let total = 0;
  let idle = 0;
  for (const file of files) {
    const profile = JSON.parse(readFileSync(file, 'utf8')) as {
      nodes: ProfileNode[];
      samples?: number[];
      startTime?: number;
      timeDeltas?: number[];
    };
    const hits = new Map<number, number>();
    if (profile.samples !== undefined) {
      let at = profile.startTime ?? 0;
      profile.samples.forEach((id, i) => {
        at += profile.timeDeltas?.[i] ?? 0;
        if (window === undefined || (at >= window.startUs && at <= window.endUs))
          hits.set(id, (hits.get(id) ?? 0) + 1);
      });
    }
    for (const node of profile.nodes) {
      const h = profile.samples !== undefined ? (hits.get(node.id) ?? 0) : (node.hitCount ?? 0);
      if (h === 0) continue;
      total += h;
      const { functionName } = node.callFrame;
      const { url, lineNumber } = original(
        node.callFrame.url,
        node.callFrame.lineNumber,
        node.callFrame.columnNumber,
      );
      if (functionName === '(idle)') {
        idle += h;
        continue;
      }
      const pkg = packageOf(url, functionName);
      byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + h);
      const fn = `${functionName || '(anonymous)'} ${url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*?\/(apps|libs|tools)\//, '$1/')}:${lineNumber + 1}`;
      byFunction.set(fn, (byFunction.get(fn) ?? 0) + h);
    }
  }
  const busy = total - idle;
  return {
    files,
    samples: total,
    busyPercent: total === 0 ? 0 : Math.round((busy / total) * 1000) / 10,
    byPackage: top(byPackage, Math.max(1, busy), 15),
    byFunction: top(byFunction, Math.max(1, busy), 25),
  };
}

/** One summary per app directory under dir (`<dir>/<app>/*.cpuprofile`), each over its app's window if any. */
export function summarizeProfiles(
  dir: string,
  windows: Record<string, Window> = {},
): Record<string, ProfileSummary> {
  const out: Record<string, ProfileSummary> = {};
  if (!existsSync(dir)) return out;
  for (const app of readdirSync(dir)) {
    const files = readdirSync(join(dir, app))
      .filter((f) => f.endsWith('.cpuprofile'))
      .map((f) => join(dir, app, f));
    if (files.length > 0) out[app] = summarizeProfile(files, windows[app]);
  }
  return out;
}
