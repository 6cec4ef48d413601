import { assert, Redacted } from '@pgw/domain';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

// Envelope encryption of what the vault keeps besides the card's public facts (billing address,
// metadata). Each row gets its own random 256-bit data key (DEK); the data is sealed with AES-256-GCM
// under the DEK, and the DEK is wrapped with AES-256-GCM under the key-encryption key (KEK) from
// configuration. The row stores the KEK's id, so a rotated KEK still opens old rows while new rows use the
// new one, and re-wrapping a row touches only its 61-byte wrapped key, never the data.
//
// Layout of both blobs: version (1 byte, 0x01) | IV (12) | ciphertext | GCM tag (16). The data's
// additional authenticated data (AAD) names the row (token id, tenant, livemode), so a sealed blob copied
// to another row does not open; the DEK's AAD adds the KEK id.

export const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const FORMAT_V1 = 0x01;
export const KEK_ID_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;

export interface Kek {
  id: string;
  key: Redacted<Buffer>;
}

export interface Sealed {
  kekId: string;
  wrappedKey: Buffer;
  ciphertext: Buffer;
}

function encrypt(key: Buffer, plaintext: Buffer, aad: string): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([Buffer.from([FORMAT_V1]), iv, body, cipher.getAuthTag()]);
}

function decrypt(key: Buffer, blob: Buffer, aad: string): Buffer {
  const known = blob.length >= 1 + IV_BYTES + TAG_BYTES && blob[0] === FORMAT_V1;
  assert(known, 'vault.sealed-blob-format-known', { length: blob.length });
  const iv = blob.subarray(1, 1 + IV_BYTES);
  const tag = blob.subarray(blob.length - TAG_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', key, iv);
  decipher.setAAD(Buffer.from(aad, 'utf8'));
  decipher.setAuthTag(tag);
  // A wrong key, AAD or a flipped bit fails the tag check here: final() throws.
  return Buffer.concat([
    decipher.update(blob.subarray(1 + IV_BYTES, blob.length - TAG_BYTES)),
    decipher.final(),
  ]);
}

const wrapAad = (kekId: string, aad: string) => `dek|${kekId}|${aad}`;

export class Keyring {
  private readonly keys = new Map<string, Buffer>();

  /** `active` wraps every new data key; `retired` keys only unwrap what they wrapped before a rotation. */
  constructor(
    private readonly active: Kek,
    retired: Kek[] = [],
  ) {
    for (const kek of [active, ...retired]) {
      if (!KEK_ID_PATTERN.test(kek.id))
        throw new RangeError(`KEK id ${kek.id} must match ${KEK_ID_PATTERN}`);
      if (kek.key.expose().length !== KEY_BYTES)
        throw new RangeError(`KEK ${kek.id} must be ${KEY_BYTES} bytes`);
      if (this.keys.has(kek.id)) throw new RangeError(`KEK id ${kek.id} is listed twice`);
      this.keys.set(kek.id, kek.key.expose());
    }
  }

  get activeKekId(): string {
    return this.active.id;
  }

  seal(plaintext: Buffer, aad: string): Sealed {
    const dek = randomBytes(KEY_BYTES);
    try {
      return {
        kekId: this.active.id,
        wrappedKey: encrypt(this.active.key.expose(), dek, wrapAad(this.active.id, aad)),
        ciphertext: encrypt(dek, plaintext, aad),
      };
    } finally {
      dek.fill(0);
    }
  }

  open(sealed: Sealed, aad: string): Buffer {
    const dek = this.unwrap(sealed, aad);
    try {
      return decrypt(dek, sealed.ciphertext, aad);
    } finally {
      dek.fill(0);
    }
  }

  /** The same data key wrapped under the active KEK; the data itself is not touched. */
  rewrap(sealed: Sealed, aad: string): Sealed {
    if (sealed.kekId === this.active.id) return sealed;
    const dek = this.unwrap(sealed, aad);
    try {
      return {
        kekId: this.active.id,
        wrappedKey: encrypt(this.active.key.expose(), dek, wrapAad(this.active.id, aad)),
        ciphertext: sealed.ciphertext,
      };
    } finally {
      dek.fill(0);
    }
  }

  private unwrap(sealed: Sealed, aad: string): Buffer {
    const kek = this.keys.get(sealed.kekId);
    if (kek === undefined)
      throw new Error(
        `no KEK with id ${sealed.kekId} is configured (add it to VAULT_KEKS_RETIRED)`,
      );
    return decrypt(kek, sealed.wrappedKey, wrapAad(sealed.kekId, aad));
  }
}
