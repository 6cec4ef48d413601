import fc from 'fast-check';
import { addDays } from '../dates/dates';
import { BOLETO_FACTOR_PAST_WINDOW_DAYS, dateFromFactor, dueDateFactor } from './factor';

describe('dueDateFactor', () => {
  it('follows FEBRABAN: 1000 on 2000-07-03, 9999 on 2025-02-21, back to 1000 on 2025-02-22', () => {
    expect(dueDateFactor('2000-07-03')).toBe(1000);
    expect(dueDateFactor('2000-07-04')).toBe(1001);
    expect(dueDateFactor('2012-04-27')).toBe(5316);
    expect(dueDateFactor('2020-05-08')).toBe(8249);
    expect(dueDateFactor('2025-02-20')).toBe(9998);
    expect(dueDateFactor('2025-02-21')).toBe(9999);
    expect(dueDateFactor('2025-02-22')).toBe(1000);
    expect(dueDateFactor('2025-02-23')).toBe(1001);
    expect(dueDateFactor('2026-11-22')).toBe(1638);
  });

  it('reaches 9999 again on 2049-10-13 (the date quoted as the next reset) and restarts the day after', () => {
    expect(dueDateFactor('2049-10-13')).toBe(9999);
    expect(dueDateFactor('2049-10-14')).toBe(1000);
  });

  it('refuses dates before the first 4-digit factor', () => {
    expect(() => dueDateFactor('2000-07-02')).toThrow(RangeError);
  });
});

describe('dateFromFactor', () => {
  it('reads the PagBank factor 8249 as 2020-05-08 from 2020 or today, and as 2044-12-28 from 2040', () => {
    expect(dateFromFactor(8249, '2020-05-01')).toBe('2020-05-08');
    expect(dateFromFactor(8249, '2026-11-22')).toBe('2020-05-08');
    expect(dateFromFactor(8249, '2040-01-01')).toBe('2044-12-28');
  });

  it('reads factors on either side of the 2025 restart correctly around that date', () => {
    expect(dateFromFactor(9999, '2025-02-25')).toBe('2025-02-21');
    expect(dateFromFactor(1000, '2025-02-20')).toBe('2025-02-22');
    expect(dateFromFactor(1003, '2025-02-20')).toBe('2025-02-25');
  });

  it('answers null for factors outside 1000..9999', () => {
    expect(dateFromFactor(0, '2026-01-01')).toBeNull();
    expect(dateFromFactor(999, '2026-01-01')).toBeNull();
    expect(dateFromFactor(10_000, '2026-01-01')).toBeNull();
    expect(dateFromFactor(1000.5, '2026-01-01')).toBeNull();
  });

  it('inverts dueDateFactor for every due date inside the window around today', () => {
    const dayOffset = fc.integer({
      min: -BOLETO_FACTOR_PAST_WINDOW_DAYS,
      max: 9000 - BOLETO_FACTOR_PAST_WINDOW_DAYS - 1,
    });
    const todayOffset = fc.integer({ min: 3000, max: 25_000 });
    fc.assert(
      fc.property(todayOffset, dayOffset, (t, d) => {
        const today = addDays('2000-07-03', t);
        const due = addDays(today, d);
        expect(dateFromFactor(dueDateFactor(due), today)).toBe(due);
      }),
    );
  });
});
