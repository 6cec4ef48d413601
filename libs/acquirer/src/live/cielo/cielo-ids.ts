import { createHash } from 'node:crypto';

// Our references become Cielo's MerchantOrderId, which allows letters and digits only (36 at most in its
// query by order id). The encoding is reversible, so that a sale read back from Cielo (after a capture, in
// recovery) names the reference it was made under: `Z` escapes, `ZZ` is a Z, `Z0`…`Z3` the four
// punctuation marks our references may carry. An id such as `ch_3kTMd9Qz0bXhV1aLrP7uYw2E` becomes
// `chZ03kTMd9Qz0bXhV1aLrP7uYw2E`: readable in Cielo's back office, one character longer.

const ESCAPES: Readonly<Record<string, string>> = {
  Z: 'ZZ',
  _: 'Z0',
  '-': 'Z1',
  '.': 'Z2',
  ':': 'Z3',
};
const UNESCAPES: Readonly<Record<string, string>> = {
  Z: 'Z',
  '0': '_',
  '1': '-',
  '2': '.',
  '3': ':',
};
export const MERCHANT_ORDER_ID_LENGTH_MAX = 36;

/** The MerchantOrderId of a reference, or null when its encoding is longer than Cielo accepts. */
export function merchantOrderIdOf(reference: string): string | null {
  let out = '';
  for (const char of reference) {
    if (/^[A-Za-z0-9]$/.test(char) && char !== 'Z') out += char;
    else {
      const escaped = ESCAPES[char];
      if (escaped === undefined) return null;
      out += escaped;
    }
  }
  return out.length >= 1 && out.length <= MERCHANT_ORDER_ID_LENGTH_MAX ? out : null;
}

/** The reference a MerchantOrderId encodes, or null when it is not one of ours. */
export function referenceOf(merchantOrderId: string): string | null {
  let out = '';
  for (let i = 0; i < merchantOrderId.length; i++) {
    const char = merchantOrderId.charAt(i);
    if (char !== 'Z') {
      if (!/^[A-Za-z0-9]$/.test(char)) return null;
      out += char;
      continue;
    }
    const unescaped = UNESCAPES[merchantOrderId.charAt(i + 1)];
    if (unescaped === undefined) return null;
    out += unescaped;
    i++;
  }
  return out === '' ? null : out;
}

/**
 * The RequestId of one operation: a GUID derived from what the operation is about (`authorize:<reference>`,
 * `capture:<PaymentId>`, …), so that a retry carries the same one. The manual documents RequestId as a
 * request identifier, not as an idempotency key: the adapter's own look-ups before acting are what keep a
 * retry from acting twice; the stable RequestId lets Cielo's support match our retries to each other.
 */
export function requestIdOf(operation: string, key: string): string {
  const hex = createHash('sha256').update(`${operation}:${key}`).digest('hex');
  // RFC 9562 version 8 (custom) with the RFC variant bits: a well-formed GUID.
  const variant = ((Number.parseInt(hex.charAt(16), 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
