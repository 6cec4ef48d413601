import { allowsPrivateWebhookTargets, ConfigError, envInt } from '@pgw/platform-http';

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

export const RETRY_WINDOW_MS = 24 * 3_600_000;
export const SECRET_OVERLAP_MS = 24 * 3_600_000;

export const DEFAULT_CONFIG: WebhooksConfig = {
  attemptTimeoutMs: 10_000,
  retryBaseMs: 10_000,
  retryCapMs: 3_600_000,
  concurrencyMax: 16,
  pollIntervalMs: 1_000,
  allowPrivateTargets: false,
};

function bounded(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const value = envInt(env, name, fallback);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

export function webhooksConfig(env: NodeJS.ProcessEnv): WebhooksConfig {
  const config: WebhooksConfig = {
    attemptTimeoutMs: bounded(env, 'WEBHOOK_TIMEOUT_MS', DEFAULT_CONFIG.attemptTimeoutMs, 1, 60_000),
    retryBaseMs: bounded(env, 'WEBHOOK_RETRY_BASE_MS', DEFAULT_CONFIG.retryBaseMs, 1, 3_600_000),
    retryCapMs: bounded(env, 'WEBHOOK_RETRY_CAP_MS', DEFAULT_CONFIG.retryCapMs, 1, 6 * 3_600_000),
    concurrencyMax: bounded(env, 'WEBHOOK_CONCURRENCY', DEFAULT_CONFIG.concurrencyMax, 1, 256),
    pollIntervalMs: bounded(env, 'WEBHOOK_POLL_INTERVAL_MS', DEFAULT_CONFIG.pollIntervalMs, 5, 60_000),
    allowPrivateTargets: allowsPrivateWebhookTargets(env),
  };
  if (config.retryCapMs < config.retryBaseMs) throw new ConfigError('WEBHOOK_RETRY_CAP_MS must be at least WEBHOOK_RETRY_BASE_MS');
  return config;
}
