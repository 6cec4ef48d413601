// Configuration comes from the environment, read once at boot (env.ts's readEnv, with a TypeBox schema).
// A secret has no default: a service that lacks one refuses to start rather than run with a guessable value.

export class ConfigError extends Error {}

export function envString(env: NodeJS.ProcessEnv, name: string, fallback?: string): string {
  const value = env[name];
  if (value !== undefined && value !== '') return value;
  if (fallback !== undefined) return fallback;
  throw new ConfigError(`${name} is required`);
}

export function envInt(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value)) throw new ConfigError(`${name} must be an integer, got ${raw}`);
  return value;
}
