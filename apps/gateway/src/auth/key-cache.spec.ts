import { TtlLruCache } from './key-cache';

describe('TtlLruCache', () => {
  it('forgets an entry once it is ttlMs old, so a change in the database is seen within ttlMs', () => {
    let nowMs = 0;
    const cache = new TtlLruCache<string, number>({ entriesMax: 10, ttlMs: 500, nowMs: () => nowMs });
    cache.set('a', 1);
    nowMs = 499;
    expect(cache.get('a')).toBe(1);
    nowMs = 500;
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('never holds more than entriesMax, dropping the least recently used', () => {
    const cache = new TtlLruCache<string, number>({ entriesMax: 3, ttlMs: 10_000, nowMs: () => 0 });
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('c', 3);
    expect(cache.get('a')).toBe(1); // a is now the most recent
    cache.set('d', 4);
    expect(cache.size).toBe(3);
    expect(cache.get('b')).toBeUndefined();
    expect([cache.get('a'), cache.get('c'), cache.get('d')]).toEqual([1, 3, 4]);
    for (let i = 0; i < 1000; i += 1) cache.set(`k${i}`, i);
    expect(cache.size).toBe(3);
  });
});
