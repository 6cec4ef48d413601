import fc from 'fast-check';
import { normalizeCep, normalizePhone } from './contact';

describe('normalizeCep', () => {
  it('returns 8 digits for the usual CEP spellings and null otherwise', () => {
    expect(normalizeCep('01310-100')).toBe('01310100');
    expect(normalizeCep('01310100')).toBe('01310100');
    expect(normalizeCep(' 01.310-100 ')).toBe('01310100');
    expect(normalizeCep('1310-100')).toBeNull();
    expect(normalizeCep('01310-1000')).toBeNull();
    expect(normalizeCep('0131O-100')).toBeNull();
    expect(normalizeCep('')).toBeNull();
  });
});

describe('normalizePhone', () => {
  it('strips +, spaces, parentheses and hyphens and keeps 10 to 15 digits', () => {
    expect(normalizePhone('+55 (11) 98765-4321')).toBe('5511987654321');
    expect(normalizePhone('(11) 3456-7890')).toBe('1134567890');
    expect(normalizePhone('11987654321')).toBe('11987654321');
    expect(normalizePhone('123456789012345')).toBe('123456789012345');
  });

  it('rejects too few or too many digits and anything that is not phone punctuation', () => {
    expect(normalizePhone('98765-432')).toBeNull();
    expect(normalizePhone('1234567890123456')).toBeNull();
    expect(normalizePhone('+55 11 9876x4321')).toBeNull();
    expect(normalizePhone('')).toBeNull();
  });

  it('gives the same digits however the number is punctuated', () => {
    const separators = fc.array(fc.constantFrom(' ', '-', '(', ')', '+'), { maxLength: 2 });
    fc.assert(
      fc.property(
        fc.stringMatching(/^\d{10,15}$/),
        fc.array(separators, { minLength: 16, maxLength: 16 }),
        (digits, seps) => {
          const formatted = [...digits].map((d, i) => (seps[i] ?? []).join('') + d).join('');
          expect(normalizePhone(formatted)).toBe(digits);
        },
      ),
    );
  });
});
