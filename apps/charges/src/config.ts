import { ACQUIRER_TIMEOUT_MS_DEFAULT } from '@pgw/acquirer';
import { ConfigError, envInt } from '@pgw/platform-http';

export interface ChargesConfig {
  /** How often the background recovery runs; 0 turns it off (tests drive the jobs themselves). */
  recoveryIntervalMs: number;
  /** The background recovery leaves younger intents alone: their request may still be running. */
  recoveryMinAgeMs: number;
  /**
   * The refund-reconciliation job recovers intents older than the acquirer's deadline: by then the
   * request that saved the intent has its answer (or its timeout), so the job never races it.
   */
  jobMinAgeMs: number;
  /** Bound of every batch a job or the recovery takes. */
  batchSizeMax: number;
  /** Deadline of the vault's token lookup. */
  vaultTimeoutMs: number;
}

export function chargesConfig(env: NodeJS.ProcessEnv): ChargesConfig {
  const config: ChargesConfig = {
    recoveryIntervalMs: envInt(env, 'CHARGES_RECOVERY_INTERVAL_MS', 10_000),
    recoveryMinAgeMs: envInt(env, 'CHARGES_RECOVERY_MIN_AGE_MS', 30_000),
    jobMinAgeMs: envInt(env, 'ACQUIRER_TIMEOUT_MS', ACQUIRER_TIMEOUT_MS_DEFAULT),
    batchSizeMax: envInt(env, 'CHARGES_BATCH_SIZE_MAX', 500),
    vaultTimeoutMs: envInt(env, 'CHARGES_VAULT_TIMEOUT_MS', 3_000),
  };
  if (config.recoveryIntervalMs < 0) throw new ConfigError('CHARGES_RECOVERY_INTERVAL_MS must be 0 (off) or more');
  if (config.recoveryMinAgeMs < config.jobMinAgeMs) throw new ConfigError('CHARGES_RECOVERY_MIN_AGE_MS must not be below ACQUIRER_TIMEOUT_MS');
  if (config.batchSizeMax < 1 || config.batchSizeMax > 10_000) throw new ConfigError('CHARGES_BATCH_SIZE_MAX must be within 1..10000');
  if (config.vaultTimeoutMs < 1) throw new ConfigError('CHARGES_VAULT_TIMEOUT_MS must be positive');
  return config;
}
