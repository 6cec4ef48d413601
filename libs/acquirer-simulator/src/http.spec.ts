import { simId } from './http';

describe('simId', () => {
  it('is the prefix and 24 base62 characters (or as many as asked), never repeated', () => {
    for (const prefix of ['card_', 'txn_', 'rfd_'] as const) {
      const ids = Array.from({ length: 100 }, () => simId(prefix));
      for (const id of ids) expect(id).toMatch(new RegExp(`^${prefix}[A-Za-z0-9]{24}$`));
      expect(new Set(ids).size).toBe(ids.length);
    }
    expect(simId('', 35)).toMatch(/^[A-Za-z0-9]{35}$/);
  });
});
