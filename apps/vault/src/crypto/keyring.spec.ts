import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { ConfigError } from '@pgw/platform-http';
import { vaultKeysFromEnv } from '../config';
import { Keyring } from './keyring';
import { Secret } from './secret';

const kek = (id: string) => ({ id, key: new Secret(randomBytes(32)) });

describe('Keyring: AES-256-GCM under a per-row data key wrapped by the KEK', () => {
  it('opens what it sealed, and the sealed bytes do not contain the plaintext', () => {
    const keyring = new Keyring(kek('k1'));
    const plaintext = Buffer.from('{"line_1":"Rua Augusta 1500"}');
    const sealed = keyring.seal(plaintext, 'tok|1');
    expect(sealed.kekId).toBe('k1');
    expect(sealed.wrappedKey.length).toBe(1 + 12 + 32 + 16);
    expect(sealed.ciphertext.includes(Buffer.from('Augusta'))).toBe(false);
    expect(keyring.open(sealed, 'tok|1').toString()).toBe(plaintext.toString());
  });

  it('uses a fresh data key and IV per row: the same plaintext seals differently', () => {
    const keyring = new Keyring(kek('k1'));
    const a = keyring.seal(Buffer.from('same'), 'tok|1');
    const b = keyring.seal(Buffer.from('same'), 'tok|1');
    expect(a.wrappedKey.equals(b.wrappedKey)).toBe(false);
    expect(a.ciphertext.equals(b.ciphertext)).toBe(false);
  });

  it('refuses a flipped bit, another row\'s AAD and an unknown KEK id', () => {
    const keyring = new Keyring(kek('k1'));
    const sealed = keyring.seal(Buffer.from('data'), 'tok|1');
    const flipped = Buffer.from(sealed.ciphertext);
    flipped[flipped.length - 20] = (flipped[flipped.length - 20] ?? 0) ^ 1;
    expect(() => keyring.open({ ...sealed, ciphertext: flipped }, 'tok|1')).toThrow();
    expect(() => keyring.open(sealed, 'tok|2')).toThrow();
    expect(() => keyring.open({ ...sealed, kekId: 'k9' }, 'tok|1')).toThrow(/no KEK with id k9/);
    expect(() => new Keyring(kek('k2')).open(sealed, 'tok|1')).toThrow(/no KEK with id k1/);
  });

  it('rotates: after k1 → k2, rows sealed under k1 still open, and rewrap moves them to k2 without touching the data', () => {
    const k1 = kek('k1');
    const old = new Keyring(k1).seal(Buffer.from('billing'), 'tok|1');
    const rotated = new Keyring(kek('k2'), [k1]);
    expect(rotated.open(old, 'tok|1').toString()).toBe('billing');
    expect(rotated.seal(Buffer.from('x'), 'tok|2').kekId).toBe('k2');
    const moved = rotated.rewrap(old, 'tok|1');
    expect(moved.kekId).toBe('k2');
    expect(moved.ciphertext.equals(old.ciphertext)).toBe(true);
    expect(rotated.open(moved, 'tok|1').toString()).toBe('billing');
  });

  it('never prints key material or card data held in a Secret', () => {
    const secret = new Secret('4111111111111111');
    expect(JSON.stringify({ secret })).not.toContain('4111');
    expect(inspect({ secret })).not.toContain('4111');
    expect(`${secret}`).not.toContain('4111');
    expect(secret.expose()).toBe('4111111111111111');
  });
});

describe('vault keys from the environment', () => {
  const b64 = (n: number) => randomBytes(n).toString('base64');
  const env = () => ({ VAULT_KEK: b64(32), VAULT_KEK_ID: 'kek-2026-03', VAULT_FINGERPRINT_KEY: b64(32) });

  it('reads the active KEK, its id, retired KEKs and the fingerprint key', () => {
    const retired = b64(32);
    const keys = vaultKeysFromEnv({ ...env(), VAULT_KEKS_RETIRED: `kek-2025-01:${retired}` });
    expect(keys.keyring.activeKekId).toBe('kek-2026-03');
    expect(keys.fingerprintKey.expose()).toHaveLength(32);
    const sealedUnderRetired = new Keyring({ id: 'kek-2025-01', key: new Secret(Buffer.from(retired, 'base64')) }).seal(Buffer.from('x'), 'a');
    expect(keys.keyring.open(sealedUnderRetired, 'a').toString()).toBe('x');
  });

  it('has no default for any key and refuses malformed ones', () => {
    for (const name of ['VAULT_KEK', 'VAULT_KEK_ID', 'VAULT_FINGERPRINT_KEY']) {
      expect(() => vaultKeysFromEnv({ ...env(), [name]: undefined })).toThrow(ConfigError);
    }
    expect(() => vaultKeysFromEnv({ ...env(), VAULT_KEK: b64(16) })).toThrow(/32 bytes/);
    expect(() => vaultKeysFromEnv({ ...env(), VAULT_KEK: '%%not-base64%%' })).toThrow(/base64/);
    expect(() => vaultKeysFromEnv({ ...env(), VAULT_FINGERPRINT_KEY: b64(16) })).toThrow(ConfigError);
    expect(() => vaultKeysFromEnv({ ...env(), VAULT_KEK_ID: 'has space' })).toThrow(ConfigError);
    expect(() => vaultKeysFromEnv({ ...env(), VAULT_KEKS_RETIRED: 'nocolon' })).toThrow(ConfigError);
    expect(() => vaultKeysFromEnv({ ...env(), VAULT_KEKS_RETIRED: `kek-2026-03:${b64(32)}` })).toThrow(/twice/);
  });
});
