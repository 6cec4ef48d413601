import { LRUCache } from 'lru-cache';
import { ApiError, PRINCIPAL_HEADER } from '@pgw/platform-http';
import type { Peers } from '@pgw/platform-service';

export interface CardToken {
  cardRef: string;
  /**
   * The rail the card was stored on (`cielo:acme`, or `simulator`): its card reference is valid at that
   * card store only. null for a token the vault made before it recorded rails.
   */
  cardRail: string | null;
  brand: string;
  last4: string;
  sellerId: string;
}

function isTokenBody(body: unknown): body is {
  card_ref: string;
  card_rail?: string | null;
  brand: string;
  last4: string;
  seller_id: string;
} {
  if (typeof body !== 'object' || body === null) return false;
  const b = body as Record<string, unknown>;
  return (
    typeof b.card_ref === 'string' &&
    (b.card_rail === undefined || b.card_rail === null || typeof b.card_rail === 'string') &&
    typeof b.brand === 'string' &&
    typeof b.last4 === 'string' &&
    typeof b.seller_id === 'string'
  );
}

/** Whose lookup it is: the vault scopes a token to the caller's tenant, environment and (a seller-scoped key's) seller. */
export interface TokenScope {
  tenantId: string;
  livemode: boolean;
  sellerId: string | null;
}

/**
 * Tokens found, per caller scope, so that a card charged again does not cost an HTTP call to the vault (one
 * per card charge before; issue 18). Sound because a token never changes: its card reference, rail, brand,
 * last four digits and seller are written once at tokenization, and the vault has no route that changes or
 * deletes a token (key rotation re-encrypts the card data, not these). Only a found token is kept (an
 * unknown one is asked again every time), under the scope the vault answered for, so a key of another
 * tenant, environment or seller never reads another's entry. Bounded in entries and age (the age bounds
 * what a vault-side change made outside the API, e.g. a migration, would leave behind).
 */
export const TOKEN_CACHE_MAX = 10_000;
export const TOKEN_CACHE_TTL_MS = 10 * 60_000;
const caches = new WeakMap<Peers, LRUCache<string, CardToken>>();

function cacheOf(peers: Peers): LRUCache<string, CardToken> {
  let cache = caches.get(peers);
  if (cache === undefined) {
    cache = new LRUCache<string, CardToken>({ max: TOKEN_CACHE_MAX, ttl: TOKEN_CACHE_TTL_MS });
    caches.set(peers, cache);
  }
  return cache;
}

const cacheKey = (scope: TokenScope, tokenId: string) =>
  JSON.stringify([scope.tenantId, scope.livemode, scope.sellerId, tokenId]);

/**
 * The vault's token behind `tokenId`, looked up with the integrator's own principal, so the vault scopes
 * it (tenant, environment, and seller for a seller-scoped key) exactly as for the caller. That principal
 * is signed for the request charges received (POST /api/v1/charges), which the vault's route names
 * (`principalFrom`); charges holds no key and mints nothing. null: no such
 * token in the caller's scope. A vault that cannot answer is a 503: nothing was charged, retry.
 */
export async function lookupToken(
  peers: Peers,
  input: {
    tokenId: string;
    scope: TokenScope;
    principalHeader: string;
    requestId: string;
    timeoutMs: number;
  },
): Promise<CardToken | null> {
  const cache = cacheOf(peers);
  const key = cacheKey(input.scope, input.tokenId);
  const cached = cache.get(key);
  if (cached !== undefined) return { ...cached };
  let response;
  try {
    response = await peers.request('vault', {
      method: 'GET',
      url: `/internal/v1/tokens/${encodeURIComponent(input.tokenId)}`,
      headers: { [PRINCIPAL_HEADER]: input.principalHeader, 'x-request-id': input.requestId },
      timeoutMs: input.timeoutMs,
    });
  } catch {
    throw new ApiError(
      'service_unavailable',
      'The card vault did not answer; nothing was charged. Retry with the same Idempotency-Key.',
    );
  }
  if (response.statusCode === 404) return null;
  if (response.statusCode !== 200 || !isTokenBody(response.body)) {
    throw new ApiError(
      'service_unavailable',
      'The card vault could not answer; nothing was charged. Retry with the same Idempotency-Key.',
    );
  }
  const body = response.body;
  const token: CardToken = {
    cardRef: body.card_ref,
    cardRail: body.card_rail ?? null,
    brand: body.brand,
    last4: body.last4,
    sellerId: body.seller_id,
  };
  cache.set(key, token);
  return { ...token };
}
