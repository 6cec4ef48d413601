// npm run bench:ab -- --base <git revision> [--pairs N] [--quick] [--only sections]
// A change against the revision before it, on this host, now: the bench runs alternately from a worktree of
// the base revision and from this tree (base then head, head then base, …), and every figure is printed as the
// pairs' differences. On a 2-core machine a rate moves by ±30 % from run to run and the host's speed by 3–5×
// from day to day (docs/benchmarks.md); a step of a few % shows only as differences of runs alternated on one
// host, never as one run against a saved baseline.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { numberArg, toolArgs, UsageError } from './args';
import { ROOT } from './cluster';
import { compareResults, roundTo, textTable, type ResultsLike } from './compare';
import { median } from './load';

const USAGE =
  'npm run bench:ab -- --base <git revision> [--pairs N (3)] [--quick] [--only counts,gateway,charges,lag,ledger,simulate,coldstart,allinone]';

export interface Pair {
  base: ResultsLike;
  head: ResultsLike;
}

export interface PairedChange {
  figure: string;
  unit: string;
  /** Per pair, in the order run. */
  base: number[];
  head: number[];
  /** head − base, per pair. */
  deltas: number[];
  medianDelta: number;
  /** The median of the pairs' changes relative to their base, in %; null when a base is 0. */
  medianPercent: number | null;
  /** Pairs in which head was above base, and below it. */
  higher: number;
  lower: number;
}

/** Every figure that both sides of every pair measured, with its differences; the others are left out. */
export function pairedChanges(pairs: readonly Pair[]): PairedChange[] {
  if (pairs.length === 0) return [];
  const byPair = pairs.map(({ base, head }) => compareResults(base, head));
  const out: PairedChange[] = [];
  for (const first of byPair[0] as ReturnType<typeof compareResults>) {
    const same = byPair.map((changes) => changes.find((c) => c.figure === first.figure));
    if (same.some((c) => c === undefined || c.old === null || c.new === null)) continue;
    const base = same.map((c) => c?.old as number);
    const head = same.map((c) => c?.new as number);
    const deltas = head.map((h, i) => roundTo(h - (base[i] as number), 4));
    const percents = deltas.map((d, i) =>
      base[i] === 0 ? null : (d / Math.abs(base[i] as number)) * 100,
    );
    out.push({
      figure: first.figure,
      unit: first.unit,
      base,
      head,
      deltas,
      medianDelta: roundTo(median(deltas), 4),
      medianPercent: percents.some((p) => p === null)
        ? null
        : roundTo(median(percents as number[]), 1),
      higher: deltas.filter((d) => d > 0).length,
      lower: deltas.filter((d) => d < 0).length,
    });
  }
  return out;
}

/** The paired changes as a plain-text table: both sides' values, the median difference, and its sign's count. */
export function formatPaired(changes: readonly PairedChange[], baseLabel: string): string {
  const signed = (x: number) => `${x > 0 ? '+' : ''}${x}`;
  const head = [
    'figure',
    'unit',
    `base (${baseLabel})`,
    'head (this tree)',
    'median delta',
    'median %',
    'head higher / lower',
  ];
  const body = changes.map((c) => [
    c.figure,
    c.unit,
    c.base.join(', '),
    c.head.join(', '),
    signed(c.medianDelta),
    c.medianPercent === null ? '—' : `${signed(c.medianPercent)}%`,
    `${c.higher} / ${c.lower} of ${c.deltas.length}`,
  ]);
  return textTable(head, body);
}

/** A worktree of `sha` under .cache (git-ignored), sharing this tree's node_modules; made once per revision. */
function worktreeOf(sha: string): string {
  const dir = join(ROOT, '.cache', 'bench-ab', sha);
  if (!existsSync(dir)) {
    mkdirSync(join(ROOT, '.cache', 'bench-ab'), { recursive: true });
    execFileSync('git', ['-C', ROOT, 'worktree', 'add', '--detach', dir, sha], {
      stdio: 'inherit',
    });
  }
  if (!existsSync(join(dir, 'node_modules')))
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

/** One `npm run bench` in `cwd`, its output passed through with a prefix; answers the results it wrote. */
function runBench(cwd: string, label: string, args: string[]): Promise<ResultsLike> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join('tools', 'bench', 'bench.ts'), ...args],
      { cwd, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      out += text;
      process.stdout.write(
        text
          .split('\n')
          .map((l) => (l === '' ? l : `[${label}] ${l}`))
          .join('\n'),
      );
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      const file = /^wrote (\S+\.json)$/m.exec(out)?.[1];
      if (code !== 0 || file === undefined) {
        reject(new Error(`the ${label} bench ended with ${code} and wrote no results`));
        return;
      }
      readFile(file, 'utf8').then((text) => resolve(JSON.parse(text) as ResultsLike), reject);
    });
  });
}

async function main(): Promise<void> {
  const { base, pairs, benchArgs } = toolArgs(
    USAGE,
    {
      base: { type: 'string' },
      pairs: { type: 'string' },
      quick: { type: 'boolean' },
      only: { type: 'string' },
    },
    ({ values }) => {
      if (values.base === undefined) throw new UsageError(`--base is required\nusage: ${USAGE}`);
      return {
        base: values.base,
        pairs: numberArg('pairs', values.pairs, 3, (n) => Number.isSafeInteger(n) && n >= 1),
        benchArgs: [
          ...(values.quick === true ? ['--quick'] : []),
          ...(values.only !== undefined ? ['--only', values.only] : []),
        ],
      };
    },
  );
  const sha = execFileSync('git', ['-C', ROOT, 'rev-parse', '--verify', `${base}^{commit}`])
    .toString()
    .trim();
  const baseDir = worktreeOf(sha);
  const label = sha.slice(0, 7);
  const results: Pair[] = [];
  for (let i = 0; i < pairs; i++) {
    // Alternate which side runs first: a host that speeds up or slows down over the session favours neither.
    const baseFirst = i % 2 === 0;
    process.stdout.write(
      `— pair ${i + 1} of ${pairs} (${baseFirst ? 'base first' : 'head first'})\n`,
    );
    const runBase = () => runBench(baseDir, `base ${label}`, benchArgs);
    const runHead = () => runBench(ROOT, 'head', benchArgs);
    if (baseFirst) {
      const b = await runBase();
      results.push({ base: b, head: await runHead() });
    } else {
      const h = await runHead();
      results.push({ base: await runBase(), head: h });
    }
  }
  process.stdout.write(
    `\n${pairs} pairs, base ${label} against this tree:\n${formatPaired(pairedChanges(results), label)}\n`,
  );
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(
      `bench:ab failed: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  });
}
