import { ApiError } from '@pgw/platform-http';
import { RateLimiter } from './rate-limiter';

function refusal(take: () => void): ApiError | null {
  try {
    take();
    return null;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
}

describe('RateLimiter', () => {
  it('lets a key spend its per-second budget, then answers 429 rate_limited with Retry-After in whole seconds', () => {
    let nowMs = 0;
    const limiter = new RateLimiter({ bucketsMax: 100, nowMs: () => nowMs });
    for (let i = 0; i < 5; i += 1) expect(refusal(() => limiter.take('key_a', 5))).toBeNull();
    const error = refusal(() => limiter.take('key_a', 5));
    expect(error?.code).toBe('rate_limited');
    expect(error?.status).toBe(429);
    expect(error?.type).toBe('rate_limit_error');
    expect(error?.headers['Retry-After']).toBe('1');
    nowMs = 200; // one token back at 5 per second
    expect(refusal(() => limiter.take('key_a', 5))).toBeNull();
    expect(refusal(() => limiter.take('key_a', 5))?.code).toBe('rate_limited');
  });

  it('keeps one bucket per key: one key spending its budget leaves another untouched', () => {
    const limiter = new RateLimiter({ bucketsMax: 100, nowMs: () => 0 });
    expect(refusal(() => limiter.take('key_busy', 1))).toBeNull();
    expect(refusal(() => limiter.take('key_busy', 1))?.code).toBe('rate_limited');
    expect(refusal(() => limiter.take('key_other', 1))).toBeNull();
  });

  it('does not let refused requests dig the bucket deeper: a token earned is a request served', () => {
    let nowMs = 0;
    const limiter = new RateLimiter({ bucketsMax: 100, nowMs: () => nowMs });
    limiter.take('key_a', 2);
    limiter.take('key_a', 2);
    for (let i = 0; i < 50; i += 1)
      expect(refusal(() => limiter.take('key_a', 2))?.code).toBe('rate_limited');
    nowMs = 500;
    expect(refusal(() => limiter.take('key_a', 2))).toBeNull();
  });

  it('bounds its memory: beyond bucketsMax the least recently used bucket goes', () => {
    const limiter = new RateLimiter({ bucketsMax: 2, nowMs: () => 0 });
    limiter.take('a', 1);
    limiter.take('b', 1);
    limiter.take('c', 1); // evicts a
    expect(refusal(() => limiter.take('a', 1))).toBeNull();
    expect(refusal(() => limiter.take('c', 1))?.code).toBe('rate_limited');
  });
});
