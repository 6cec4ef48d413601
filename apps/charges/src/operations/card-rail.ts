import type { FastifyBaseLogger } from 'fastify';
import { ApiError } from '@pgw/platform-http';
import type { RailKind } from '@pgw/acquirer';
import type { ChargesDeps } from './deps';

/**
 * The rail a new charge records and is sent to. A card charge goes where its card was stored: the card
 * reference of a token means something only to the card store that issued it, so a token made while the
 * tenant's card rail was account A is charged at A after the operator moved the tenant to B (as long as
 * the deployment still holds A's credentials). A token whose rail can no longer be reached is refused
 * with 422 parameter_invalid on card_token — the card must be tokenized again — and nothing is sent to
 * any acquirer. Pix, boleto and tokens made before the vault recorded rails follow the tenant's rails now.
 */
export async function railOfNewCharge(
  deps: ChargesDeps,
  log: FastifyBaseLogger,
  scope: { tenantId: string; livemode: boolean },
  kind: RailKind,
  storedCardRail: string | null,
): Promise<string> {
  if (kind !== 'card' || storedCardRail === null) return deps.acquirers.railFor(scope, kind);
  const problem = deps.acquirers.recordedRailProblem(scope.livemode, kind, storedCardRail);
  if (problem !== null) {
    // The operator's reason (which variable is missing) is logged; the integrator is told what to do.
    log.warn(
      { tenant_id: scope.tenantId, card_rail: storedCardRail, problem },
      "card token's rail is no longer configured",
    );
    throw new ApiError(
      'parameter_invalid',
      'card_token: the card was stored with a card acquirer account that is no longer configured for this account; tokenize the card again',
      'card_token',
    );
  }
  return storedCardRail;
}
