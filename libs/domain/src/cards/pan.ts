import { createHmac } from 'node:crypto';

// Card number handling for the vault. The API takes 12 to 32 raw characters so that formatted input
// ('4111 1111 1111 1111', '4111-1111-…') fits; what remains after removing the separators must be a real
// PAN length, 12 to 19 digits (ISO/IEC 7812).

const FINGERPRINT_KEY_BYTES_MIN = 32;

/** The PAN's digits after dropping spaces and hyphens, or null when other characters or a bad length remain. */
export function normalizePan(raw: string): string | null {
  const digits = raw.replace(/[ -]/g, '');
  return /^\d{12,19}$/.test(digits) ? digits : null;
}

/** The last four digits of a PAN (raw or normalised), the only part of it we may show. */
export function last4(pan: string): string {
  const digits = normalizePan(pan);
  if (digits === null) throw new RangeError('last4: not a card number');
  return digits.slice(-4);
}

/**
 * HMAC-SHA256 (hex) of the normalised PAN under a secret key: recognises the same card across tokens without
 * storing the number, and, unlike a plain hash, cannot be reversed by hashing every possible PAN (the space
 * of valid 16-digit numbers is small enough to enumerate). The key must have at least 32 bytes.
 */
export function fingerprint(pan: string, key: Buffer): string {
  if (key.length < FINGERPRINT_KEY_BYTES_MIN)
    throw new RangeError(`fingerprint key must have at least ${FINGERPRINT_KEY_BYTES_MIN} bytes`);
  const digits = normalizePan(pan);
  if (digits === null) throw new RangeError('fingerprint: not a card number');
  return createHmac('sha256', key).update(digits, 'utf8').digest('hex');
}
