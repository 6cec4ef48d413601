import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { Keyring } from './keyring';
import { Redacted } from '@pgw/domain';

const kek = (id: string) => ({ id, key: new Redacted(randomBytes(32)) });

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

  it("refuses a flipped bit, another row's AAD and an unknown KEK id", () => {
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

  it('never prints key material or card data held in a Redacted', () => {
    const secret = new Redacted('4111111111111111');
    expect(JSON.stringify({ secret })).not.toContain('4111');
    expect(inspect({ secret })).not.toContain('4111');
    expect(`${secret}`).not.toContain('4111');
    expect(secret.expose()).toBe('4111111111111111');
  });
});
