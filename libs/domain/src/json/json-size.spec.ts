import { nestsDeeperThan } from './json-size';

const nested = (depth: number, kind: 'object' | 'array'): unknown =>
  JSON.parse(
    (kind === 'object' ? '{"a":' : '[').repeat(depth) +
      '1' +
      (kind === 'object' ? '}' : ']').repeat(depth),
  );

describe('nestsDeeperThan', () => {
  it('counts objects and arrays as levels, the value itself the first; scalars are no level', () => {
    expect(nestsDeeperThan(1, 0)).toBe(false);
    expect(nestsDeeperThan({}, 1)).toBe(false);
    expect(nestsDeeperThan({}, 0)).toBe(true);
    expect(nestsDeeperThan({ a: [1, { b: 'x' }] }, 3)).toBe(false);
    expect(nestsDeeperThan({ a: [1, { b: 'x' }] }, 2)).toBe(true);
    expect(nestsDeeperThan(nested(32, 'object'), 32)).toBe(false);
    expect(nestsDeeperThan(nested(33, 'array'), 32)).toBe(true);
  });

  it('finds the one deep path among wide siblings, and walks a depth that JSON.stringify cannot', () => {
    const wide = Object.fromEntries(Array.from({ length: 1_000 }, (_, i) => [`k${i}`, { v: i }]));
    expect(nestsDeeperThan({ ...wide, deep: nested(40, 'object') }, 32)).toBe(true);
    expect(nestsDeeperThan(wide, 32)).toBe(false);
    const abyss = nested(200_000, 'array');
    expect(() => JSON.stringify(abyss)).toThrow(RangeError);
    expect(nestsDeeperThan(abyss, 32)).toBe(true);
  });
});
