import { LRUCache } from 'lru-cache';

// API key lookups kept per replica, bounded in entries and in time (lru-cache). Every replica keeps its own;
// the TTL bounds how long a replica may go on trusting what it read, so a revocation committed in the
// database is seen by every replica within ttlMs (plus one lookup), without any message between replicas.

export interface KeyCacheOptions<V> {
  /** Keys that exist. Only these: a flood of unknown secrets cannot evict them. */
  entriesMax: number;
  /** Secrets that are no key, kept apart and as long, so that repeating one does not reach the database. */
  unknownEntriesMax: number;
  ttlMs: number;
  /** Reads the key from the database; null when there is none. */
  load(key: string): Promise<V | null>;
  /** Monotonic milliseconds; tests pass their own. */
  nowMs?: () => number;
}

export class KeyCache<V extends object> {
  private readonly found: LRUCache<string, V>;
  private readonly unknown: LRUCache<string, true>;

  constructor(options: KeyCacheOptions<V>) {
    if (!(options.entriesMax >= 1) || !(options.unknownEntriesMax >= 1))
      throw new Error('KeyCache: entriesMax must be at least 1');
    if (!(options.ttlMs >= 1)) throw new Error('KeyCache: ttlMs must be at least 1');
    // ttlResolution 0: the clock is read at every check, not once per millisecond.
    const clock =
      options.nowMs === undefined
        ? { ttlResolution: 0 }
        : { ttlResolution: 0, perf: { now: options.nowMs } };
    this.unknown = new LRUCache<string, true>({
      max: options.unknownEntriesMax,
      ttl: options.ttlMs,
      ...clock,
    });
    this.found = new LRUCache<string, V>({
      max: options.entriesMax,
      ttl: options.ttlMs,
      ...clock,
      // Concurrent misses for one key share this one load (lru-cache keeps the pending fetch).
      fetchMethod: async (key) => {
        const value = await options.load(key);
        if (value !== null) return value;
        this.unknown.set(key, true);
        return undefined; // nothing kept among the keys
      },
    });
  }

  get size(): number {
    return this.found.size;
  }

  /** The fresh key held for `key`, with no lookup; undefined when absent or more than ttlMs old. */
  get(key: string): V | undefined {
    return this.found.get(key);
  }

  /** The key from the cache, else from one lookup shared by every concurrent caller; null when there is none. */
  async load(key: string): Promise<V | null> {
    const held = this.found.get(key);
    if (held !== undefined) return held;
    if (this.unknown.get(key) !== undefined) return null;
    return (await this.found.fetch(key)) ?? null;
  }

  /** Drops this replica's copy at once (revocation), and any lookup of it in flight. */
  delete(key: string): void {
    this.found.delete(key);
    this.unknown.delete(key);
  }
}
