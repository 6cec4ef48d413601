import fc from 'fast-check';
import { merchantOrderIdOf, referenceOf, requestIdOf } from './cielo-ids';

// Every character a reference may hold (REFERENCE_PATTERN of the port).
const referenceChar = fc.constantFrom(
  ...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.:'.split(''),
);
const reference = fc
  .array(referenceChar, { minLength: 1, maxLength: 40 })
  .map((chars) => chars.join(''));

describe('MerchantOrderId of a reference', () => {
  it('is letters and digits only, at most 36, and reads back as the reference it encodes', () => {
    // Proves the encoding is reversible for every reference it accepts, so a sale read back names its reference.
    fc.assert(
      fc.property(reference, (ref) => {
        const orderId = merchantOrderIdOf(ref);
        if (orderId === null) return true;
        return /^[A-Za-z0-9]{1,36}$/.test(orderId) && referenceOf(orderId) === ref;
      }),
    );
  });

  it('accepts every id of ours and keeps references that differ apart', () => {
    // Proves charge ids fit, and separators are not dropped (ch_A and chA are two orders).
    expect(merchantOrderIdOf('ch_3kTMd9Qz0bXhV1aLrP7uYw2E')).toBe('chZ03kTMd9Qz0bXhV1aLrP7uYw2E');
    expect(merchantOrderIdOf('ch_A')).not.toBe(merchantOrderIdOf('chA'));
    expect(merchantOrderIdOf('a'.repeat(37))).toBeNull();
    expect(merchantOrderIdOf('a b')).toBeNull();
    expect(referenceOf('abcZ9')).toBeNull();
  });
});

describe('RequestId of an operation', () => {
  it('is a GUID, the same for a retry, and different for another operation or reference', () => {
    // Proves a retry carries the same RequestId and nothing else does.
    const id = requestIdOf('authorize', 'ch_1');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(requestIdOf('authorize', 'ch_1')).toBe(id);
    expect(requestIdOf('authorize', 'ch_2')).not.toBe(id);
    expect(requestIdOf('refund', 'ch_1')).not.toBe(id);
  });
});
