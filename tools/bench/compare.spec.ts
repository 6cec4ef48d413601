import { compareResults, formatComparison, numbersOf } from './compare';

describe('bench --compare', () => {
  const oldRun = {
    started_at: '2026-11-22T05:15:00.362Z',
    rows: [
      { section: 'charges', metric: 'card charges/s end to end', value: 53.9, unit: '/s' },
      { section: 'charges', metric: 'end to end / PG limit', value: '3.9%', unit: '' },
      {
        section: 'charges',
        metric: 'closed-loop latency p50/p99 (c=64)',
        value: '1,159 / 1472',
        unit: 'ms',
      },
      { section: 'counts', metric: 'sql_statements.total per charge', value: 40, unit: '' },
      { section: 'lag', metric: 'event lag p99', value: 371, unit: 'ms' },
    ],
  };
  const newRun = {
    rows: [
      { section: 'counts', metric: 'sql_statements.total per charge', value: 30, unit: '' },
      { section: 'charges', metric: 'card charges/s end to end', value: 80.85, unit: '/s' },
      { section: 'charges', metric: 'end to end / PG limit', value: '5.5%', unit: '' },
      {
        section: 'charges',
        metric: 'closed-loop latency p50/p99 (c=64)',
        value: '900 / 1472',
        unit: 'ms',
      },
      { section: 'counts', metric: 'http_calls.charges->vault per charge', value: 0, unit: '' },
      { section: 'simulate', metric: 'anticipation-simulate.ts', value: 'failed', unit: '' },
    ],
  };

  it('gives every figure its old and new value, the delta and the change in percent', () => {
    const changes = compareResults(oldRun, newRun);
    const byName = Object.fromEntries(changes.map((c) => [c.figure, c]));
    expect(byName['charges / card charges/s end to end']).toEqual({
      figure: 'charges / card charges/s end to end',
      unit: '/s',
      old: 53.9,
      new: 80.85,
      delta: 26.95,
      percent: 50,
    });
    expect(byName['counts / sql_statements.total per charge']).toMatchObject({
      old: 40,
      new: 30,
      delta: -10,
      percent: -25,
    });
    expect(byName['charges / end to end / PG limit']).toMatchObject({
      unit: '%',
      old: 3.9,
      new: 5.5,
      delta: 1.6,
      percent: 41,
    });
  });

  it('compares each number of a value that holds several, thousands separators read as such', () => {
    const byName = Object.fromEntries(compareResults(oldRun, newRun).map((c) => [c.figure, c]));
    expect(byName['charges / closed-loop latency p50/p99 (c=64) [0]']).toMatchObject({
      old: 1159,
      new: 900,
      delta: -259,
      percent: -22.3,
    });
    expect(byName['charges / closed-loop latency p50/p99 (c=64) [1]']).toMatchObject({
      old: 1472,
      new: 1472,
      delta: 0,
      percent: 0,
    });
  });

  it('lists a figure only one run has, with nothing on the other side, and no percent from a zero', () => {
    const changes = compareResults(oldRun, newRun);
    const byName = Object.fromEntries(changes.map((c) => [c.figure, c]));
    expect(byName['counts / http_calls.charges->vault per charge']).toMatchObject({
      old: null,
      new: 0,
      delta: null,
      percent: null,
    });
    expect(byName['lag / event lag p99']).toMatchObject({
      old: 371,
      new: null,
      delta: null,
      percent: null,
    });
    expect(changes.map((c) => c.figure)).not.toContain('simulate / anticipation-simulate.ts');
    // The new run's order first, then what only the old run had.
    expect(changes[0]?.figure).toBe('counts / sql_statements.total per charge');
    expect(changes[changes.length - 1]?.figure).toBe('lag / event lag p99');
    expect(
      compareResults(
        { rows: [{ section: 's', metric: 'm', value: 0 }] },
        { rows: [{ section: 's', metric: 'm', value: 2 }] },
      )[0],
    ).toMatchObject({ delta: 2, percent: null });
  });

  it('reads the numbers of a value', () => {
    expect(numbersOf(53.9)).toEqual([53.9]);
    expect(numbersOf(Number.NaN)).toEqual([]);
    expect(numbersOf('70.4%')).toEqual([70.4]);
    expect(numbersOf('1,159 / 1,472')).toEqual([1159, 1472]);
    expect(numbersOf('-3.5 / 2')).toEqual([-3.5, 2]);
    expect(numbersOf('not run')).toEqual([]);
  });

  it('prints one line per figure with a signed delta and percent', () => {
    const text = formatComparison(compareResults(oldRun, newRun), 'before', 'after');
    const lines = text.split('\n');
    expect(lines[0]).toMatch(
      /\| figure +\| unit +\| old \(before\) +\| new \(after\) +\| delta +\| % +\|/,
    );
    expect(lines.find((l) => l.includes('card charges/s'))).toMatch(
      /\| 53\.9 +\| 80\.85 +\| \+26\.95 +\| \+50% +\|/,
    );
    expect(lines.find((l) => l.includes('sql_statements'))).toMatch(
      /\| 40 +\| 30 +\| -10 +\| -25% +\|/,
    );
    expect(lines.find((l) => l.includes('event lag p99'))).toMatch(/\| 371 +\| — +\| — +\| — +\|/);
    expect(lines).toHaveLength(2 + compareResults(oldRun, newRun).length);
  });
});
