import fc from 'fast-check';
import {
  addDays,
  daysBetween,
  fromEpochDay,
  isDateString,
  toDateString,
  toEpochDay,
} from './dates';

const DAY_MS = 86_400_000;

describe('isDateString', () => {
  it('accepts real calendar dates and rejects impossible or malformed ones', () => {
    expect(isDateString('2024-02-29')).toBe(true);
    expect(isDateString('2000-02-29')).toBe(true);
    expect(isDateString('2025-02-29')).toBe(false);
    expect(isDateString('1900-02-29')).toBe(false);
    expect(isDateString('2025-04-31')).toBe(false);
    expect(isDateString('2025-13-01')).toBe(false);
    expect(isDateString('2025-1-01')).toBe(false);
    expect(isDateString('2025-01-01T00:00:00Z')).toBe(false);
  });
});

describe('addDays and daysBetween', () => {
  it('cross month, leap-day and year boundaries on the calendar', () => {
    expect(addDays('2024-02-28', 1)).toBe('2024-02-29');
    expect(addDays('2025-02-28', 1)).toBe('2025-03-01');
    expect(addDays('2025-12-31', 1)).toBe('2026-01-01');
    expect(addDays('2025-03-01', -1)).toBe('2025-02-28');
    expect(addDays('2025-01-31', 30)).toBe('2025-03-02');
    expect(daysBetween('1997-10-07', '2025-02-21')).toBe(9999);
    expect(daysBetween('2025-01-31', '2025-01-01')).toBe(-30);
  });

  it('throws on a malformed date instead of guessing', () => {
    expect(() => addDays('2025-02-30', 1)).toThrow(RangeError);
    expect(() => daysBetween('yesterday', '2025-01-01')).toThrow(RangeError);
    expect(() => addDays('2025-01-01', 1.5)).toThrow(RangeError);
  });

  it('agree with UTC Date arithmetic for any day from 1900 to 2200 (independent oracle)', () => {
    const dayArb = fc.integer({ min: -25567, max: 84000 });
    fc.assert(
      fc.property(dayArb, fc.integer({ min: -20000, max: 20000 }), (epochDay, n) => {
        const start = new Date(epochDay * DAY_MS).toISOString().slice(0, 10);
        const expected = new Date((epochDay + n) * DAY_MS).toISOString().slice(0, 10);
        expect(toEpochDay(start)).toBe(epochDay);
        expect(fromEpochDay(epochDay)).toBe(start);
        expect(addDays(start, n)).toBe(expected);
        expect(daysBetween(start, expected)).toBe(n);
      }),
    );
  });
});

describe('toDateString', () => {
  it('takes the UTC calendar date, whatever offset the instant was written in', () => {
    expect(toDateString(new Date('2024-12-31T23:30:00-03:00'))).toBe('2025-01-01');
    expect(toDateString(new Date('2025-01-01T00:00:00.000Z'))).toBe('2025-01-01');
    expect(toDateString(new Date('2025-01-01T23:59:59.999Z'))).toBe('2025-01-01');
    expect(() => toDateString(new Date('nope'))).toThrow(RangeError);
  });
});
