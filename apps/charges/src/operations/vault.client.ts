import { ApiError, PRINCIPAL_HEADER } from '@pgw/platform-http';
import type { Peers } from '@pgw/platform-service';

export interface CardToken {
  cardRef: string;
  brand: string;
  last4: string;
  sellerId: string;
}

function isTokenBody(body: unknown): body is { card_ref: string; brand: string; last4: string; seller_id: string } {
  if (typeof body !== 'object' || body === null) return false;
  const b = body as Record<string, unknown>;
  return typeof b.card_ref === 'string' && typeof b.brand === 'string' && typeof b.last4 === 'string' && typeof b.seller_id === 'string';
}

/**
 * The vault's token behind `tokenId`, looked up with the integrator's own principal, so the vault scopes
 * it (tenant, environment, and seller for a seller-scoped key) exactly as for the caller. That principal
 * is signed for the request charges received (POST /api/v1/charges), which the vault's route names
 * (`principalFrom`); charges holds no key and mints nothing. null: no such
 * token in the caller's scope. A vault that cannot answer is a 503: nothing was charged, retry.
 */
export async function lookupToken(peers: Peers, input: { tokenId: string; principalHeader: string; requestId: string; timeoutMs: number }): Promise<CardToken | null> {
  let response;
  try {
    response = await peers.request('vault', {
      method: 'GET',
      url: `/internal/v1/tokens/${encodeURIComponent(input.tokenId)}`,
      headers: { [PRINCIPAL_HEADER]: input.principalHeader, 'x-request-id': input.requestId },
      timeoutMs: input.timeoutMs,
    });
  } catch {
    throw new ApiError('service_unavailable', 'The card vault did not answer; nothing was charged. Retry with the same Idempotency-Key.');
  }
  if (response.statusCode === 404) return null;
  if (response.statusCode !== 200 || !isTokenBody(response.body)) {
    throw new ApiError('service_unavailable', 'The card vault could not answer; nothing was charged. Retry with the same Idempotency-Key.');
  }
  const body = response.body;
  return { cardRef: body.card_ref, brand: body.brand, last4: body.last4, sellerId: body.seller_id };
}
