import { createHmac, timingSafeEqual } from 'node:crypto';

// The gateway authenticates the integrator and hands each service a signed principal: who is calling,
// for which tenant, seller and environment, with which permissions. Services trust nothing else.
// Format: base64url(JSON) "." base64url(HMAC-SHA256(secret, base64url(JSON))).

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
}

export interface OperatorPrincipal {
  kind: 'operator';
  requestId: string;
  expiresAtMs: number;
}

export type Principal = ApiKeyPrincipal | OperatorPrincipal;

export const PRINCIPAL_HEADER = 'x-gateway-principal';
export const PRINCIPAL_TTL_MS = 60_000;

function mac(secret: string, data: string): Buffer {
  return createHmac('sha256', secret).update(data).digest();
}

export function signPrincipal(principal: Principal, secret: string): string {
  const data = Buffer.from(JSON.stringify(principal)).toString('base64url');
  return `${data}.${mac(secret, data).toString('base64url')}`;
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}

function parse(json: unknown): Principal | null {
  if (typeof json !== 'object' || json === null) return null;
  const p = json as Record<string, unknown>;
  if (typeof p.requestId !== 'string' || typeof p.expiresAtMs !== 'number') return null;
  if (p.kind === 'operator') return { kind: 'operator', requestId: p.requestId, expiresAtMs: p.expiresAtMs };
  if (
    p.kind === 'api_key' &&
    typeof p.tenantId === 'string' &&
    (p.sellerId === null || typeof p.sellerId === 'string') &&
    typeof p.keyId === 'string' &&
    isStringArray(p.permissions) &&
    typeof p.livemode === 'boolean'
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
    };
  }
  return null;
}

/**
 * Returns the principal when the token is well formed, signed with one of `secrets` and not expired;
 * else null. More than one secret during a rotation: the current one and the previous one (PRINCIPAL_SECRET
 * and PRINCIPAL_SECRET_PREVIOUS), so that a gateway still signing with either is believed.
 */
export function verifyPrincipal(token: string | undefined, secrets: string | readonly string[], nowMs: number): Principal | null {
  if (typeof token !== 'string' || token.length > 8192) return null;
  const dot = token.indexOf('.');
  if (dot <= 0) return null;
  const data = token.slice(0, dot);
  const given = Buffer.from(token.slice(dot + 1), 'base64url');
  const signedWithOne = (typeof secrets === 'string' ? [secrets] : secrets).some((secret) => {
    const expected = mac(secret, data);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!signedWithOne) return null;
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(data, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  const principal = parse(json);
  if (principal === null || principal.expiresAtMs < nowMs) return null;
  return principal;
}
