// `npm run bench -- --only counts --budget tools/bench/budget.json`: the counted figures per charge (counts.ts)
// against the committed budget. Only counted figures are budgeted: rates and latencies depend on the
// machine and are reported, never asserted. Pure functions; bench.ts prints and reports the verdicts.

export interface Budget {
  /** Figure (a key of the results' details.counts.figures, e.g. `sql_statements.total`) → its bound per charge. */
  figures: Record<string, { max: number; measured?: number; note?: string }>;
}

export interface Verdict {
  figure: string;
  max: number;
  /** Per charge in this run; null when the run did not produce it (counts as a failure). */
  value: number | null;
  ok: boolean;
  why: string;
}

/** The counted figures of a results JSON (bench.ts): `details.counts.figures[key].per_charge`. */
export function countedFigures(results: unknown): Record<string, number> {
  const figures =
    (results as { details?: { counts?: { figures?: Record<string, { per_charge?: unknown }> } } })
      .details?.counts?.figures ?? {};
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(figures))
    if (typeof v?.per_charge === 'number' && Number.isFinite(v.per_charge)) out[k] = v.per_charge;
  return out;
}

/**
 * One verdict per budgeted figure: fails when the figure rose above its bound, or is missing (a run that
 * counted nothing must not pass). A figure that fell is fine (lower the budget in the same commit).
 */
export function checkBudget(figures: Record<string, number>, budget: Budget): Verdict[] {
  return Object.entries(budget.figures).map(([figure, { max }]) => {
    const value = figures[figure];
    if (value === undefined)
      return { figure, max, value: null, ok: false, why: 'not measured in this run' };
    if (value > max)
      return {
        figure,
        max,
        value,
        ok: false,
        why: `rose above the budget: ${value} > ${max} per charge`,
      };
    return { figure, max, value, ok: true, why: `${value} ≤ ${max} per charge` };
  });
}

/**
 * A budget from a run's figures: each bound is the figure plus `margin` (a fraction) of it, at least `floor`,
 * rounded up to 0.1 — for figures that move a little run to run (idle work subtracted pro rata, batching).
 */
export function budgetFrom(
  figures: Record<string, number>,
  keys: readonly string[],
  margin: number,
  floor: number,
): Budget {
  const out: Budget['figures'] = {};
  for (const key of keys) {
    const measured = figures[key];
    if (measured === undefined) continue;
    out[key] = {
      measured,
      max: Math.ceil((measured + Math.max(floor, measured * margin)) * 10) / 10,
    };
  }
  return { figures: out };
}
