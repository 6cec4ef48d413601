import { Type } from '@sinclair/typebox';
import { ConfigError, readEnv } from '@pgw/platform-http';
import { ACQUIRER_TIMEOUT_MS_DEFAULT } from '../../sim-acquirer';
import { Redacted } from '@pgw/domain';
import { envSecretOrFile, readSecretFileBytes } from '../secret-file';

// What one receiving account at one PSP needs: where its API Pix is, the OAuth2 client it gave us, the
// client certificate of the mutual TLS it requires, and the Pix key (`chave`) charges are made to. A
// tenant with its own PSP account gets its own config object; a deployment with one account reads it
// from the environment with `readBcbPixConfig`.

/** The API Pix scopes the adapter uses (one per operation family it calls). */
export const BCB_PIX_SCOPES_DEFAULT =
  'cob.write cob.read cobv.write cobv.read pix.write pix.read webhook.write webhook.read';

export interface BcbPixConfig {
  /** The PSP's API Pix root, with its major version and without a trailing slash: `https://pix.psp.example/api/v2`. */
  baseUrl: string;
  /** The PSP's OAuth2 token endpoint (not part of the standard: every PSP publishes its own). */
  tokenUrl: string;
  clientId: string;
  clientSecret: Redacted<string>;
  /** Space-separated OAuth2 scopes asked for with every token. */
  scopes: string;
  /** PEM files of the client certificate the PSP issued or registered, its private key and, when the PSP's server certificate is not from a public CA, that CA. */
  certFile: string;
  keyFile: string;
  caFile: string | null;
  /** The receiving Pix key (DICT): an EVP, e-mail, phone, CPF or CNPJ registered to this account. */
  chave: string;
  /** Printed in a BR Code when the PSP returns only the location (field 59 and 60 of the EMV payload). */
  merchantName: string;
  merchantCity: string;
  /** The deadline of every HTTP call, the token request included. */
  timeoutMs: number;
}

/** The PEM material of the mutual TLS, read from the files the config names. */
export interface BcbPixTlsMaterial {
  cert: Buffer;
  key: Redacted<Buffer>;
  ca: Buffer | null;
}

const CHAVE_CHARS_MAX = 77; // the schema's maxLength of `chave`
const TIMEOUT_MS_MAX = 60_000; // a Pix call that takes longer than a minute is not coming back

/** One account's plain variables (secrets come from files: envSecretOrFile, readBcbPixTlsMaterial). */
const BcbPixEnv = Type.Object({
  PIX_BCB_BASE_URL: Type.String(),
  PIX_BCB_TOKEN_URL: Type.String(),
  PIX_BCB_CLIENT_ID: Type.String(),
  PIX_BCB_SCOPES: Type.String({ default: BCB_PIX_SCOPES_DEFAULT }),
  PIX_BCB_CERT_FILE: Type.String(),
  PIX_BCB_KEY_FILE: Type.String(),
  PIX_BCB_CA_FILE: Type.Optional(Type.String()),
  PIX_BCB_CHAVE: Type.String(),
  PIX_BCB_MERCHANT_NAME: Type.String(),
  PIX_BCB_MERCHANT_CITY: Type.String(),
  PIX_BCB_TIMEOUT_MS: Type.Integer({
    minimum: 1,
    maximum: TIMEOUT_MS_MAX,
    default: ACQUIRER_TIMEOUT_MS_DEFAULT,
  }),
});

function httpsUrl(name: string, raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an absolute URL`);
  }
  // The API Pix is only served over mutual TLS; a plain-HTTP URL would send the token in clear.
  if (url.protocol !== 'https:') throw new ConfigError(`${name} must be an https URL`);
  return raw.replace(/\/+$/, '');
}

/**
 * Reads one account's configuration from `PIX_BCB_*`. Secrets come from files (`PIX_BCB_CLIENT_SECRET_FILE`,
 * the key and certificate files) as a deployment mounts them; `PIX_BCB_CLIENT_SECRET` is accepted for a
 * developer's shell. Errors name the variable or the path, never a secret's value.
 */
export function readBcbPixConfig(env: NodeJS.ProcessEnv): BcbPixConfig {
  const clientSecret = envSecretOrFile(env, 'PIX_BCB_CLIENT_SECRET');
  const vars = readEnv(BcbPixEnv, env);
  if (vars.PIX_BCB_CHAVE.length > CHAVE_CHARS_MAX)
    throw new ConfigError(`PIX_BCB_CHAVE is longer than ${CHAVE_CHARS_MAX} characters`);
  return {
    baseUrl: httpsUrl('PIX_BCB_BASE_URL', vars.PIX_BCB_BASE_URL),
    tokenUrl: httpsUrl('PIX_BCB_TOKEN_URL', vars.PIX_BCB_TOKEN_URL),
    clientId: vars.PIX_BCB_CLIENT_ID,
    clientSecret: new Redacted(clientSecret),
    scopes: vars.PIX_BCB_SCOPES,
    certFile: vars.PIX_BCB_CERT_FILE,
    keyFile: vars.PIX_BCB_KEY_FILE,
    caFile: vars.PIX_BCB_CA_FILE ?? null,
    chave: vars.PIX_BCB_CHAVE,
    merchantName: vars.PIX_BCB_MERCHANT_NAME,
    merchantCity: vars.PIX_BCB_MERCHANT_CITY,
    timeoutMs: vars.PIX_BCB_TIMEOUT_MS,
  };
}

/** Reads the PEM files the config names; a missing or unreadable file is a ConfigError naming the path. */
export function readBcbPixTlsMaterial(
  config: Pick<BcbPixConfig, 'certFile' | 'keyFile' | 'caFile'>,
): BcbPixTlsMaterial {
  const read = readSecretFileBytes;
  return {
    cert: read('PIX_BCB_CERT_FILE', config.certFile),
    key: new Redacted(read('PIX_BCB_KEY_FILE', config.keyFile)),
    ca: config.caFile !== null ? read('PIX_BCB_CA_FILE', config.caFile) : null,
  };
}
