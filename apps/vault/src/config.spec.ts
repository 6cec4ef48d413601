import { randomBytes } from 'node:crypto';
import { ConfigError } from '@pgw/platform-http';
import { Keyring } from '@pgw/vault-domain/keyring';
import { vaultKeysFromEnv } from './config';
import { Redacted } from '@pgw/domain';

describe('vault keys from the environment', () => {
  const b64 = (n: number) => randomBytes(n).toString('base64');
  const env = () => ({
    VAULT_KEK: b64(32),
    VAULT_KEK_ID: 'kek-2026-03',
    VAULT_FINGERPRINT_KEY: b64(32),
  });

  it('reads the active KEK, its id, retired KEKs and the fingerprint key', () => {
    const retired = b64(32);
    const keys = vaultKeysFromEnv({ ...env(), VAULT_KEKS_RETIRED: `kek-2025-01:${retired}` });
    expect(keys.keyring.activeKekId).toBe('kek-2026-03');
    expect(keys.fingerprintKey.expose()).toHaveLength(32);
    const sealedUnderRetired = new Keyring({
      id: 'kek-2025-01',
      key: new Redacted(Buffer.from(retired, 'base64')),
    }).seal(Buffer.from('x'), 'a');
    expect(keys.keyring.open(sealedUnderRetired, 'a').toString()).toBe('x');
  });

  it('has no default for any key and refuses malformed ones', () => {
    for (const name of ['VAULT_KEK', 'VAULT_KEK_ID', 'VAULT_FINGERPRINT_KEY']) {
      expect(() => vaultKeysFromEnv({ ...env(), [name]: undefined })).toThrow(ConfigError);
    }
    expect(() => vaultKeysFromEnv({})).toThrow(
      'VAULT_KEK is required; VAULT_KEK_ID is required; VAULT_FINGERPRINT_KEY is required',
    );
    expect(() => vaultKeysFromEnv({ ...env(), VAULT_KEK: b64(16) })).toThrow(/32 bytes/);
    expect(() => vaultKeysFromEnv({ ...env(), VAULT_KEK: '%%not-base64%%' })).toThrow(/base64/);
    expect(() => vaultKeysFromEnv({ ...env(), VAULT_FINGERPRINT_KEY: b64(16) })).toThrow(
      ConfigError,
    );
    expect(() => vaultKeysFromEnv({ ...env(), VAULT_KEK_ID: 'has space' })).toThrow(ConfigError);
    expect(() => vaultKeysFromEnv({ ...env(), VAULT_KEKS_RETIRED: 'nocolon' })).toThrow(
      ConfigError,
    );
    expect(() =>
      vaultKeysFromEnv({ ...env(), VAULT_KEKS_RETIRED: `kek-2026-03:${b64(32)}` }),
    ).toThrow(/twice/);
  });
});
