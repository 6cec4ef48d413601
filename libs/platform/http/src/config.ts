// Configuration comes from the environment, read once at boot (env.ts's readEnv, with a TypeBox schema).
// A secret has no default: a service that lacks one refuses to start rather than run with a guessable value.

export class ConfigError extends Error {}
