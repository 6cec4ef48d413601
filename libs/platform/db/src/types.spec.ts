import { parseBigint, parseNumeric } from './types';

// Both drivers on one query: types.int.spec.ts. Here, what the parsers do at the edges.
describe('type parsers', () => {
  it('reads bigint text as a number up to the largest safe integer, and refuses one beyond', () => {
    expect(parseBigint('9007199254740991')).toBe(9007199254740991);
    expect(parseBigint('-9007199254740991')).toBe(-9007199254740991);
    expect(() => parseBigint('9007199254740992')).toThrow('beyond the safe integers');
  });

  it('reads numeric as a number, holding an integer to the safe integers', () => {
    expect(parseNumeric('3')).toBe(3);
    expect(parseNumeric('12.50')).toBe(12.5);
    expect(() => parseNumeric('90071992547409930')).toThrow('beyond the safe integers');
    expect(() => parseNumeric('NaN')).toThrow('not a finite number');
  });
});
