import { ConfigError, envInt } from '@pgw/platform-http';

export interface SimConfig {
  /** How long the `timeout` fault mode holds each answer, after applying the request. */
  timeoutDelayMs: number;
  /** When set, every /acquirer/v1 request must carry it in `x-acquirer-key`. */
  key: string | null;
}

// The simulator holds no secret of ours: its optional key only proves that the caller is one of our
// services. The delay defaults to 10 s, beyond the adapter's 3 s deadline; tests set a short one.
export function simConfig(env: NodeJS.ProcessEnv): SimConfig {
  const timeoutDelayMs = envInt(env, 'ACQUIRER_SIM_TIMEOUT_DELAY_MS', 10_000);
  if (timeoutDelayMs < 0 || timeoutDelayMs > 120_000)
    throw new ConfigError('ACQUIRER_SIM_TIMEOUT_DELAY_MS must be within 0..120000');
  const key = env.ACQUIRER_SIM_KEY;
  if (key !== undefined && key !== '' && key.length < 16)
    throw new ConfigError('ACQUIRER_SIM_KEY must have at least 16 characters');
  return { timeoutDelayMs, key: key === undefined || key === '' ? null : key };
}
