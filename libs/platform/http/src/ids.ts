import { randomBytes } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

// Request ids are `req_` + 24 base62 characters: 142 bits of randomness, unguessable and url-safe.
export function newRequestId(): string {
  const bytes = randomBytes(24);
  let out = 'req_';
  for (const byte of bytes) out += ALPHABET[byte % 62];
  return out;
}

export const REQUEST_ID_PATTERN = /^req_[A-Za-z0-9_-]{1,64}$/;
