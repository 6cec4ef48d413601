import { randomBytes } from 'node:crypto';
import type { Db } from '@pgw/platform-db';
import { Type } from '@sinclair/typebox';
import { ConfigError, readEnv } from '@pgw/platform-http';
import { Keyring, KEK_ID_PATTERN, KEY_BYTES, type Kek } from '@pgw/vault-domain/keyring';
import { Redacted } from '@pgw/domain';

export interface VaultKeys {
  keyring: Keyring;
  /** HMAC-SHA256 key of card fingerprints. Changing it changes every fingerprint: it is not rotated. */
  fingerprintKey: Redacted<Buffer>;
  /** Where the keys came from, for the boot log line (never the keys). */
  source: 'environment' | 'local';
}

const FINGERPRINT_KEY_BYTES_MIN = 32;
const KEY_VARIABLES = ['VAULT_KEK', 'VAULT_KEK_ID', 'VAULT_FINGERPRINT_KEY'] as const;

/** The vault's key variables (their format is checked by vaultKeysFromEnv). */
export const VaultKeysEnv = Type.Object({
  VAULT_KEK: Type.String(),
  VAULT_KEK_ID: Type.String(),
  VAULT_KEKS_RETIRED: Type.String({ default: '' }),
  VAULT_FINGERPRINT_KEY: Type.String(),
});

function base64Key(
  name: string,
  value: string,
  minBytes: number,
  maxBytes: number,
): Redacted<Buffer> {
  const bytes = Buffer.from(value, 'base64');
  // Buffer.from skips characters that are not base64: re-encoding tells a typo from a key.
  if (bytes.toString('base64').replace(/=+$/, '') !== value.trim().replace(/=+$/, ''))
    throw new ConfigError(`${name} is not valid base64`);
  if (bytes.length < minBytes || bytes.length > maxBytes) {
    throw new ConfigError(
      minBytes === maxBytes
        ? `${name} must be ${minBytes} bytes (base64)`
        : `${name} must be ${minBytes} to ${maxBytes} bytes (base64)`,
    );
  }
  return new Redacted(bytes);
}

function kekId(name: string, id: string): string {
  if (!KEK_ID_PATTERN.test(id))
    throw new ConfigError(`${name}: key id ${JSON.stringify(id)} must match ${KEK_ID_PATTERN}`);
  return id;
}

/**
 * The vault's keys from the environment; no defaults (a secret with a default is no secret):
 * - `VAULT_KEK`: the active key-encryption key, 32 bytes base64; `VAULT_KEK_ID`: its id, stored on each row.
 * - `VAULT_KEKS_RETIRED`: optional `id:base64,id:base64` of earlier KEKs, kept so old rows still open.
 * - `VAULT_FINGERPRINT_KEY`: HMAC key of card fingerprints, at least 32 bytes base64.
 */
export function vaultKeysFromEnv(env: NodeJS.ProcessEnv): VaultKeys {
  // Every missing key named at once; the values are never in a message.
  const vars = readEnv(VaultKeysEnv, env);
  const active: Kek = {
    id: kekId('VAULT_KEK_ID', vars.VAULT_KEK_ID),
    key: base64Key('VAULT_KEK', vars.VAULT_KEK, KEY_BYTES, KEY_BYTES),
  };
  const retired: Kek[] = [];
  for (const entry of vars.VAULT_KEKS_RETIRED.split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '')) {
    const colon = entry.indexOf(':');
    if (colon <= 0) throw new ConfigError('VAULT_KEKS_RETIRED must be a list of id:base64');
    retired.push({
      id: kekId('VAULT_KEKS_RETIRED', entry.slice(0, colon)),
      key: base64Key('VAULT_KEKS_RETIRED', entry.slice(colon + 1), KEY_BYTES, KEY_BYTES),
    });
  }
  let keyring: Keyring;
  try {
    keyring = new Keyring(active, retired);
  } catch (error) {
    throw new ConfigError(error instanceof Error ? error.message : String(error));
  }
  return {
    keyring,
    fingerprintKey: base64Key(
      'VAULT_FINGERPRINT_KEY',
      vars.VAULT_FINGERPRINT_KEY,
      FINGERPRINT_KEY_BYTES_MIN,
      64,
    ),
    source: 'environment',
  };
}

/**
 * The all-in-one's keys: from the environment when it sets them; otherwise random keys made on first
 * start and kept in the vault's own schema of the embedded database, so they live and die with DATA_DIR
 * (fingerprints stay stable across restarts). Keys beside the data they protect guard nothing against
 * someone holding DATA_DIR: this is for the local test mode only. The distributed main never calls it.
 */
export async function vaultKeysForAllInOne(env: NodeJS.ProcessEnv, db: Db): Promise<VaultKeys> {
  const given = KEY_VARIABLES.filter((name) => env[name] !== undefined && env[name] !== '');
  if (given.length > 0) return vaultKeysFromEnv(env);
  const rows = await db.tx(async (trx) => {
    await trx('local_keys')
      .insert([
        { name: 'kek', key_id: 'local-1', material: randomBytes(KEY_BYTES) },
        { name: 'fingerprint', key_id: null, material: randomBytes(KEY_BYTES) },
      ])
      .onConflict('name')
      .ignore();
    return trx('local_keys').select<
      Array<{ name: string; key_id: string | null; material: Buffer | Uint8Array }>
    >('name', 'key_id', 'material');
  });
  const kek = rows.find((r) => r.name === 'kek');
  const fp = rows.find((r) => r.name === 'fingerprint');
  if (kek === undefined || kek.key_id === null || fp === undefined)
    throw new Error('local_keys is incomplete');
  return {
    keyring: new Keyring({ id: kek.key_id, key: new Redacted(Buffer.from(kek.material)) }),
    fingerprintKey: new Redacted(Buffer.from(fp.material)),
    source: 'local',
  };
}
