import { KeyCache } from './key-cache';

/** A database stand-in that counts reads and answers each only when the test releases it. */
function store(keys: Record<string, { id: string }>) {
  const reads: string[] = [];
  const pending: Array<() => void> = [];
  return {
    reads,
    release: () => pending.splice(0).forEach((resolve) => resolve()),
    load: (key: string) =>
      new Promise<{ id: string } | null>((resolve) => {
        reads.push(key);
        pending.push(() => resolve(keys[key] ?? null));
      }),
  };
}

describe('KeyCache', () => {
  it('makes one read for concurrent misses of one key, and none for the hits after it', async () => {
    const db = store({ a: { id: 'key_a' } });
    const cache = new KeyCache({
      entriesMax: 10,
      unknownEntriesMax: 10,
      ttlMs: 500,
      nowMs: () => 1_000,
      load: db.load,
    });
    const both = Promise.all([cache.load('a'), cache.load('a')]);
    await Promise.resolve();
    db.release();
    expect(await both).toEqual([{ id: 'key_a' }, { id: 'key_a' }]);
    expect(await cache.load('a')).toEqual({ id: 'key_a' });
    expect(db.reads).toEqual(['a']);
  });

  it('makes one read for concurrent misses of an unknown secret, and remembers it apart from the keys', async () => {
    const db = store({});
    const cache = new KeyCache({
      entriesMax: 10,
      unknownEntriesMax: 10,
      ttlMs: 500,
      nowMs: () => 1_000,
      load: db.load,
    });
    const both = Promise.all([cache.load('nope'), cache.load('nope')]);
    await Promise.resolve();
    db.release();
    expect(await both).toEqual([null, null]);
    expect(await cache.load('nope')).toBeNull();
    expect(db.reads).toEqual(['nope']);
    expect(cache.size).toBe(0);
  });

  it('forgets an entry once it is more than ttlMs old, so a change in the database is seen within ttlMs', async () => {
    let nowMs = 1_000; // lru-cache takes a start of 0 for "no time to live"
    const keys: Record<string, { id: string }> = { a: { id: 'v1' } };
    const cache = new KeyCache({
      entriesMax: 10,
      unknownEntriesMax: 10,
      ttlMs: 500,
      nowMs: () => nowMs,
      load: async (k) => keys[k] ?? null,
    });
    expect(await cache.load('a')).toEqual({ id: 'v1' });
    keys.a = { id: 'v2' };
    nowMs = 1_500;
    expect(cache.get('a')).toEqual({ id: 'v1' });
    nowMs = 1_501;
    expect(cache.get('a')).toBeUndefined();
    expect(await cache.load('a')).toEqual({ id: 'v2' });
  });

  it('never holds more than entriesMax, dropping the least recently used', async () => {
    const reads: string[] = [];
    const cache = new KeyCache({
      entriesMax: 3,
      unknownEntriesMax: 3,
      ttlMs: 10_000,
      nowMs: () => 1_000,
      load: async (k) => {
        reads.push(k);
        return { id: k };
      },
    });
    for (const key of ['a', 'b', 'c']) await cache.load(key);
    expect(cache.get('a')).toEqual({ id: 'a' }); // a is now the most recent
    await cache.load('d');
    expect(cache.size).toBe(3);
    expect(cache.get('b')).toBeUndefined();
    expect([cache.get('a'), cache.get('c'), cache.get('d')]).toEqual([
      { id: 'a' },
      { id: 'c' },
      { id: 'd' },
    ]);
    for (let i = 0; i < 1000; i += 1) await cache.load(`k${i}`);
    expect(cache.size).toBe(3);
    expect(reads).toHaveLength(4 + 1000);
  });

  it('drops a key at once on delete (revocation)', async () => {
    let reads = 0;
    const cache = new KeyCache({
      entriesMax: 10,
      unknownEntriesMax: 10,
      ttlMs: 10_000,
      nowMs: () => 1_000,
      load: async () => ({ id: String(++reads) }),
    });
    await cache.load('a');
    cache.delete('a');
    expect(cache.get('a')).toBeUndefined();
    expect(await cache.load('a')).toEqual({ id: '2' });
  });
});
