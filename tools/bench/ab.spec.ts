import { formatPaired, pairedChanges, type Pair } from './ab';
import type { ResultsLike } from './compare';

const run = (charges: number, cpu: string, latency: string): ResultsLike => ({
  rows: [
    { section: 'charges', metric: 'card charges/s', value: charges, unit: '/s' },
    { section: 'charges', metric: 'CPU per charge', value: cpu },
    { section: 'charges', metric: 'latency p50/p99', value: latency, unit: 'ms' },
  ],
});

describe('bench:ab paired changes', () => {
  const pairs: Pair[] = [
    { base: run(180, '10.8 ms', '100 / 200'), head: run(190, '10.2 ms', '100 / 190') },
    { base: run(140, '14.0 ms', '120 / 260'), head: run(150, '13.0 ms', '110 / 250') },
    { base: run(200, '9.0 ms', '90 / 170'), head: run(195, '9.2 ms', '95 / 180') },
  ];

  it('gives each figure its per-pair values, differences, their median and how many pairs moved each way', () => {
    const changes = pairedChanges(pairs);
    expect(changes.map((c) => c.figure)).toEqual([
      'charges / card charges/s',
      'charges / CPU per charge',
      'charges / latency p50/p99 [0]',
      'charges / latency p50/p99 [1]',
    ]);
    expect(changes[0]).toEqual({
      figure: 'charges / card charges/s',
      unit: '/s',
      base: [180, 140, 200],
      head: [190, 150, 195],
      deltas: [10, 10, -5],
      medianDelta: 10,
      medianPercent: 5.6, // 10/180, 10/140, −5/200 → 5.6 %, 7.1 %, −2.5 %
      higher: 2,
      lower: 1,
    });
    expect(changes[1]?.deltas).toEqual([-0.6, -1, 0.2]);
    expect(changes[1]?.medianDelta).toBe(-0.6);
    expect(changes[2]).toMatchObject({ deltas: [0, -10, 5], higher: 1, lower: 1 });
  });

  it('leaves out a figure that one side of one pair lacks, and a median of an even count is the mean of the middle two', () => {
    const lacking: Pair[] = [
      ...pairs.slice(0, 2),
      { base: { rows: [] }, head: run(1, '1 ms', '1 / 1') },
    ];
    expect(pairedChanges(lacking)).toEqual([]);
    const two = pairedChanges(pairs.slice(0, 2));
    expect(two[0]?.medianDelta).toBe(10);
    expect(two[1]?.medianDelta).toBe(-0.8);
    expect(pairedChanges([])).toEqual([]);
  });

  it('prints one line per figure with both sides and the counts of each sign', () => {
    const table = formatPaired(pairedChanges(pairs), 'abc1234');
    expect(table.split('\n')[0]).toMatch(
      /figure .*base \(abc1234\).*head \(this tree\).*median delta/,
    );
    expect(table).toMatch(
      /charges \/ card charges\/s +\| \/s +\| 180, 140, 200 +\| 190, 150, 195 +\| \+10 +\| \+5\.6% +\| 2 \/ 1 of 3/,
    );
    expect(table.split('\n')).toHaveLength(2 + 4);
  });
});
