import fc from 'fast-check';
import {
  addDays,
  brl,
  calendarDate,
  centsFromReais,
  dailyTotals,
  dateTime,
  saoPauloDay,
  startOfSaoPauloDay,
  toCsv,
} from './format';

describe('centsFromReais', () => {
  it('reads reais as a Brazilian types them, and refuses what is not a positive amount', () => {
    // Proves the amount fields: thousands dots and a decimal comma, whole reais, nothing typed, and nonsense.
    expect(centsFromReais('1.234,56')).toBe(123_456);
    expect(centsFromReais(' 50,00 ')).toBe(5_000);
    expect(centsFromReais('50')).toBe(5_000);
    expect(centsFromReais('0,05')).toBe(5);
    expect(centsFromReais('')).toBeNull();
    expect(centsFromReais('0')).toBeNaN();
    expect(centsFromReais('-3')).toBeNaN();
    expect(centsFromReais('abc')).toBeNaN();
  });

  it('reads back what brl writes', () => {
    // Proves a shown amount typed back is the same cents.
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10 ** 12 }),
        (cents) => centsFromReais(brl(cents).replace('R$ ', '')) === cents,
      ),
    );
  });
});

describe('brl', () => {
  it('writes cents as pt-BR reais: R$ 1.234,56', () => {
    // Proves the format the issue asks for, on the cases a seller sees: thousands, cents, zero, negative.
    expect(brl(123_456)).toBe('R$ 1.234,56');
    expect(brl(5)).toBe('R$ 0,05');
    expect(brl(0)).toBe('R$ 0,00');
    expect(brl(100_000_000)).toBe('R$ 1.000.000,00');
    expect(brl(-990)).toBe('-R$ 9,90');
  });

  it('reads back as the same cents for any amount', () => {
    // Proves no cent is lost or rounded by formatting: the digits of the text are the cents.
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10 ** 12 }),
        (cents) => Number(brl(cents).replace(/\D/g, '')) === cents,
      ),
    );
  });
});

describe('dates in America/Sao_Paulo', () => {
  it('shows an instant in São Paulo time, in either language', () => {
    // Proves 02:30 UTC is still the previous evening in São Paulo (UTC−3).
    expect(dateTime('2026-03-02T02:30:00Z', 'pt-BR')).toBe('01/03/2026, 23:30');
    expect(dateTime('2026-03-02T02:30:00Z', 'en')).toBe('3/1/26, 11:30 PM');
    expect(saoPauloDay('2026-03-02T02:30:00Z')).toBe('2026-03-01');
    expect(startOfSaoPauloDay('2026-03-02')).toBe('2026-03-02T03:00:00.000Z');
  });

  it('shows a due date as the same calendar day', () => {
    // Proves a YYYY-MM-DD is not shifted by the time zone (a due date is a day, not an instant).
    expect(calendarDate('2026-03-01', 'pt-BR')).toBe('01/03/2026');
    expect(addDays('2026-02-28', 1)).toBe('2026-03-01');
    expect(addDays('2026-03-01', -30)).toBe('2026-01-30');
  });

  it('totals amounts by day over a window, with empty days as zero', () => {
    // Proves the 30-day chart's series: every day present once, oldest first, sums per day, outsiders ignored.
    const series = dailyTotals(
      [
        { day: '2026-03-01', cents: 100 },
        { day: '2026-03-01', cents: 50 },
        { day: '2026-02-27', cents: 7 },
        { day: '2026-01-01', cents: 999 },
      ],
      '2026-03-01',
      3,
      (i) => i.day,
      (i) => i.cents,
    );
    expect(series).toEqual([
      { day: '2026-02-27', cents: 7 },
      { day: '2026-02-28', cents: 0 },
      { day: '2026-03-01', cents: 150 },
    ]);
  });
});

describe('toCsv', () => {
  it('quotes what RFC 4180 requires', () => {
    // Proves a description with a comma or a quote stays one field when opened in a spreadsheet.
    expect(
      toCsv(
        ['a', 'b'],
        [
          ['x,y', 'say "hi"'],
          [1, null],
        ],
      ),
    ).toBe('a,b\r\n"x,y","say ""hi"""\r\n1,\r\n');
  });
});
