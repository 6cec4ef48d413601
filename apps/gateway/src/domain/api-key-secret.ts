import { createHash } from 'node:crypto';
import { randomString } from '@pgw/domain';

// API key secrets: `sk_test_` or `sk_live_` and 32 base62 characters (≈190 bits). The prefix says the
// environment, so a glance at a leaked key tells whether real money is at stake.
//
// Stored as SHA-256 hex only. A fast hash is right here, unlike for passwords: the secret is random
// with 190 bits of entropy, so there is nothing to brute-force or look up in a dictionary, and a slow
// hash (bcrypt, scrypt) would only put a CPU cost on every API request. The hash is also the lookup key.

const SECRET_RANDOM_CHARS = 32;
const SECRET_PATTERN = /^sk_(test|live)_[A-Za-z0-9]{32}$/;
/** Longest Authorization header worth looking at: `Bearer ` + a secret, with room to spare. */
const HEADER_LENGTH_MAX = 128;

export type Environment = 'test' | 'live';

export function newApiKeySecret(environment: Environment): string {
  return `sk_${environment}_${randomString(SECRET_RANDOM_CHARS)}`;
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

export type ParsedAuthorization =
  | { kind: 'missing' }
  | { kind: 'malformed' }
  | { kind: 'api_key'; secret: string; livemode: boolean };

/**
 * Reads `Authorization: Bearer sk_(test|live)_…` exactly. Anything else, whatever its shape (empty,
 * another scheme, `bearer` in lower case, extra spaces, non-ASCII, huge, repeated), is malformed: the
 * header is data from the internet, and only the one well-formed shape is looked up.
 */
export function parseAuthorization(header: string | string[] | undefined): ParsedAuthorization {
  if (header === undefined) return { kind: 'missing' };
  if (typeof header !== 'string' || header.length > HEADER_LENGTH_MAX) return { kind: 'malformed' };
  if (!header.startsWith('Bearer ')) return { kind: 'malformed' };
  const secret = header.slice('Bearer '.length);
  const match = SECRET_PATTERN.exec(secret);
  if (match === null) return { kind: 'malformed' };
  return { kind: 'api_key', secret, livemode: match[1] === 'live' };
}
