// `npm run bench -- --compare bench-results/<baseline>.json`: every figure of this run beside the same figure
// of a saved run (old, new, delta, %). Pure functions over two results JSONs; bench.ts prints the table.

/** The part of a results JSON (bench.ts) compared: its rows. */
export interface ResultsLike {
  started_at?: string;
  rows?: Array<{ section: string; metric: string; value: number | string; unit?: string }>;
}

export interface Change {
  /** `<section> / <metric>`, with `[i]` when the value holds several numbers (`p50 / p99`). */
  figure: string;
  unit: string;
  old: number | null;
  new: number | null;
  delta: number | null;
  /** Change relative to the old value, in %; null when there is no old value or it is 0. */
  percent: number | null;
}

/** The numbers a row's value holds: 53.9 → [53.9]; "70.4%" → [70.4]; "1159 / 1472" → [1159, 1472]; "n/a" → []. */
export function numbersOf(value: number | string): number[] {
  if (typeof value === 'number') return Number.isFinite(value) ? [value] : [];
  return [
    ...value.replace(/(\d),(?=\d{3}\b)/g, '$1').matchAll(/-?\d+(?:\.\d+)?(?:e[+-]?\d+)?/gi),
  ].map((m) => Number(m[0]));
}

function figuresOf(results: ResultsLike): Map<string, { unit: string; value: number }> {
  const out = new Map<string, { unit: string; value: number }>();
  for (const r of results.rows ?? []) {
    const unit = `${typeof r.value === 'string' && r.value.trim().endsWith('%') ? '%' : ''}${r.unit ?? ''}`;
    const numbers = numbersOf(r.value);
    const name = `${r.section} / ${r.metric}`;
    if (numbers.length === 1) out.set(name, { unit, value: numbers[0] as number });
    else numbers.forEach((value, i) => out.set(`${name} [${i}]`, { unit, value }));
  }
  return out;
}

export const roundTo = (x: number, digits: number): number =>
  Math.round(x * 10 ** digits) / 10 ** digits;

/**
 * Every figure of either run, in the new run's order then the old run's leftovers: a figure only one run has
 * is listed with null on the other side (a section not run, a metric renamed).
 */
export function compareResults(oldRun: ResultsLike, newRun: ResultsLike): Change[] {
  const before = figuresOf(oldRun);
  const after = figuresOf(newRun);
  const names = [...after.keys(), ...[...before.keys()].filter((k) => !after.has(k))];
  return names.map((figure) => {
    const o = before.get(figure);
    const n = after.get(figure);
    const delta = o !== undefined && n !== undefined ? roundTo(n.value - o.value, 4) : null;
    const percent =
      delta !== null && o !== undefined && o.value !== 0
        ? roundTo((delta / Math.abs(o.value)) * 100, 1)
        : null;
    return {
      figure,
      unit: (n ?? o)?.unit ?? '',
      old: o?.value ?? null,
      new: n?.value ?? null,
      delta,
      percent,
    };
  });
}

/** The comparison as a plain-text table. */
export function formatComparison(changes: Change[], oldLabel: string, newLabel: string): string {
  const show = (x: number | null) => (x === null ? '—' : String(x));
  const head = ['figure', 'unit', `old (${oldLabel})`, `new (${newLabel})`, 'delta', '%'];
  const body = changes.map((c) => [
    c.figure,
    c.unit,
    show(c.old),
    show(c.new),
    c.delta === null ? '—' : `${c.delta > 0 ? '+' : ''}${c.delta}`,
    c.percent === null ? '—' : `${c.percent > 0 ? '+' : ''}${c.percent}%`,
  ]);
  return textTable(head, body);
}

/** A header and rows as a plain-text (Markdown) table, each column as wide as its widest cell. */
export function textTable(head: readonly string[], body: readonly string[][]): string {
  const widths = head.map((h, i) =>
    Math.max(h.length, ...body.map((b) => (b[i] as string).length)),
  );
  const line = (cells: readonly string[]) =>
    `| ${cells.map((c, i) => c.padEnd(widths[i] as number)).join(' | ')} |`;
  return [
    line(head),
    `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
    ...body.map(line),
  ].join('\n');
}
