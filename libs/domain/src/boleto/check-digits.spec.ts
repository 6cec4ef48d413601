import { boletoMod10, boletoMod11 } from './check-digits';

describe('boleto check digits', () => {
  it('give the DVs of the PagBank golden line (fields 1/2/3 → 1/8/0, general → 7)', () => {
    expect(boletoMod10('033998530')).toBe(1);
    expect(boletoMod10('2970000035')).toBe(8);
    expect(boletoMod10('6942060101')).toBe(0);
    expect(boletoMod11('0339' + '824900000001009853029700000356942060101')).toBe(7);
  });

  it('mod 10 sums the digits of two-digit products and maps a round sum to 0', () => {
    // 9×2 = 18 counts as 1+8 = 9; 9 + 0 = 9 → DV 1.
    expect(boletoMod10('09')).toBe(1);
    // 5×2 = 10 → 1, +5 → 6 → DV 4; '0' → sum 0 → DV 0.
    expect(boletoMod10('55')).toBe(4);
    expect(boletoMod10('0')).toBe(0);
  });

  it('mod 11 turns results of 0, 10 and 11 into 1', () => {
    // '0': sum 0 → r = 11 → 1.  '5': 10 → r = 1 (a plain 1).  '1': 2 → r = 9.
    expect(boletoMod11('0')).toBe(1);
    expect(boletoMod11('5')).toBe(1);
    expect(boletoMod11('1')).toBe(9);
    // '6': 12 mod 11 = 1 → r = 10 → 1.
    expect(boletoMod11('6')).toBe(1);
  });

  it('refuse non-digit input', () => {
    expect(() => boletoMod10('12a')).toThrow(RangeError);
    expect(() => boletoMod11('')).toThrow(RangeError);
  });
});
