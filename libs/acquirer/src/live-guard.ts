import { Type } from '@sinclair/typebox';
import { ApiError, readEnv } from '@pgw/platform-http';

// Contract §6: live mode needs a live acquirer adapter. A tenant's live rails (live-rails.ts) name the
// adapter of each kind of payment; a kind without one reaches the acquirer simulator. A deployment marked
// as production (DEPLOYMENT_ENV=production, the prod overlay) refuses live traffic of a kind the tenant
// has no live rail for, before any card data is read; elsewhere (the all-in-one, dev, CI) such live keys
// reach the simulator as a sandbox.

export interface LiveModeGuard {
  /** True where live requests without a live rail are refused: the deployment is production. */
  refusesLive: boolean;
}

export const LIVE_ON_SIMULATOR_MESSAGE =
  'live mode is not available: this tenant has no live rail for this payment method, and this production deployment does not send live traffic to the acquirer simulator (contract §6)';

const DeploymentEnv = Type.Object({ DEPLOYMENT_ENV: Type.Optional(Type.String()) });

/** DEPLOYMENT_ENV=production: the prod overlay's marker (no live traffic reaches the simulator there). */
export function isProductionDeployment(env: NodeJS.ProcessEnv): boolean {
  return readEnv(DeploymentEnv, env).DEPLOYMENT_ENV === 'production';
}

/** Reads DEPLOYMENT_ENV and logs, once at start, what live keys without a live rail reach here. */
export function liveModeGuard(
  env: NodeJS.ProcessEnv,
  log: { warn(message: string): void },
): LiveModeGuard {
  const production = isProductionDeployment(env);
  log.warn(
    production
      ? 'where a tenant has no live rail, the live acquirer is the acquirer simulator and DEPLOYMENT_ENV=production: live-mode requests are refused (403 permission_denied)'
      : 'where a tenant has no live rail, the live acquirer is the acquirer simulator: live keys reach it as a sandbox, no real money moves',
  );
  return { refusesLive: production };
}

/**
 * Throws the contract's 403 when a live request reaches a deployment that refuses live traffic and the
 * tenant has no live rail for it (`railConfigured`: false, or not asked when the guard lets all through).
 */
export function assertLiveAllowed(
  guard: LiveModeGuard,
  livemode: boolean,
  railConfigured = false,
): void {
  if (livemode && guard.refusesLive && !railConfigured)
    throw new ApiError('permission_denied', LIVE_ON_SIMULATOR_MESSAGE);
}
