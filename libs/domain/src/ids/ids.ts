// Public ids: a type prefix and 24 base62 characters (≈143 bits), unguessable, so knowing one id tells
import { assert } from '../invariants/assert';
// nothing about another, and url-safe without escaping. Every random id, secret and code of the system is
// made by randomString below (one generator, issue 19 item 2).

export const ID_PREFIXES = [
  'ch_',
  'rf_',
  'tok_',
  'recv_',
  'set_',
  'cb_',
  'ant_',
  'ldge_',
  'seller_',
  'ten_',
  'key_',
  'plan_',
  'we_',
  'evt_',
  'req_',
] as const;
export type IdPrefix = (typeof ID_PREFIXES)[number];

export const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_CHARS = 24;
/** Rounds of random bytes (each `length + 16` bytes) before a source that rejects everything is given up on. */
const ROUNDS_MAX = 16;

/**
 * The rejection bound for an alphabet of `size` characters: the largest multiple of `size` not above 256.
 * Bytes at or above it are thrown away, so the bytes kept map onto the alphabet exactly `bound / size` times
 * each and every character is equally likely (byte % 62 over all 256 values would favour the first 8).
 */
export function rejectionBound(size: number): number {
  if (!Number.isInteger(size) || size < 2 || size > 256)
    throw new RangeError(`an alphabet of ${size} characters`);
  return 256 - (256 % size);
}

/** Fills the array with cryptographically strong random bytes (the Web Crypto API: Node and browsers). */
export type RandomFill = (bytes: Uint8Array) => Uint8Array;

const POOL_BYTES = 4096;
let pool = new Uint8Array(0);
let poolUsed = 0;

/**
 * The system's CSPRNG through a pool of 4 KiB, each byte handed out once: one call into it per ~100 ids
 * rather than one per id (what Node's randomUUID does too). Each call cost more than the id's own work.
 */
export const systemRandom: RandomFill = (bytes) => {
  if (bytes.length > POOL_BYTES) return globalThis.crypto.getRandomValues(bytes);
  if (poolUsed + bytes.length > pool.length) {
    pool = globalThis.crypto.getRandomValues(new Uint8Array(POOL_BYTES));
    poolUsed = 0;
  }
  bytes.set(pool.subarray(poolUsed, poolUsed + bytes.length));
  poolUsed += bytes.length;
  return bytes;
};

/**
 * `length` characters of `alphabet` (base62 unless given), each equally likely, from the system's CSPRNG by
 * rejection sampling. Bounded: a source that keeps returning rejected bytes makes it throw, never spin.
 */
export function randomString(
  length: number,
  alphabet: string = BASE62,
  random: RandomFill = systemRandom,
): string {
  const bound = rejectionBound(alphabet.length);
  let out = '';
  for (let round = 0; round < ROUNDS_MAX && out.length < length; round += 1) {
    for (const byte of random(new Uint8Array(length + 16))) {
      if (byte < bound && out.length < length) out += alphabet[byte % alphabet.length];
    }
  }
  // With a uniform source, ROUNDS_MAX rounds all short of `length` is below 2^-100: the source itself is broken.
  assert(out.length >= length, 'ids.random-source-uniform', { length, got: out.length });
  return out;
}

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
  return prefix + randomString(RANDOM_CHARS);
}

/** True when `value` is a well-formed id of that type (what a route checks before looking it up). */
export function isId(prefix: IdPrefix, value: string): boolean {
  return value.length <= 255 && ID_PATTERNS[prefix].test(value);
}
