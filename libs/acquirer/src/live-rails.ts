import { Type } from '@sinclair/typebox';
import { ConfigError, readEnv } from '@pgw/platform-http';
import { bancoDoBrasilProfile } from './live/cnab240/bank-profile';
import { Cnab240BoletoAdapter, type Cnab240Clock } from './live/cnab240/cnab240-boleto-adapter';
import { LocalDropFolder, type DropFolder } from './live/cnab240/drop-folder';
import { parseSftpUrl, SftpDropFolder } from './live/cnab240/sftp-drop-folder';
import { readSecretFileBytes } from './live/secret-file';
import { Redacted } from '@pgw/domain';
import { FileCnab240Store, type Cnab240Store } from './live/cnab240/state-store';
import { CieloAdapter, type CardAcquirer } from './live/cielo/cielo-adapter';
import { cieloConfigFromEnv } from './live/cielo/cielo-config';
import { BcbPixAdapter } from './live/pix-bcb/bcb-pix-adapter';
import { readBcbPixConfig } from './live/pix-bcb/config';
import {
  describeNotifierTrust,
  readPixNotifierTrust,
  type PixNotifierTrust,
} from './live/pix-bcb/notifier-trust';
import type { BoletoPort } from './live/cnab240/cnab240-boleto-adapter';

// A tenant's live rails: which adapter moves its card, Pix and boleto money, and under which credentials.
// What a database may hold is only this choice (provider names and a credentials name); the secrets stay
// in the deployment's environment and files, under variables prefixed by the credentials name:
//
//   credentials "acme" + the adapter's own variable  →  LIVE_RAIL_ACME_CIELO_MERCHANT_KEY, LIVE_RAIL_ACME_PIX_BCB_CERT_FILE, …
//
// so one deployment serves several tenants' accounts and a row never carries a key.

export const CARD_PROVIDERS = ['cielo'] as const;
export const PIX_PROVIDERS = ['bcb-pix'] as const;
export const BOLETO_PROVIDERS = ['cnab240-bb'] as const;
export type CardProvider = (typeof CARD_PROVIDERS)[number];
export type PixProvider = (typeof PIX_PROVIDERS)[number];
export type BoletoProvider = (typeof BOLETO_PROVIDERS)[number];

/** Letters, digits, `_` and `-`; it becomes part of environment variable names. */
export const CREDENTIALS_NAME_PATTERN = '^[A-Za-z0-9_-]{1,40}$';

export interface RailChoice<P extends string> {
  provider: P;
  /** The name the deployment's secrets are kept under (`LIVE_RAIL_<NAME>_…`). */
  credentials: string;
}

export interface LiveRails {
  card: RailChoice<CardProvider> | null;
  pix: RailChoice<PixProvider> | null;
  boleto: RailChoice<BoletoProvider> | null;
}

export type RailKind = keyof LiveRails;
export const RAIL_KINDS: readonly RailKind[] = ['card', 'pix', 'boleto'];

/** What a charge records when the simulator served it: test mode, and live mode's sandbox outside production. */
export const SIMULATOR_RAIL = 'simulator';

/**
 * What a charge records of the rail that served it — `provider:credentials`, or `simulator` — so that its
 * capture, refunds and look-ups reach the same account after the tenant's rails change.
 */
export function railRecordOf(choice: RailChoice<string> | null): string {
  return choice === null ? SIMULATOR_RAIL : `${choice.provider}:${choice.credentials}`;
}

/** The rails a recorded live rail stands for (that kind only), or null when it names no rail of that kind this code knows. */
export function railsOfRecord(kind: RailKind, record: string): LiveRails | null {
  const at = record.indexOf(':');
  if (at < 0) return null;
  const provider = record.slice(0, at);
  const credentials = record.slice(at + 1);
  if (!new RegExp(CREDENTIALS_NAME_PATTERN).test(credentials)) return null;
  const none: LiveRails = { card: null, pix: null, boleto: null };
  switch (kind) {
    case 'card': {
      const known = CARD_PROVIDERS.find((p) => p === provider);
      return known === undefined ? null : { ...none, card: { provider: known, credentials } };
    }
    case 'pix': {
      const known = PIX_PROVIDERS.find((p) => p === provider);
      return known === undefined ? null : { ...none, pix: { provider: known, credentials } };
    }
    case 'boleto': {
      const known = BOLETO_PROVIDERS.find((p) => p === provider);
      return known === undefined ? null : { ...none, boleto: { provider: known, credentials } };
    }
  }
}

/** The prefix of a credentials name's variables: `acme-br` → `LIVE_RAIL_ACME_BR_`. */
export function credentialsPrefix(credentials: string): string {
  if (!new RegExp(CREDENTIALS_NAME_PATTERN).test(credentials))
    throw new ConfigError(`credentials name must match ${CREDENTIALS_NAME_PATTERN}`);
  return `LIVE_RAIL_${credentials.toUpperCase().replace(/-/g, '_')}_`;
}

