// A bounded LRU with a time to live, for API key lookups. Every replica keeps its own; the TTL bounds how
// long a replica may go on trusting what it read, so a revocation committed in the database is seen by
// every replica within ttlMs (plus one lookup), without any message between replicas.

export interface TtlCacheOptions {
  entriesMax: number;
  ttlMs: number;
  /** Monotonic milliseconds; tests pass their own. */
  nowMs?: () => number;
}

interface Entry<V> {
  value: V;
  loadedAtMs: number;
}

export class TtlLruCache<K, V> {
  // A Map keeps insertion order: the first key is the least recently used.
  private readonly entries = new Map<K, Entry<V>>();
  private readonly nowMs: () => number;

  constructor(private readonly options: TtlCacheOptions) {
    if (!(options.entriesMax >= 1)) throw new Error('TtlLruCache: entriesMax must be at least 1');
    if (!(options.ttlMs >= 0)) throw new Error('TtlLruCache: ttlMs must not be negative');
    this.nowMs = options.nowMs ?? (() => performance.now());
  }

  get size(): number {
    return this.entries.size;
  }

  /** The fresh value for `key`, or undefined when absent or older than ttlMs. */
  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (this.nowMs() - entry.loadedAtMs >= this.options.ttlMs) {
      this.entries.delete(key);
      return undefined;
    }
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, { value, loadedAtMs: this.nowMs() });
    while (this.entries.size > this.options.entriesMax) {
      const oldest = this.entries.keys().next();
      if (oldest.done === true) break;
      this.entries.delete(oldest.value);
    }
  }

  delete(key: K): void {
    this.entries.delete(key);
  }
}
