import {
  BOLETO_PROVIDERS,
  CARD_PROVIDERS,
  PIX_PROVIDERS,
  type LiveRails,
  type RailChoice,
} from '@pgw/acquirer';
import { ApiError, PRINCIPAL_HEADER } from '@pgw/platform-http';
import type { Peers } from '@pgw/platform-service';

/** Charges answers from its own table; longer than this and tokenize gives up with a 503 (nothing stored). */
const LIVE_RAILS_TIMEOUT_MS = 2_000;

function choiceOf<P extends string>(
  value: unknown,
  providers: readonly P[],
): RailChoice<P> | null | undefined {
  if (value === null) return null;
  const v = value as { provider?: unknown; credentials?: unknown } | undefined;
  if (typeof v?.credentials !== 'string') return undefined;
  const provider = providers.find((p) => p === v.provider);
  return provider === undefined ? undefined : { provider, credentials: v.credentials };
}

/**
 * The live rails of the tokenizing key's tenant, from charges (which keeps them), asked with the
 * integrator's own principal so charges scopes the answer to that tenant. A live card must reach the
 * tenant's card acquirer or no card store at all: when charges cannot say, tokenize answers 503 rather
 * than store the card where the tenant's charges could not use it.
 */
export async function liveRailsOf(
  peers: Peers,
  input: { principalHeader: string; requestId: string },
): Promise<LiveRails> {
  let response;
  try {
    response = await peers.request('charges', {
      method: 'GET',
      url: '/internal/v1/live-rails',
      headers: { [PRINCIPAL_HEADER]: input.principalHeader, 'x-request-id': input.requestId },
      timeoutMs: LIVE_RAILS_TIMEOUT_MS,
    });
  } catch {
    throw new ApiError(
      'service_unavailable',
      'The live configuration could not be read; nothing was stored. Retry.',
    );
  }
  const body = response.body as { card?: unknown; pix?: unknown; boleto?: unknown } | null;
  const rails =
    response.statusCode === 200 && body !== null
      ? {
          card: choiceOf(body.card, CARD_PROVIDERS),
          pix: choiceOf(body.pix, PIX_PROVIDERS),
          boleto: choiceOf(body.boleto, BOLETO_PROVIDERS),
        }
      : null;
  if (
    rails === null ||
    rails.card === undefined ||
    rails.pix === undefined ||
    rails.boleto === undefined
  ) {
    throw new ApiError(
      'service_unavailable',
      'The live configuration could not be read; nothing was stored. Retry.',
    );
  }
  return { card: rails.card, pix: rails.pix, boleto: rails.boleto };
}