/** The environment as one adapter's reader expects it: only the credentials' variables, prefix removed. */
export function credentialsEnv(env: NodeJS.ProcessEnv, credentials: string): NodeJS.ProcessEnv {
  const prefix = credentialsPrefix(credentials);
  const scoped: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env))
    if (name.startsWith(prefix)) scoped[name.slice(prefix.length)] = value;
  return scoped;
}

/** Keeps the last four characters: enough to tell two accounts apart, too little to use one. */
export function mask(value: string): string {
  return value.length <= 4 ? '****' : `****${value.slice(-4)}`;
}

/** The non-secret settings of a rail as the operator API shows them, masked where they identify an account. */
export type RailSettings = Record<string, string>;

export interface CardRail {
  adapter: CardAcquirer;
  settings: RailSettings;
}
export interface PixRail {
  /** The port's Pix methods, and the account's own: webhook registration, the GET /pix poll, refunds. */
  adapter: BcbPixAdapter;
  /** Which client certificates stand for this account's PSP on our webhook; null: none, notifications refused. */
  notifierTrust: PixNotifierTrust | null;
  settings: RailSettings;
}
export interface BoletoRail {
  adapter: BoletoPort & { readonly code: string };
  /** The job's half of the rail: where remittances go and returns arrive. */
  exchange: { adapter: Cnab240BoletoAdapter; outbox: DropFolder; inbox: DropFolder };
  settings: RailSettings;
}

/** pino's shape (a Fastify logger fits). */
export interface RailLog {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}

/**
 * Builds the card adapter a choice names from the deployment's environment. Throws a ConfigError naming
 * the missing or bad variable (never a value) when the credentials are incomplete.
 */
export function buildCardRail(
  choice: RailChoice<CardProvider>,
  env: NodeJS.ProcessEnv,
  log: RailLog,
): CardRail {
  const config = cieloConfigFromEnv(credentialsEnv(env, choice.credentials));
  return {
    adapter: new CieloAdapter({ config, log }),
    settings: { api_url: config.apiUrl, merchant_id: mask(config.merchantId) },
  };
}

export function buildPixRail(
  choice: RailChoice<PixProvider>,
  env: NodeJS.ProcessEnv,
  log: RailLog,
): PixRail {
  const scoped = credentialsEnv(env, choice.credentials);
  const config = readBcbPixConfig(scoped);
  const notifierTrust = readPixNotifierTrust(scoped);
  return {
    notifierTrust,
    adapter: new BcbPixAdapter({
      config,
      log: {
        info: (message) => log.info({ rail: 'pix', credentials: choice.credentials }, message),
        warn: (message) => log.warn({ rail: 'pix', credentials: choice.credentials }, message),
      },
    }),
    settings: {
      base_url: config.baseUrl,
      client_id: mask(config.clientId),
      chave: mask(config.chave),
      webhook_client_auth: describeNotifierTrust(notifierTrust),
    },
  };
}

/** Where a bank account's CNAB 240 state is kept, by the account's rail record (`cnab240-bb:acme-bb`). */
export type Cnab240StoreFor = (account: string) => Cnab240Store;

/** A bank account's plain variables (the SFTP ones: SftpEnv, read only for an sftp:// folder). */
const Cnab240Env = Type.Object({
  CNAB240_CNPJ: Type.String(),
  CNAB240_COMPANY_NAME: Type.String(),
  CNAB240_AGENCY: Type.String(),
  CNAB240_AGENCY_DV: Type.String(),
  CNAB240_ACCOUNT: Type.String(),
  CNAB240_ACCOUNT_DV: Type.String(),
  CNAB240_AGREEMENT: Type.String(),
  CNAB240_WALLET: Type.String(),
  CNAB240_WALLET_VARIATION: Type.String(),
  CNAB240_STATE_FILE: Type.Optional(Type.String()),
});

/**
 * The boleto rail: Banco do Brasil's CNAB 240 profile, with its state and drop folders. Variables:
 * CNAB240_CNPJ, CNAB240_COMPANY_NAME, CNAB240_AGENCY(_DV), CNAB240_ACCOUNT(_DV), CNAB240_AGREEMENT,
 * CNAB240_WALLET, CNAB240_WALLET_VARIATION, the two drop folders (`dropFolderOf`), and CNAB240_STATE_FILE
 * unless the caller keeps the state (`storeFor`: a database shared by replicas).
 */
