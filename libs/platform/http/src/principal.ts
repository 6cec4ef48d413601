import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  KeyObject,
  sign,
  verify,
} from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { ConfigError } from './config';
import { readEnv } from './env';

// The gateway authenticates the integrator and hands each service a signed principal: who is calling,
// for which tenant, seller and environment, with which permissions, and for which request. Services trust
// nothing else.
//
// Format: base64url(JSON) "." base64url(Ed25519 signature of the base64url(JSON) text). The gateway alone
// holds the private key (PRINCIPAL_PRIVATE_KEY); a service holds public keys only (PRINCIPAL_PUBLIC_KEY,
// and PRINCIPAL_PUBLIC_KEY_PREVIOUS during a rotation), so a service that is broken into can read the
// principals it receives but cannot mint one for another service or another tenant.
//
// The JSON names the request the principal was issued for (method, canonical path, canonical query): a
// service refuses a principal that arrives on any other request, so one captured on its way to
// `GET /api/v1/charges/ch_1` cannot be replayed onto `POST /api/v1/charges/ch_1/refund` within its minute.

export interface ApiKeyPrincipal {
  kind: 'api_key';
  tenantId: string;
  sellerId: string | null;
  keyId: string;
  permissions: string[];
  livemode: boolean;
  requestId: string;
  /** Unix milliseconds after which the principal is refused. */
  expiresAtMs: number;
  /**
   * The client's address as the gateway saw it (the socket, or the address its TRUSTED_PROXIES report):
   * signed with the rest, so a client cannot write it, as it can write X-Forwarded-For. Absent when the
   * gateway had no address to give.
   */
  clientIp?: string;
}

export interface OperatorPrincipal {
  kind: 'operator';
  requestId: string;
  expiresAtMs: number;
}

export type Principal = ApiKeyPrincipal | OperatorPrincipal;

/**
 * The request a principal is bound to, in canonical form (see `requestBinding`). The query is bound as
 * well as the path: on a GET it is part of what the gateway authorized (filters, pages, date ranges), and
 * nothing between the gateway and a service rewrites it, so binding it costs nothing and leaves a replay
 * no room at all; a service calling a peer builds its own URL anyway (see `principalFrom`).
 */
export interface PrincipalBinding {
  method: string;
  path: string;
  query: string;
}

export interface VerifiedPrincipal {
  principal: Principal;
  request: PrincipalBinding;
}

export const PRINCIPAL_HEADER = 'x-gateway-principal';
export const PRINCIPAL_TTL_MS = 60_000;
const TOKEN_LENGTH_MAX = 8192;
const ED25519_SIGNATURE_BYTES = 64;

/**
 * A path segment by segment, each percent-decoded then encoded again: `/charges/%63h_1` and
 * `/charges/ch_1` are one path, while an encoded slash stays inside its segment (`a%2Fb` is not `a/b`).
 * Dot segments are kept as they are: a hop that resolved them would have sent the request elsewhere, and
 * the mismatch is then refused, not followed. A segment that does not decode is kept raw.
 */
export function canonicalPath(rawPath: string): string {
  return rawPath
    .split('/')
    .map((segment) => {
      if (!segment.includes('%')) return encodeURIComponent(segment);
      try {
        return encodeURIComponent(decodeURIComponent(segment));
      } catch {
        return segment;
      }
    })
    .join('/');
}

/** The query decoded and encoded again, in its order (URLSearchParams's form: `%20` and `+` are one). */
export function canonicalQuery(rawQuery: string): string {
  return rawQuery === '' ? '' : new URLSearchParams(rawQuery).toString();
}

/** The binding of a request as it arrived: its method and its raw URL (path and query, no origin). */
export function requestBinding(method: string, url: string): PrincipalBinding {
  const mark = url.indexOf('?');
  const path = mark === -1 ? url : url.slice(0, mark);
  const query = mark === -1 ? '' : url.slice(mark + 1);
  return { method: method.toUpperCase(), path: canonicalPath(path), query: canonicalQuery(query) };
}

export function sameRequest(a: PrincipalBinding, b: PrincipalBinding): boolean {
  return a.method === b.method && a.path === b.path && a.query === b.query;
}

// A PEM held in an environment variable is sometimes written on one line with literal "\n" (a .env file).
const pemText = (pem: string): string => (pem.includes('\\n') ? pem.replace(/\\n/g, '\n') : pem);

/** The gateway's signing key from a PEM (PRINCIPAL_PRIVATE_KEY) or a KeyObject; anything but an Ed25519 private key is refused. */
export function principalPrivateKey(
  key: string | KeyObject,
  name = 'PRINCIPAL_PRIVATE_KEY',
): KeyObject {
  let parsed: KeyObject;
  try {
    parsed = key instanceof KeyObject ? key : createPrivateKey(pemText(key));
  } catch {
    throw new ConfigError(
      `${name} must be an Ed25519 private key in PEM (openssl genpkey -algorithm ed25519)`,
    );
  }
  if (parsed.type !== 'private' || parsed.asymmetricKeyType !== 'ed25519')
    throw new ConfigError(`${name} must be an Ed25519 private key`);
  return parsed;
}

/**
 * A service's verifying key from a PEM (PRINCIPAL_PUBLIC_KEY) or a KeyObject. A private key is refused,
 * although the public key could be derived from it: a service must not hold anything that can sign.
 */
