import { ApiError } from '@pgw/platform-http';

// Token bucket per API key (or, for failed authentications, per client address), in this replica's memory. With N replicas behind a load balancer a key gets
// up to N × its limit in total: the limit protects each replica, not a global quota. A shared store
// (Redis, PostgreSQL) would make it global at the cost of a round trip per request; not needed yet.
//
// A bucket holds at most one second of tokens (the burst) and refills continuously. The map of buckets
// is bounded: when full, the least recently used bucket is dropped, which only ever forgives a key.

export interface RateLimiterOptions {
  bucketsMax: number;
  /** The message of the 429 (what is limited); by default, requests per API key. */
  message?: string;
  /** Monotonic milliseconds; tests pass their own. */
  nowMs?: () => number;
}

interface Bucket {
  tokens: number;
  updatedAtMs: number;
  ratePerSecond: number;
}

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly nowMs: () => number;

  constructor(private readonly options: RateLimiterOptions) {
    if (!(options.bucketsMax >= 1)) throw new Error('RateLimiter: bucketsMax must be at least 1');
    this.nowMs = options.nowMs ?? (() => performance.now());
  }

  /** Takes one token from the key's bucket, or throws 429 rate_limited with Retry-After in seconds. */
  take(keyId: string, ratePerSecond: number): void {
    const bucket = this.refill(keyId, ratePerSecond);
    if (bucket.tokens < 1) throw this.refusal(bucket);
    bucket.tokens -= 1;
  }

  /** Throws 429 rate_limited, as take does, when the key's bucket is empty; takes nothing. */
  check(keyId: string, ratePerSecond: number): void {
    const bucket = this.refill(keyId, ratePerSecond);
    if (bucket.tokens < 1) throw this.refusal(bucket);
  }

  /** The key's bucket, refilled up to now and made the most recently used. */
  private refill(keyId: string, ratePerSecond: number): Bucket {
    if (!(ratePerSecond > 0)) throw new Error('RateLimiter: ratePerSecond must be positive');
    const nowMs = this.nowMs();
    let bucket = this.buckets.get(keyId);
    if (bucket === undefined) {
      bucket = { tokens: ratePerSecond, updatedAtMs: nowMs, ratePerSecond };
    } else {
      this.buckets.delete(keyId);
      const elapsedMs = Math.max(0, nowMs - bucket.updatedAtMs);
      // A changed limit applies from now on; the bucket never holds more than one second's worth.
      bucket.ratePerSecond = ratePerSecond;
      bucket.tokens = Math.min(ratePerSecond, bucket.tokens + (elapsedMs * ratePerSecond) / 1000);
      bucket.updatedAtMs = nowMs;
    }
    this.buckets.set(keyId, bucket);
    this.evict();
    return bucket;
  }

  private refusal(bucket: Bucket): ApiError {
    const waitMs = ((1 - bucket.tokens) * 1000) / bucket.ratePerSecond;
    const retryAfterSeconds = Math.max(1, Math.ceil(waitMs / 1000));
    return new ApiError(
      'rate_limited',
      this.options.message ??
        'Too many requests for this API key; retry after the time in Retry-After.',
      null,
      {
        'Retry-After': String(retryAfterSeconds),
      },
    );
  }

  private evict(): void {
    while (this.buckets.size > this.options.bucketsMax) {
      const oldest = this.buckets.keys().next();
      if (oldest.done === true) break;
      this.buckets.delete(oldest.value);
    }
  }
}
