import { ACQUIRER_TIMEOUT_MS_DEFAULT } from '@pgw/acquirer';
import { Type, type Static } from '@sinclair/typebox';
import { ConfigError, readEnv } from '@pgw/platform-http';

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
  /**
   * PIX_NOTIFY_CLIENT_CERT_HEADER: the request header in which the ingress that terminates the PSP's mutual
   * TLS forwards the client certificate (URL-encoded PEM, e.g. nginx's `$ssl_client_escaped_cert`). The
   * ingress must set or remove it on every request, so that no caller can write it. null: not read.
   */
  pixNotifyCertHeader: string | null;
  /** PIX_NOTIFY_TLS_*: a TLS listener of charges itself for the PSP's webhook, which reads the certificate of the handshake. null: none. */
  pixNotifyTls: { port: number; host: string; certFile: string; keyFile: string } | null;
}

const HEADER_NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;
/** Headers that carry something else: the ingress's certificate header must not be one of them. */
const RESERVED_HEADERS = new Set([
  'authorization',
  'x-gateway-principal',
  'x-request-id',
  'x-forwarded-for',
  'host',
  'content-type',
  'content-length',
  'cookie',
]);

/** Charges' variables, with their defaults and bounds, read once by chargesConfig. */
export const ChargesEnv = Type.Object({
  CHARGES_RECOVERY_INTERVAL_MS: Type.Integer({ minimum: 0, default: 10_000 }),
  CHARGES_RECOVERY_MIN_AGE_MS: Type.Integer({ default: 30_000 }),
  ACQUIRER_TIMEOUT_MS: Type.Integer({ default: ACQUIRER_TIMEOUT_MS_DEFAULT }),
  CHARGES_BATCH_SIZE_MAX: Type.Integer({ minimum: 1, maximum: 10_000, default: 500 }),
  CHARGES_VAULT_TIMEOUT_MS: Type.Integer({ minimum: 1, default: 3_000 }),
  PIX_NOTIFY_CLIENT_CERT_HEADER: Type.Optional(Type.String()),
  PIX_NOTIFY_TLS_PORT: Type.Optional(Type.Integer({ minimum: 0, maximum: 65_535 })),
  PIX_NOTIFY_TLS_HOST: Type.String({ default: '0.0.0.0' }),
  PIX_NOTIFY_TLS_CERT_FILE: Type.Optional(Type.String()),
  PIX_NOTIFY_TLS_KEY_FILE: Type.Optional(Type.String()),
});
type ChargesVars = Static<typeof ChargesEnv>;

function pixNotifyCertHeader(vars: ChargesVars): string | null {
  const raw = vars.PIX_NOTIFY_CLIENT_CERT_HEADER;
  if (raw === undefined) return null;
  const name = raw.toLowerCase();
  if (!HEADER_NAME.test(name) || RESERVED_HEADERS.has(name))
    throw new ConfigError(
      'PIX_NOTIFY_CLIENT_CERT_HEADER must be a header name of letters, digits and -, not one the platform uses for something else',
    );
  return name;
}

function pixNotifyTls(vars: ChargesVars): ChargesConfig['pixNotifyTls'] {
  const port = vars.PIX_NOTIFY_TLS_PORT; // 0: any free port
  if (port === undefined) return null;
  const missing = (['PIX_NOTIFY_TLS_CERT_FILE', 'PIX_NOTIFY_TLS_KEY_FILE'] as const).filter(
    (name) => vars[name] === undefined,
  );
  if (missing.length > 0)
    throw new ConfigError(missing.map((name) => `${name} is required`).join('; '));
  return {
    port,
    host: vars.PIX_NOTIFY_TLS_HOST,
    certFile: vars.PIX_NOTIFY_TLS_CERT_FILE as string,
    keyFile: vars.PIX_NOTIFY_TLS_KEY_FILE as string,
  };
}

export function chargesConfig(env: NodeJS.ProcessEnv): ChargesConfig {
  const vars = readEnv(ChargesEnv, env);
  const config: ChargesConfig = {
    recoveryIntervalMs: vars.CHARGES_RECOVERY_INTERVAL_MS,
    recoveryMinAgeMs: vars.CHARGES_RECOVERY_MIN_AGE_MS,
    jobMinAgeMs: vars.ACQUIRER_TIMEOUT_MS,
    batchSizeMax: vars.CHARGES_BATCH_SIZE_MAX,
    vaultTimeoutMs: vars.CHARGES_VAULT_TIMEOUT_MS,
    pixNotifyCertHeader: pixNotifyCertHeader(vars),
    pixNotifyTls: pixNotifyTls(vars),
  };
  if (config.recoveryMinAgeMs < config.jobMinAgeMs)
    throw new ConfigError('CHARGES_RECOVERY_MIN_AGE_MS must not be below ACQUIRER_TIMEOUT_MS');
  return config;
}
