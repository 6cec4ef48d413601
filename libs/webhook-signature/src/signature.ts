import { createHmac, timingSafeEqual } from 'node:crypto';

// The webhook signature of contract §7:
//   X-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>[,v1=<…>]
// The MAC covers the timestamp, so an old request cannot be replayed with a fresh `t`, and the raw body
// bytes exactly as sent, so a receiver must verify before parsing (a re-serialized body does not match).
// While a rotated secret is still valid the header carries one v1 per secret; a receiver that knows any
// one of them accepts. Only node:crypto: integrators copy this, and the webhooks service signs with it.

export const SIGNATURE_HEADER = 'x-signature';
export const DEFAULT_TOLERANCE_SECONDS = 300;

const HEADER_LENGTH_MAX = 4096;
const SIGNATURES_MAX = 8;
const HEX_SHA256 = /^[0-9a-f]{64}$/;
const SECONDS = /^[0-9]{1,12}$/;

export type RawBody = string | Uint8Array;

/** The v1 value for one secret: hex HMAC-SHA256(secret, "<t>.<raw body>"). */
export function computeSignature(
  secret: string,
  rawBody: RawBody,
  timestampSeconds: number,
): string {
  return createHmac('sha256', secret).update(`${timestampSeconds}.`).update(rawBody).digest('hex');
}

/**
 * The X-Signature header value for `rawBody` at `timestampSeconds`, with one v1 per secret (the current
 * secret first, then a rotated one that is still valid).
 */
export function signWebhook(
  secret: string | readonly string[],
  rawBody: RawBody,
  timestampSeconds: number,
): string {
  const secrets = typeof secret === 'string' ? [secret] : secret;
  if (secrets.length === 0 || secrets.length > SIGNATURES_MAX)
    throw new Error(`signWebhook needs 1 to ${SIGNATURES_MAX} secrets`);
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0)
    throw new Error('timestampSeconds must be a non-negative integer');
  return [
    `t=${timestampSeconds}`,
    ...secrets.map((s) => `v1=${computeSignature(s, rawBody, timestampSeconds)}`),
  ].join(',');
}

export interface ParsedSignature {
  timestampSeconds: number;
  /** Every v1 value, lower-case hex. Other schemes (v0, a future v2) are skipped. */
  signatures: string[];
}

/** Parses `t=…,v1=…[,v1=…]`; null when the header is missing, too long or malformed. */
export function parseSignatureHeader(
  header: string | string[] | undefined | null,
): ParsedSignature | null {
  if (typeof header !== 'string' || header.length === 0 || header.length > HEADER_LENGTH_MAX)
    return null;
  let timestampSeconds: number | null = null;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) return null;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      if (timestampSeconds !== null || !SECONDS.test(value)) return null;
      timestampSeconds = Number(value);
    } else if (key === 'v1') {
      if (!HEX_SHA256.test(value)) return null;
      if (signatures.length < SIGNATURES_MAX) signatures.push(value);
    }
  }
  if (timestampSeconds === null || signatures.length === 0) return null;
  return { timestampSeconds, signatures };
}

export interface VerifyOptions {
  /** The request body exactly as received, before any JSON parsing. */
  rawBody: RawBody;
  /** The X-Signature header. */
  header: string | string[] | undefined | null;
  /** The endpoint's secrets: usually one; the new and the old one while a rotation settles. */
  secrets: readonly string[];
  /** Now, in Unix seconds (default: the system clock). */
  nowSeconds?: number;
  /** How far `t` may be from now, either way (default 300 s). */
  toleranceSeconds?: number;
}

export type VerifyFailure =
  'header_missing_or_malformed' | 'timestamp_outside_tolerance' | 'signature_mismatch';

export type VerifyResult =
  { ok: true; timestampSeconds: number } | { ok: false; reason: VerifyFailure };

/**
 * Checks an X-Signature header: well formed, `t` within the tolerance of now (refuses replays of old
 * requests), and some v1 value equal to the HMAC of some secret, compared in constant time.
 */
export function verifyWebhook(options: VerifyOptions): VerifyResult {
  const parsed = parseSignatureHeader(options.header);
  if (parsed === null) return { ok: false, reason: 'header_missing_or_malformed' };
  const nowSeconds = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  const toleranceSeconds = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (Math.abs(nowSeconds - parsed.timestampSeconds) > toleranceSeconds)
    return { ok: false, reason: 'timestamp_outside_tolerance' };
  let matched = false;
  for (const secret of options.secrets) {
    const expected = Buffer.from(
      computeSignature(secret, options.rawBody, parsed.timestampSeconds),
      'hex',
    );
    for (const signature of parsed.signatures) {
      // Both are 32 bytes (the parser accepts only 64 hex digits); no early exit, so timing says nothing.
      if (timingSafeEqual(expected, Buffer.from(signature, 'hex'))) matched = true;
    }
  }
  return matched
    ? { ok: true, timestampSeconds: parsed.timestampSeconds }
    : { ok: false, reason: 'signature_mismatch' };
}
