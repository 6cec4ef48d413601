import fc from 'fast-check';
import { fingerprint, last4, normalizePan } from './pan';

const KEY = Buffer.alloc(32, 7);
const FINGERPRINT_4111 = '33ecfa1b0ba87f45471dd64ba36a9bde71e092d5eb4aa6aceb5c3710f027c28e';

describe('normalizePan', () => {
  it('drops spaces and hyphens and keeps 12 to 19 digits', () => {
    expect(normalizePan('4111 1111 1111 1111')).toBe('4111111111111111');
    expect(normalizePan('4111-1111-1111-1111')).toBe('4111111111111111');
    expect(normalizePan('3782 822463 10005')).toBe('378282246310005');
    expect(normalizePan('123456789012')).toBe('123456789012');
    expect(normalizePan('1234567890123456789')).toBe('1234567890123456789');
  });

  it('rejects other characters and lengths outside 12..19 after normalisation', () => {
    expect(normalizePan('12345678901')).toBeNull();
    expect(normalizePan('12345678901234567890')).toBeNull();
    expect(normalizePan('4111.1111.1111.1111')).toBeNull();
    expect(normalizePan('4111\t1111 1111 1111')).toBeNull();
    expect(normalizePan('4111 1111 1111 111a')).toBeNull();
    expect(normalizePan(' - - - ')).toBeNull();
  });

  it('gives back the same digits however spaces and hyphens are sprinkled in', () => {
    const separators = fc.array(fc.constantFrom(' ', '-'), { maxLength: 3 });
    fc.assert(
      fc.property(
        fc.stringMatching(/^\d{12,19}$/),
        fc.array(separators, { minLength: 20, maxLength: 20 }),
        (digits, seps) => {
          const formatted = [...digits].map((d, i) => d + (seps[i] ?? []).join('')).join('');
          expect(normalizePan(formatted)).toBe(digits);
        },
      ),
    );
  });
});

describe('last4', () => {
  it('returns the last four digits of raw or normalised input', () => {
    expect(last4('4111 1111 1111 1234')).toBe('1234');
    expect(last4('378282246310005')).toBe('0005');
    expect(() => last4('1234')).toThrow(RangeError);
  });
});

describe('fingerprint', () => {
  it('is a keyed HMAC-SHA256 of the digits: stable across formatting, different per key and per card', () => {
    const a = fingerprint('4111111111111111', KEY);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(fingerprint('4111 1111-1111 1111', KEY)).toBe(a);
    expect(fingerprint('4111111111111111', Buffer.alloc(32, 8))).not.toBe(a);
    expect(fingerprint('5555555555554444', KEY)).not.toBe(a);
    // Known answer: HMAC-SHA256 with key 0x07×32 over the ASCII digits (computed with openssl).
    expect(a).toBe(FINGERPRINT_4111);
  });

  it('refuses a short key or a non-card input', () => {
    expect(() => fingerprint('4111111111111111', Buffer.alloc(16))).toThrow(RangeError);
    expect(() => fingerprint('not a card', KEY)).toThrow(RangeError);
  });
});
