import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { budgetFrom, checkBudget, countedFigures, type Budget } from './budget';

describe('bench --budget', () => {
  const budget: Budget = {
    figures: {
      'sql_transactions.total': { max: 6.5, measured: 6 },
      'sql_statements.total': { max: 44 },
      'http_calls.total': { max: 4 },
    },
  };

  it('passes figures at or under their bound, one verdict per budgeted figure', () => {
    const verdicts = checkBudget(
      {
        'sql_transactions.total': 6.5,
        'sql_statements.total': 40,
        'http_calls.total': 3,
        'kafka_messages.total': 99,
      },
      budget,
    );
    expect(verdicts.map((v) => [v.figure, v.ok])).toEqual([
      ['sql_transactions.total', true],
      ['sql_statements.total', true],
      ['http_calls.total', true],
    ]);
  });

  it('fails a figure that rose above its bound, and says by how much', () => {
    const verdicts = checkBudget(
      { 'sql_transactions.total': 6.51, 'sql_statements.total': 40, 'http_calls.total': 5 },
      budget,
    );
    expect(verdicts.filter((v) => !v.ok).map((v) => [v.figure, v.why])).toEqual([
      ['sql_transactions.total', 'rose above the budget: 6.51 > 6.5 per charge'],
      ['http_calls.total', 'rose above the budget: 5 > 4 per charge'],
    ]);
  });

  it('fails a budgeted figure the run did not measure: a run that counted nothing does not pass', () => {
    const verdicts = checkBudget({}, budget);
    expect(verdicts).toHaveLength(3);
    expect(
      verdicts.every((v) => !v.ok && v.value === null && v.why === 'not measured in this run'),
    ).toBe(true);
  });

  it('reads the per-charge figures of a results JSON, nothing else', () => {
    const results = {
      rows: [],
      details: {
        counts: {
          figures: {
            'sql_statements.total': { per_charge: 41.2, gross_per_charge: 45, idle_per_s: 3 },
            broken: { per_charge: 'x' },
          },
        },
      },
    };
    expect(countedFigures(results)).toEqual({ 'sql_statements.total': 41.2 });
    expect(countedFigures({ rows: [] })).toEqual({});
  });

  it('makes a budget from measured figures: the margin, at least the floor, rounded up to 0.1', () => {
    expect(budgetFrom({ a: 10, b: 0.4, c: 0, d: 7 }, ['a', 'b', 'c', 'missing'], 0.1, 0.5)).toEqual(
      {
        figures: {
          a: { measured: 10, max: 11 },
          b: { measured: 0.4, max: 0.9 },
          c: { measured: 0, max: 0.5 },
        },
      },
    );
  });

  it('the committed budget is well formed: every bound a number at least what was measured', () => {
    const committed = JSON.parse(readFileSync(join(__dirname, 'budget.json'), 'utf8')) as Budget;
    const entries = Object.entries(committed.figures);
    expect(entries.length).toBeGreaterThan(0);
    for (const [, f] of entries) {
      expect(typeof f.max).toBe('number');
      expect(f.max).toBeGreaterThanOrEqual(f.measured ?? 0);
    }
  });
});
