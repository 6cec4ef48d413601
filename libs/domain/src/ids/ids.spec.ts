import {
  BASE62,
  ID_PATTERNS,
  ID_PREFIXES,
  isId,
  newId,
  randomString,
  rejectionBound,
  systemRandom,
  type RandomFill,
} from './ids';

describe('systemRandom', () => {
  it('hands each byte of its pool out once, across refills, and fills a request larger than the pool', () => {
    // 300 draws of 40 bytes span three refills of the 4 KiB pool; a draw that repeated bytes would repeat.
    const draws = Array.from({ length: 300 }, () =>
      Buffer.from(systemRandom(new Uint8Array(40))).toString('hex'),
    );
    expect(new Set(draws).size).toBe(draws.length);
    const large = systemRandom(new Uint8Array(10_000));
    expect(new Set(large).size).toBeGreaterThan(200);
  });
});

describe('newId', () => {
  it('is the prefix followed by 24 base62 characters and matches its api-v1 pattern', () => {
    for (const prefix of ID_PREFIXES) {
      const id = newId(prefix);
      expect(id.startsWith(prefix)).toBe(true);
      expect(id.slice(prefix.length)).toMatch(/^[A-Za-z0-9]{24}$/);
      expect(ID_PATTERNS[prefix].test(id)).toBe(true);
      expect(isId(prefix, id)).toBe(true);
    }
  });

  it('does not repeat, and uses the whole alphabet about evenly', () => {
    const ids = Array.from({ length: 5000 }, () => newId('ch_'));
    expect(new Set(ids).size).toBe(ids.length);
    const counts = new Map<string, number>();
    for (const id of ids) for (const c of id.slice(3)) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(62);
    // 120000 characters / 62 ≈ 1935 each; a bias like byte % 62 would push the first 8 to ≈ 2300.
    for (const n of counts.values()) {
      expect(n).toBeGreaterThan(1700);
      expect(n).toBeLessThan(2170);
    }
  });
});

describe('randomString', () => {
  it('keeps only bytes below a bound that is a multiple of the alphabet size, so each character has the same number of bytes', () => {
    for (const size of [2, 10, 16, 36, 62, 64, 200, 256]) {
      const bound = rejectionBound(size);
      expect(bound % size).toBe(0);
      expect(bound).toBeLessThanOrEqual(256);
      // No larger multiple fits in a byte: fewer than `size` of the 256 values are thrown away.
      expect(256 - bound).toBeLessThan(size);
    }
    expect(rejectionBound(62)).toBe(248);
    expect(rejectionBound(36)).toBe(252);
    expect(() => rejectionBound(1)).toThrow(RangeError);
    expect(() => rejectionBound(257)).toThrow(RangeError);
  });

  it('maps the bytes it keeps onto the alphabet evenly: each character from exactly bound / size byte values', () => {
    // Feeds the byte values 0, 1, …, 255 in order: the 248 kept give each character exactly 4 times (248 / 62).
    const everyByte: RandomFill = (bytes) => bytes.map((_, i) => i % 256);
    const counts = new Map<string, number>();
    for (const c of randomString(248, BASE62, everyByte)) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(62);
    expect(new Set(counts.values())).toEqual(new Set([4]));
  });

  it('throws away the bytes at or above the bound rather than folding them onto the first characters', () => {
    // 248..255 would be '0'..'7' under byte % 62; 61 is 'z'.
    const source: RandomFill = (bytes) => {
      bytes.fill(61);
      bytes.set([248, 249, 250, 251, 252, 253, 254, 255].slice(0, bytes.length));
      return bytes;
    };
    expect(randomString(3, BASE62, source)).toBe('zzz');
  });

  it('gives up with a broken invariant, never spins, on a source that returns only rejected bytes', () => {
    let calls = 0;
    const broken: RandomFill = (bytes) => {
      calls += 1;
      return bytes.fill(255);
    };
    expect(() => randomString(24, BASE62, broken)).toThrow('ids.random-source-uniform');
    expect(calls).toBe(16);
  });

  it('draws from the alphabet it is given, at the length asked', () => {
    expect(randomString(6, '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ')).toMatch(/^[0-9A-Z]{6}$/);
    expect(randomString(32)).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(randomString(0)).toBe('');
  });
});

describe('isId', () => {
  it('accepts only the right prefix followed by allowed characters', () => {
    expect(isId('ch_', 'ch_abc123')).toBe(true);
    expect(isId('ch_', 'rf_abc123')).toBe(false);
    expect(isId('ch_', 'ch_')).toBe(false);
    expect(isId('ch_', 'ch_abc-123')).toBe(false);
    expect(isId('ch_', 'ch_abc\n')).toBe(false);
    expect(isId('tok_', 'tok_abc-123_x')).toBe(true);
    expect(isId('req_', 'req_a-b_c')).toBe(true);
    expect(isId('seller_', 'seller_abc_1')).toBe(false);
    expect(isId('ch_', 'ch_' + 'a'.repeat(300))).toBe(false);
  });
});
