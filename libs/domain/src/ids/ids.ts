import { randomBytes } from 'node:crypto';

// Public ids: a type prefix and 24 base62 characters (≈143 bits), unguessable, so knowing one id tells
// nothing about another, and url-safe without escaping.

export const ID_PREFIXES = ['ch_', 'rf_', 'tok_', 'recv_', 'set_', 'cb_', 'ant_', 'ldge_', 'seller_', 'ten_', 'key_', 'plan_', 'we_', 'evt_', 'req_'] as const;
export type IdPrefix = (typeof ID_PREFIXES)[number];

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_CHARS = 24;
// 248 = 4 × 62: bytes at or above it are thrown away so that every character is equally likely
// (byte % 62 on all 256 values would favour the first 8 characters).
const UNBIASED_BYTE_LIMIT = 248;

/** api-v1 patterns. Tokens and request ids also allow '_' and '-'; every other id is prefix + alphanumerics. */
export const ID_PATTERNS: Readonly<Record<IdPrefix, RegExp>> = {
  ch_: /^ch_[A-Za-z0-9]+$/,
  rf_: /^rf_[A-Za-z0-9]+$/,
  tok_: /^tok_[A-Za-z0-9_-]+$/,
  recv_: /^recv_[A-Za-z0-9]+$/,
  set_: /^set_[A-Za-z0-9]+$/,
  cb_: /^cb_[A-Za-z0-9]+$/,
  ant_: /^ant_[A-Za-z0-9]+$/,
  ldge_: /^ldge_[A-Za-z0-9]+$/,
  seller_: /^seller_[A-Za-z0-9]+$/,
  ten_: /^ten_[A-Za-z0-9]+$/,
  key_: /^key_[A-Za-z0-9]+$/,
  plan_: /^plan_[A-Za-z0-9]+$/,
  we_: /^we_[A-Za-z0-9]+$/,
  evt_: /^evt_[A-Za-z0-9]+$/,
  req_: /^req_[A-Za-z0-9_-]+$/,
};

/** A new random id such as 'ch_3kTMd9Qz0bXhV1aLrP7uYw2E'. */
export function newId(prefix: IdPrefix): string {
  let out = '';
  // Bounded: each round of 32 bytes yields about 31 usable ones, so one round nearly always suffices.
  for (let round = 0; round < 16 && out.length < RANDOM_CHARS; round += 1) {
    for (const byte of randomBytes(32)) {
      if (byte < UNBIASED_BYTE_LIMIT && out.length < RANDOM_CHARS) out += ALPHABET[byte % 62];
    }
  }
  if (out.length < RANDOM_CHARS) throw new Error('newId: random source returned too many rejected bytes');
  return prefix + out;
}

/** True when `value` is a well-formed id of that type (what a route checks before looking it up). */
export function isId(prefix: IdPrefix, value: string): boolean {
  return value.length <= 255 && ID_PATTERNS[prefix].test(value);
}
