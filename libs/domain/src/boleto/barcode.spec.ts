import fc from 'fast-check';
import {
  BOLETO_AMOUNT_CENTS_MAX,
  barcodeFromDigitableLine,
  buildBarcode,
  digitableLine,
  formatDigitableLine,
  isValidBarcode,
  isValidDigitableLine,
  parseDigitableLine,
  readBarcode,
} from './barcode';
import { dateFromFactor } from './factor';

// PagBank docs payload, brazil-payments.md §4.10. Its factor 8249 is under the old base (2020-05-08).
const GOLDEN_LINE = '03399853012970000035869420601010782490000000100';
const GOLDEN_FORMATTED = '03399.85301 29700.000358 69420.601010 7 82490000000100';
const GOLDEN_BARCODE = '03397824900000001009853029700000356942060101';

describe('golden PagBank boleto', () => {
  it('converts between digitable line and barcode in both directions', () => {
    expect(barcodeFromDigitableLine(GOLDEN_LINE)).toBe(GOLDEN_BARCODE);
    expect(parseDigitableLine(GOLDEN_FORMATTED)).toBe(GOLDEN_BARCODE);
    expect(digitableLine(GOLDEN_BARCODE)).toBe(GOLDEN_LINE);
    expect(formatDigitableLine(GOLDEN_LINE)).toBe(GOLDEN_FORMATTED);
  });

  it('decodes to bank 033, R$ 1.00, factor 8249, due 2020-05-08', () => {
    const parts = readBarcode(GOLDEN_BARCODE);
    expect(parts).toEqual({
      bankCode: '033',
      currencyCode: '9',
      generalDv: 7,
      dueDateFactor: 8249,
      amountCents: 100,
      campoLivre: '9853029700000356942060101',
    });
    expect(dateFromFactor(8249, '2020-05-01')).toBe('2020-05-08');
  });

  it('is rebuilt exactly from its parts when the due date has the same factor', () => {
    // 2044-12-28 carries factor 8249 in the current cycle, the same digits as 2020-05-08 under the old one.
    expect(
      buildBarcode({
        bankCode: '033',
        amountCents: 100,
        dueDate: '2044-12-28',
        campoLivre: '9853029700000356942060101',
      }),
    ).toBe(GOLDEN_BARCODE);
  });
});

describe('validation', () => {
  it('rejects a wrong DV in any field, a wrong general DV, and wrong lengths', () => {
    const flip = (s: string, i: number): string =>
      s.slice(0, i) + String((Number(s[i]) + 1) % 10) + s.slice(i + 1);
    expect(isValidDigitableLine(GOLDEN_LINE)).toBe(true);
    for (const dvPosition of [9, 20, 31, 32])
      expect(isValidDigitableLine(flip(GOLDEN_LINE, dvPosition))).toBe(false);
    expect(isValidBarcode(GOLDEN_BARCODE)).toBe(true);
    expect(isValidBarcode(flip(GOLDEN_BARCODE, 4))).toBe(false);
    expect(isValidBarcode(GOLDEN_BARCODE.slice(1))).toBe(false);
    expect(barcodeFromDigitableLine(GOLDEN_LINE + '0')).toBeNull();
    expect(parseDigitableLine('not a boleto')).toBeNull();
    expect(readBarcode(flip(GOLDEN_BARCODE, 20))).toBeNull();
  });

  it('refuses inputs that do not fit the barcode layout', () => {
    const base = {
      bankCode: '341',
      amountCents: 100,
      dueDate: '2026-12-01',
      campoLivre: '1'.repeat(25),
    };
    expect(() => buildBarcode({ ...base, bankCode: '34' })).toThrow(RangeError);
    expect(() => buildBarcode({ ...base, campoLivre: '1'.repeat(24) })).toThrow(RangeError);
    expect(() => buildBarcode({ ...base, amountCents: BOLETO_AMOUNT_CENTS_MAX + 1 })).toThrow(
      RangeError,
    );
    expect(() => buildBarcode({ ...base, amountCents: -1 })).toThrow(RangeError);
    expect(() => digitableLine('0'.repeat(44))).toThrow(RangeError);
  });
});

describe('known limit of the general DV', () => {
  it('lets this one-digit change of field 5 through, because both amounts give DV 1 (found by fast-check)', () => {
    const line = digitableLine(
      buildBarcode({
        bankCode: '140',
        amountCents: 3_895_947_198,
        dueDate: '2025-02-22',
        campoLivre: '4094082848917711328207867',
      }),
    );
    const changed = line.slice(0, 43) + String((Number(line[43]) + 8) % 10) + line.slice(44);
    expect(line[32]).toBe('1');
    expect(isValidDigitableLine(changed)).toBe(true);
  });
});

describe('boleto properties', () => {
  const input = fc.record({
    bankCode: fc.stringMatching(/^\d{3}$/),
    amountCents: fc.integer({ min: 0, max: BOLETO_AMOUNT_CENTS_MAX }),
    dueDate: fc
      .integer({ min: 0, max: 8999 })
      .map((d) => new Date(Date.UTC(2025, 1, 22 + d)).toISOString().slice(0, 10)),
    campoLivre: fc.stringMatching(/^\d{25}$/),
  });

  it('a built barcode is valid, round-trips through its digitable line, and keeps its amount and due date', () => {
    fc.assert(
      fc.property(input, (i) => {
        const barcode = buildBarcode(i);
        expect(barcode).toMatch(/^\d{44}$/);
        expect(isValidBarcode(barcode)).toBe(true);
        const line = digitableLine(barcode);
        expect(line).toMatch(/^\d{47}$/);
        expect(barcodeFromDigitableLine(line)).toBe(barcode);
        expect(parseDigitableLine(formatDigitableLine(line))).toBe(barcode);
        const parts = readBarcode(barcode);
        expect(parts?.amountCents).toBe(i.amountCents);
        expect(parts?.campoLivre).toBe(i.campoLivre);
        expect(dateFromFactor(parts?.dueDateFactor ?? 0, i.dueDate)).toBe(i.dueDate);
      }),
    );
  });

  it('any single changed digit is caught, except in field 5 when the general DV is 1 (the mod-11 fold)', () => {
    // Fields 1–3 have their own mod-10 DV, which sees every single-digit change. Field 5 (factor and
    // amount) has only the general DV, and its rule maps 10 and 11 to 1 as well, so a few changes escape.
    fc.assert(
      fc.property(
        input,
        fc.nat({ max: 46 }),
        fc.integer({ min: 1, max: 9 }),
        (i, position, delta) => {
          const line = digitableLine(buildBarcode(i));
          const changed =
            line.slice(0, position) +
            String((Number(line[position]) + delta) % 10) +
            line.slice(position + 1);
          if (isValidDigitableLine(changed)) {
            expect(position).toBeGreaterThanOrEqual(33);
            expect(line[32]).toBe('1');
          }
        },
      ),
      { numRuns: 2000 },
    );
  });
});
