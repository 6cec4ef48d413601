import { readEnv } from '@pgw/platform-http';
import { GatewayEnv } from './service';

describe("the gateway's variables", () => {
  it('defaults each as before, and names every one below 1 at once', () => {
    expect(readEnv(GatewayEnv, {})).toEqual({
      RATE_LIMIT_PER_SECOND: 100,
      UPSTREAM_TIMEOUT_MS: 30_000,
      UPSTREAM_IN_FLIGHT_MAX: 64,
      UPSTREAM_LATENCY_TARGET_MS: 100,
      AUTH_FAILURES_PER_SECOND: 10,
    });
    expect(() =>
      readEnv(GatewayEnv, { RATE_LIMIT_PER_SECOND: '0', AUTH_FAILURES_PER_SECOND: '-1' }),
    ).toThrow(
      'RATE_LIMIT_PER_SECOND must be at least 1, got 0; AUTH_FAILURES_PER_SECOND must be at least 1, got -1',
    );
  });
});
