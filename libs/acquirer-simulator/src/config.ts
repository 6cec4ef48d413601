import { Type } from '@sinclair/typebox';
import { readEnv } from '@pgw/platform-http';

export interface SimConfig {
  /** How long the `timeout` fault mode holds each answer, after applying the request. */
  timeoutDelayMs: number;
  /** When set, every /acquirer/v1 request must carry it in `x-acquirer-key`. */
  key: string | null;
}

// The simulator holds no secret of ours: its optional key only proves that the caller is one of our
// services. The delay defaults to 10 s, beyond the adapter's 3 s deadline; tests set a short one.
const SimEnv = Type.Object({
  ACQUIRER_SIM_TIMEOUT_DELAY_MS: Type.Integer({ minimum: 0, maximum: 120_000, default: 10_000 }),
  ACQUIRER_SIM_KEY: Type.Optional(Type.String({ minLength: 16 })),
});

export function simConfig(env: NodeJS.ProcessEnv): SimConfig {
  const vars = readEnv(SimEnv, env);
  return { timeoutDelayMs: vars.ACQUIRER_SIM_TIMEOUT_DELAY_MS, key: vars.ACQUIRER_SIM_KEY ?? null };
}