export function principalPublicKey(
  key: string | KeyObject,
  name = 'PRINCIPAL_PUBLIC_KEY',
): KeyObject {
  if (key instanceof KeyObject ? key.type !== 'public' : /PRIVATE KEY/.test(key)) {
    throw new ConfigError(
      `${name} must be the public key only: a service must hold nothing that can sign principals`,
    );
  }
  let parsed: KeyObject;
  try {
    parsed = key instanceof KeyObject ? key : createPublicKey(pemText(key));
  } catch {
    throw new ConfigError(`${name} must be an Ed25519 public key in PEM (openssl pkey -pubout)`);
  }
  if (parsed.type !== 'public' || parsed.asymmetricKeyType !== 'ed25519')
    throw new ConfigError(`${name} must be an Ed25519 public key`);
  return parsed;
}

const PrincipalPublicKeysEnv = Type.Object({
  /** The gateway's Ed25519 public key in PEM. */
  PRINCIPAL_PUBLIC_KEY: Type.String(),
  PRINCIPAL_PUBLIC_KEY_PREVIOUS: Type.Optional(Type.String()),
});

/** A service's PRINCIPAL_PUBLIC_KEY (required) and PRINCIPAL_PUBLIC_KEY_PREVIOUS (set only during a rotation). */
export function envPrincipalPublicKeys(env: NodeJS.ProcessEnv): {
  publicKey: KeyObject;
  previousPublicKey?: KeyObject;
} {
  const vars = readEnv(PrincipalPublicKeysEnv, env);
  const previous = vars.PRINCIPAL_PUBLIC_KEY_PREVIOUS;
  return {
    publicKey: principalPublicKey(vars.PRINCIPAL_PUBLIC_KEY),
    ...(previous !== undefined
      ? { previousPublicKey: principalPublicKey(previous, 'PRINCIPAL_PUBLIC_KEY_PREVIOUS') }
      : {}),
  };
}

export interface PrincipalKeyPair {
  privateKey: KeyObject;
  publicKey: KeyObject;
  privateKeyPem: string;
  publicKeyPem: string;
}

/** A fresh pair: the all-in-one's per start, a bench cluster's, a test's. */
export function generatePrincipalKeys(): PrincipalKeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    privateKey,
    publicKey,
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

export function signPrincipal(
  principal: Principal,
  request: PrincipalBinding,
  privateKey: KeyObject,
): string {
  const data = Buffer.from(
    JSON.stringify({
      ...principal,
      request: { method: request.method, path: request.path, query: request.query },
    }),
  ).toString('base64url');
  return `${data}.${sign(null, Buffer.from(data), privateKey).toString('base64url')}`;
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}

function parseBinding(json: unknown): PrincipalBinding | null {
  if (typeof json !== 'object' || json === null) return null;
  const r = json as Record<string, unknown>;
  if (typeof r.method !== 'string' || typeof r.path !== 'string' || typeof r.query !== 'string')
    return null;
  return { method: r.method, path: r.path, query: r.query };
}

function parse(json: unknown): Principal | null {
  if (typeof json !== 'object' || json === null) return null;
  const p = json as Record<string, unknown>;
  if (typeof p.requestId !== 'string' || typeof p.expiresAtMs !== 'number') return null;
  if (p.kind === 'operator')
    return { kind: 'operator', requestId: p.requestId, expiresAtMs: p.expiresAtMs };
  if (
    p.kind === 'api_key' &&
    typeof p.tenantId === 'string' &&
    (p.sellerId === null || typeof p.sellerId === 'string') &&
    typeof p.keyId === 'string' &&
    isStringArray(p.permissions) &&
    typeof p.livemode === 'boolean' &&
    (p.clientIp === undefined || typeof p.clientIp === 'string')
  ) {
    return {
      kind: 'api_key',
      tenantId: p.tenantId,
      sellerId: p.sellerId,
      keyId: p.keyId,
      permissions: p.permissions,
      livemode: p.livemode,
      requestId: p.requestId,
      expiresAtMs: p.expiresAtMs,
      ...(p.clientIp === undefined ? {} : { clientIp: p.clientIp }),
    };
  }
  return null;
}

/**
 * The principal and the request it was issued for, when the token is well formed, signed with one of
 * `publicKeys` and not expired; else null. More than one key during a rotation: the current one and the
 * previous one (PRINCIPAL_PUBLIC_KEY and PRINCIPAL_PUBLIC_KEY_PREVIOUS), so that a gateway still signing
 * with either is believed. The caller compares the binding with the request (see `principalPlugin`).
 */
export function verifyPrincipal(
  token: string | undefined,
  publicKeys: readonly KeyObject[],
  nowMs: number,
): VerifiedPrincipal | null {
  if (typeof token !== 'string' || token.length > TOKEN_LENGTH_MAX) return null;
  const dot = token.indexOf('.');
  if (dot <= 0) return null;
  const data = Buffer.from(token.slice(0, dot));
  const given = Buffer.from(token.slice(dot + 1), 'base64url');
  if (given.length !== ED25519_SIGNATURE_BYTES) return null;
  if (!publicKeys.some((key) => verify(null, data, key, given))) return null;
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(data.toString(), 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  const principal = parse(json);
  const request = parseBinding((json as { request?: unknown }).request);
  if (principal === null || request === null || principal.expiresAtMs < nowMs) return null;
  return { principal, request };
}
