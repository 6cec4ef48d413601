import { ApiError } from '@pgw/platform-http';

// Contract §6: live mode needs a live acquirer adapter. The only adapter there is today talks to the
// acquirer simulator, so every deployment's live acquirer is the simulator: each service that sends card
// data to it says so at start, and a deployment marked as production (DEPLOYMENT_ENV=production, the prod
// overlay) refuses live traffic before any card data is read. Elsewhere (the all-in-one, dev, CI) live
// keys reach the simulator as a sandbox.

export interface LiveModeGuard {
  /** True where live requests are refused: the live acquirer is the simulator and the deployment is production. */
  refusesLive: boolean;
}

export const LIVE_ON_SIMULATOR_MESSAGE = 'live mode is not available: the live acquirer of this production deployment is the acquirer simulator (contract §6)';

/** Reads DEPLOYMENT_ENV and logs, once at start, that the live acquirer is the simulator and what that means here. */
export function liveModeGuard(env: NodeJS.ProcessEnv, log: { warn(message: string): void }): LiveModeGuard {
  const production = env['DEPLOYMENT_ENV'] === 'production';
  log.warn(
    production
      ? 'the live acquirer is the acquirer simulator and DEPLOYMENT_ENV=production: live-mode requests are refused (403 permission_denied)'
      : 'the live acquirer is the acquirer simulator: live keys reach it as a sandbox, no real money moves',
  );
  return { refusesLive: production };
}

/** Throws the contract's 403 when a live request reaches a deployment that refuses live traffic. */
export function assertLiveAllowed(guard: LiveModeGuard, livemode: boolean): void {
  if (livemode && guard.refusesLive) throw new ApiError('permission_denied', LIVE_ON_SIMULATOR_MESSAGE);
}
