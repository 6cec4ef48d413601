import { Type } from '@sinclair/typebox';
import { ConfigError, readEnv } from '@pgw/platform-http';
import { Redacted } from '@pgw/domain';
import { envSecretOrFile } from '../secret-file';

// The Cielo adapter's configuration, read once at boot from CIELO_*. The MerchantKey is held in a
// Redacted, so that logging the config (or an error that carries it) prints `[redacted]`.

/** The manual's two environments, each a transactional host and a query host. */
export const CIELO_ENVIRONMENTS = {
  sandbox: {
    apiUrl: 'https://apisandbox.cieloecommerce.cielo.com.br',
    queryUrl: 'https://apiquerysandbox.cieloecommerce.cielo.com.br',
  },
  production: {
    apiUrl: 'https://api.cieloecommerce.cielo.com.br',
    queryUrl: 'https://apiquery.cieloecommerce.cielo.com.br',
  },
} as const;

// A sale passes through the card network to the issuer, whose own time-outs run to several seconds; a
// deadline shorter than that turns decided sales into unknown outcomes that recovery must then resolve.
// The manual gives no figure: 15 s is a ceiling above the issuer's, kept configurable.
export const CIELO_TIMEOUT_MS_DEFAULT = 15_000;
// A query touches only Cielo's own store.
export const CIELO_QUERY_TIMEOUT_MS_DEFAULT = 5_000;

export interface CieloConfig {
  /** The store's MerchantId (a GUID). Not a secret, but only sent as a header. */
  merchantId: string;
  merchantKey: Redacted<string>;
  /** Transactional host: card store, sales, capture, void. */
  apiUrl: string;
  /** Query host: sales by PaymentId and by MerchantOrderId. */
  queryUrl: string;
  timeoutMs: number;
  queryTimeoutMs: number;
  /** Text on the buyer's statement, 13 letters and digits at most; Cielo uses the store's name without it. */
  softDescriptor?: string;
}

const GUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

function baseUrl(name: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`${name} must be an absolute URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new ConfigError(`${name} must be an http(s) URL`);
  return value.replace(/\/+$/, '');
}

/** One account's plain variables (the MerchantKey is a secret: envSecretOrFile). */
const CieloEnv = Type.Object({
  CIELO_MERCHANT_ID: Type.String({ pattern: GUID.source, description: 'the GUID Cielo issued' }),
  CIELO_ENVIRONMENT: Type.Optional(
    Type.Union([Type.Literal('sandbox'), Type.Literal('production')]),
  ),
  CIELO_API_URL: Type.Optional(Type.String()),
  CIELO_QUERY_URL: Type.Optional(Type.String()),
  CIELO_TIMEOUT_MS: Type.Integer({ minimum: 1, default: CIELO_TIMEOUT_MS_DEFAULT }),
  CIELO_QUERY_TIMEOUT_MS: Type.Integer({ minimum: 1, default: CIELO_QUERY_TIMEOUT_MS_DEFAULT }),
  CIELO_SOFT_DESCRIPTOR: Type.Optional(
    Type.String({ pattern: '^[A-Za-z0-9]{1,13}$', description: '1 to 13 letters and digits' }),
  ),
});

/**
 * CIELO_MERCHANT_ID (GUID) and the MerchantKey are required: CIELO_MERCHANT_KEY_FILE (a file a deployment
 * mounts) or CIELO_MERCHANT_KEY (a developer's shell), exactly one. CIELO_ENVIRONMENT (`sandbox` or
 * `production`) picks both hosts; CIELO_API_URL and CIELO_QUERY_URL override them (a fake, a proxy) and
 * then the environment may be left out. CIELO_TIMEOUT_MS (default 15000), CIELO_QUERY_TIMEOUT_MS (default
 * 5000), CIELO_SOFT_DESCRIPTOR (optional).
 */
export function cieloConfigFromEnv(env: NodeJS.ProcessEnv): CieloConfig {
  const vars = readEnv(CieloEnv, env);
  // The MerchantKey Cielo issues is 40 characters; 16 refuses a placeholder without pinning the format.
  const merchantKey = new Redacted(envSecretOrFile(env, 'CIELO_MERCHANT_KEY', 16));
  const hosts =
    vars.CIELO_ENVIRONMENT === undefined ? undefined : CIELO_ENVIRONMENTS[vars.CIELO_ENVIRONMENT];
  const url = (name: 'CIELO_API_URL' | 'CIELO_QUERY_URL', fallback: string | undefined) => {
    const value = vars[name] ?? fallback;
    if (value === undefined)
      throw new ConfigError(`${name} is required (or CIELO_ENVIRONMENT: sandbox or production)`);
    return baseUrl(name, value);
  };
  return {
    merchantId: vars.CIELO_MERCHANT_ID,
    merchantKey,
    apiUrl: url('CIELO_API_URL', hosts?.apiUrl),
    queryUrl: url('CIELO_QUERY_URL', hosts?.queryUrl),
    timeoutMs: vars.CIELO_TIMEOUT_MS,
    queryTimeoutMs: vars.CIELO_QUERY_TIMEOUT_MS,
    ...(vars.CIELO_SOFT_DESCRIPTOR !== undefined
      ? { softDescriptor: vars.CIELO_SOFT_DESCRIPTOR }
      : {}),
  };
}
