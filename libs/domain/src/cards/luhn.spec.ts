import fc from 'fast-check';
import { luhnCheckDigit, luhnValid } from './luhn';

describe('luhnValid', () => {
  it('accepts the contract test cards and rejects their neighbours', () => {
    for (const pan of [
      '4111111111111111',
      '5555555555554444',
      '378282246310005',
      '4000000000000002',
      '4000000000009995',
      '4000000000000069',
      '4000000000000119',
    ]) {
      expect(luhnValid(pan)).toBe(true);
    }
    expect(luhnValid('4111111111111112')).toBe(false);
    expect(luhnValid('5555555555554445')).toBe(false);
  });

  it('rejects non-digit input rather than skipping characters', () => {
    expect(luhnValid('4111 1111 1111 1111')).toBe(false);
    expect(luhnValid('')).toBe(false);
    expect(luhnValid('0')).toBe(false);
  });
});

describe('Luhn properties', () => {
  const body = fc.stringMatching(/^\d{1,18}$/);

  it('appending the computed check digit always makes a valid number, and any other digit does not', () => {
    fc.assert(
      fc.property(body, fc.integer({ min: 1, max: 9 }), (partial, delta) => {
        const check = luhnCheckDigit(partial);
        expect(luhnValid(partial + check)).toBe(true);
        expect(luhnValid(partial + String((Number(check) + delta) % 10))).toBe(false);
      }),
    );
  });

  it('changing any single digit of a valid number makes it invalid', () => {
    fc.assert(
      fc.property(body, fc.nat(), fc.integer({ min: 1, max: 9 }), (partial, position, delta) => {
        const valid = partial + luhnCheckDigit(partial);
        const i = position % valid.length;
        const changed =
          valid.slice(0, i) + String((Number(valid[i]) + delta) % 10) + valid.slice(i + 1);
        expect(luhnValid(changed)).toBe(false);
      }),
    );
  });
});
