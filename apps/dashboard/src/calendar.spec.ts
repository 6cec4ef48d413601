import fc from 'fast-check';
import { addMonths, byDueDate, initialMonth, monthWeeks, type Item } from './calendar';

const item = (due_date: string, gross: number, fee: number): Item =>
  ({
    id: `recv_${due_date}${gross}`,
    due_date,
    gross_amount_cents: gross,
    fee_amount_cents: fee,
    net_amount_cents: gross - fee,
  }) as Item;

describe('monthWeeks', () => {
  it('lays November 2026 out Sunday first: the 1st on a Sunday, five weeks, the 30th on a Monday', () => {
    // Proves the grid a Brazilian seller expects for a month that starts on Sunday.
    const weeks = monthWeeks('2026-11');
    expect(weeks).toHaveLength(5);
    expect(weeks[0]![0]).toBe('2026-11-01');
    expect(weeks[4]!.slice(0, 2)).toEqual(['2026-11-29', '2026-11-30']);
    expect(weeks[4]!.slice(2)).toEqual([null, null, null, null, null]);
  });

  it('holds every day of any month once, in order, each under its weekday', () => {
    // Proves no day is lost or doubled and each sits in the column of its weekday, for months from 2000 to 2099.
    fc.assert(
      fc.property(
        fc.integer({ min: 2000, max: 2099 }),
        fc.integer({ min: 1, max: 12 }),
        (year, m) => {
          const month = `${year}-${String(m).padStart(2, '0')}`;
          const weeks = monthWeeks(month);
          const days = weeks.flat().filter((d): d is string => d !== null);
          const length = new Date(Date.UTC(year, m, 0)).getUTCDate();
          const columnsRight = weeks.every(
            (week) =>
              week.length === 7 &&
              week.every(
                (d, column) => d === null || new Date(`${d}T00:00:00Z`).getUTCDay() === column,
              ),
          );
          return (
            days.length === length &&
            days.every((d, i) => d === `${month}-${String(i + 1).padStart(2, '0')}`) &&
            columnsRight
          );
        },
      ),
    );
  });
});

describe('byDueDate and the month to open on', () => {
  it("sums each day's gross, fee and net, and opens on the first month with something due from today", () => {
    // Proves the numbers each day cell shows, and that a past month is not where the calendar starts.
    const days = byDueDate([
      item('2026-12-01', 1_000, 30),
      item('2026-10-05', 500, 10),
      item('2026-12-01', 2_000, 60),
    ]);
    expect(days.map((d) => [d.day, d.items.length, d.gross, d.fee, d.net])).toEqual([
      ['2026-10-05', 1, 500, 10, 490],
      ['2026-12-01', 2, 3_000, 90, 2_910],
    ]);
    expect(initialMonth(days, '2026-11-25')).toBe('2026-12');
    expect(initialMonth(days, '2027-01-10')).toBe('2026-12');
    expect(initialMonth([], '2027-01-10')).toBe('2027-01');
    expect([addMonths('2026-12', 1), addMonths('2026-01', -1)]).toEqual(['2027-01', '2025-12']);
  });
});
