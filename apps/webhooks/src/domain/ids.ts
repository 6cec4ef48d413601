import { randomBytes } from 'node:crypto';

// Ids and secrets this service mints. @pgw/domain's newId knows only the api-v1 prefixes; delivery ids
// (whd_) and rotated secrets (whsec_, as the gateway makes them) are this service's own, with the same
// unbiased base62.

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const UNBIASED_BYTE_LIMIT = 248; // 4 × 62

export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte >= UNBIASED_BYTE_LIMIT) continue;
      out += ALPHABET[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export const DELIVERY_ID_PATTERN = /^whd_[A-Za-z0-9]{1,64}$/;
export const ENDPOINT_ID_PATTERN = /^we_[A-Za-z0-9]{1,64}$/;

export const newDeliveryId = (): string => `whd_${randomBase62(24)}`;
export const newEndpointSecret = (): string => `whsec_${randomBase62(32)}`;
