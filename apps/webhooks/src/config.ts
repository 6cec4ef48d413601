import { Type } from '@sinclair/typebox';
import { ConfigError, readEnv } from '@pgw/platform-http';

// The delivery worker's settings, read once at boot. The defaults are contract §7's: 10 s per attempt,
// exponential back-off from 10 s capped at 1 h. The retry window (24 h) and the rotation overlap (24 h)
// are not settings: the contract promises them to integrators.

export interface WebhooksConfig {
  /** An attempt that has no answer within this is a failed attempt (contract §7: 10 s). */
  attemptTimeoutMs: number;
  /** The first retry's delay; each next one doubles, up to `retryCapMs`. */
  retryBaseMs: number;
  retryCapMs: number;
  /** How many POSTs one replica has in flight at most. */
  concurrencyMax: number;
  /** How often an idle worker looks for due deliveries (new events wake it at once in-process). */
  pollIntervalMs: number;
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS=1: deliveries may reach private addresses (contract §7). */
  allowPrivateTargets: boolean;
}

export { RETRY_WINDOW_MS } from '@pgw/webhooks-domain/backoff';
export const SECRET_OVERLAP_MS = 24 * 3_600_000;

export const DEFAULT_CONFIG: WebhooksConfig = {
  attemptTimeoutMs: 10_000,
  retryBaseMs: 10_000,
  retryCapMs: 3_600_000,
  concurrencyMax: 16,
  pollIntervalMs: 1_000,
  allowPrivateTargets: false,
};

/** The worker's variables, with contract §7's defaults and the bounds each may take. */
export const WebhooksEnv = Type.Object({
  WEBHOOK_TIMEOUT_MS: Type.Integer({
    minimum: 1,
    maximum: 60_000,
    default: DEFAULT_CONFIG.attemptTimeoutMs,
  }),
  WEBHOOK_RETRY_BASE_MS: Type.Integer({
    minimum: 1,
    maximum: 3_600_000,
    default: DEFAULT_CONFIG.retryBaseMs,
  }),
  WEBHOOK_RETRY_CAP_MS: Type.Integer({
    minimum: 1,
    maximum: 6 * 3_600_000,
    default: DEFAULT_CONFIG.retryCapMs,
  }),
  WEBHOOK_CONCURRENCY: Type.Integer({
    minimum: 1,
    maximum: 256,
    default: DEFAULT_CONFIG.concurrencyMax,
  }),
  WEBHOOK_POLL_INTERVAL_MS: Type.Integer({
    minimum: 5,
    maximum: 60_000,
    default: DEFAULT_CONFIG.pollIntervalMs,
  }),
  WEBHOOK_ALLOW_PRIVATE_TARGETS: Type.Boolean({ default: false }),
});

export function webhooksConfig(env: NodeJS.ProcessEnv): WebhooksConfig {
  const vars = readEnv(WebhooksEnv, env);
  const config: WebhooksConfig = {
    attemptTimeoutMs: vars.WEBHOOK_TIMEOUT_MS,
    retryBaseMs: vars.WEBHOOK_RETRY_BASE_MS,
    retryCapMs: vars.WEBHOOK_RETRY_CAP_MS,
    concurrencyMax: vars.WEBHOOK_CONCURRENCY,
    pollIntervalMs: vars.WEBHOOK_POLL_INTERVAL_MS,
    allowPrivateTargets: vars.WEBHOOK_ALLOW_PRIVATE_TARGETS,
  };
  if (config.retryCapMs < config.retryBaseMs)
    throw new ConfigError('WEBHOOK_RETRY_CAP_MS must be at least WEBHOOK_RETRY_BASE_MS');
  return config;
}
