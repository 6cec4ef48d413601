import { ID_PATTERNS, ID_PREFIXES, isId, newId } from './ids';

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