export function buildBoletoRail(
  choice: RailChoice<BoletoProvider>,
  env: NodeJS.ProcessEnv,
  clock: Cnab240Clock,
  storeFor?: Cnab240StoreFor,
): BoletoRail {
  const scoped = credentialsEnv(env, choice.credentials);
  const vars = readEnv(Cnab240Env, scoped);
  let profile;
  try {
    profile = bancoDoBrasilProfile({
      cnpj: vars.CNAB240_CNPJ,
      companyName: vars.CNAB240_COMPANY_NAME,
      agency: vars.CNAB240_AGENCY,
      agencyDv: vars.CNAB240_AGENCY_DV,
      account: vars.CNAB240_ACCOUNT,
      accountDv: vars.CNAB240_ACCOUNT_DV,
      agreement: vars.CNAB240_AGREEMENT,
      wallet: vars.CNAB240_WALLET,
      walletVariation: vars.CNAB240_WALLET_VARIATION,
    });
  } catch (error) {
    if (error instanceof RangeError) throw new ConfigError(`CNAB240_*: ${error.message}`);
    throw error;
  }
  let store: Cnab240Store;
  if (storeFor !== undefined) store = storeFor(railRecordOf(choice));
  else if (vars.CNAB240_STATE_FILE !== undefined)
    store = new FileCnab240Store(vars.CNAB240_STATE_FILE);
  else throw new ConfigError('CNAB240_STATE_FILE is required');
  const outbox = dropFolderOf(scoped, 'OUTBOX');
  const inbox = dropFolderOf(scoped, 'INBOX');
  const adapter = new Cnab240BoletoAdapter({ profile, store, clock });
  return {
    adapter,
    exchange: {
      adapter,
      outbox,
      inbox,
    },
    settings: {
      bank_code: profile.bankCode,
      agency: profile.beneficiary.agency,
      account: mask(profile.beneficiary.account),
      agreement: mask(profile.beneficiary.agreement),
    },
  };
}

/** One SFTP operation's deadline, connection included: a bank's server across the internet, a few KB a file. */
export const SFTP_TIMEOUT_MS_DEFAULT = 30_000;
const SFTP_TIMEOUT_MS_MAX = 300_000;

const SftpEnv = Type.Object({
  CNAB240_SFTP_HOST_KEY_SHA256: Type.String(),
  CNAB240_SFTP_PRIVATE_KEY_FILE: Type.String(),
  CNAB240_SFTP_TIMEOUT_MS: Type.Integer({
    minimum: 1,
    maximum: SFTP_TIMEOUT_MS_MAX,
    default: SFTP_TIMEOUT_MS_DEFAULT,
  }),
});

/**
 * A drop folder of the account: CNAB240_<SIDE>_DIR (a directory) or CNAB240_<SIDE>_URL
 * (`sftp://user@host:port/path`, the bank's server), exactly one. An SFTP folder authenticates with the
 * key in CNAB240_SFTP_PRIVATE_KEY_FILE and accepts only the server whose host key hashes to
 * CNAB240_SFTP_HOST_KEY_SHA256 (`SHA256:…`, as `ssh-keygen -lf` prints it): without it, no connection.
 * CNAB240_SFTP_TIMEOUT_MS bounds each operation (default 30000).
 */
function dropFolderOf(scoped: NodeJS.ProcessEnv, side: 'OUTBOX' | 'INBOX'): DropFolder {
  const dirVariable = `CNAB240_${side}_DIR`;
  const urlVariable = `CNAB240_${side}_URL`;
  const dir = scoped[dirVariable] ?? '';
  const url = scoped[urlVariable] ?? '';
  if ((dir === '') === (url === ''))
    throw new ConfigError(`exactly one of ${dirVariable} and ${urlVariable} is required`);
  if (dir !== '') return new LocalDropFolder(dir);
  let location;
  try {
    location = parseSftpUrl(url);
  } catch (error) {
    throw new ConfigError(`${urlVariable} ${(error as Error).message}`);
  }
  const sftp = readEnv(SftpEnv, scoped);
  try {
    return new SftpDropFolder({
      ...location,
      hostKeySha256: sftp.CNAB240_SFTP_HOST_KEY_SHA256,
      timeoutMs: sftp.CNAB240_SFTP_TIMEOUT_MS,
      privateKey: new Redacted(
        readSecretFileBytes('CNAB240_SFTP_PRIVATE_KEY_FILE', sftp.CNAB240_SFTP_PRIVATE_KEY_FILE),
      ),
    });
  } catch (error) {
    if (error instanceof RangeError)
      throw new ConfigError(`CNAB240_SFTP_HOST_KEY_SHA256: ${error.message}`);
    throw error;
  }
}

/** How long a built adapter is kept before the environment is read again (a rotated secret file takes effect). */
export const RAIL_CACHE_MS_DEFAULT = 300_000;

const RailCacheEnv = Type.Object({
  LIVE_RAIL_CACHE_MS: Type.Integer({ minimum: 0, default: RAIL_CACHE_MS_DEFAULT }),
});

export function railCacheMs(env: NodeJS.ProcessEnv): number {
  return readEnv(RailCacheEnv, env).LIVE_RAIL_CACHE_MS;
}
