import { readEnv } from '@pgw/platform-http';
import { GatewayEnv, GatewayMainEnv, gatewaySettings } from './service';

describe("the gateway's variables", () => {
  it('defaults each as before, and names every one below 1 at once', () => {
    expect(readEnv(GatewayEnv, {})).toEqual({
      RATE_LIMIT_PER_SECOND: 100,
      UPSTREAM_TIMEOUT_MS: 30_000,
      UPSTREAM_IN_FLIGHT_MAX: 64,
      UPSTREAM_LATENCY_TARGET_MS: 100,
      AUTH_FAILURES_PER_SECOND: 10,
      TRUSTED_PROXIES: '',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: false,
    });
    expect(() =>
      readEnv(GatewayEnv, { RATE_LIMIT_PER_SECOND: '0', AUTH_FAILURES_PER_SECOND: '-1' }),
    ).toThrow(
      'RATE_LIMIT_PER_SECOND must be at least 1, got 0; AUTH_FAILURES_PER_SECOND must be at least 1, got -1',
    );
  });

  it('reads TRUSTED_PROXIES and WEBHOOK_ALLOW_PRIVATE_TARGETS with the rest, and refuses what they cannot mean', () => {
    // Proves the whole of the gateway's own configuration is one read: a typo in either stops the start.
    expect(
      gatewaySettings({
        TRUSTED_PROXIES: '10.0.0.0/8, loopback',
        WEBHOOK_ALLOW_PRIVATE_TARGETS: '1',
      }),
    ).toMatchObject({
      trustedProxies: ['10.0.0.0/8', 'loopback'],
      WEBHOOK_ALLOW_PRIVATE_TARGETS: true,
    });
    expect(() => gatewaySettings({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'yes' })).toThrow(
      'WEBHOOK_ALLOW_PRIVATE_TARGETS must be 1 or 0, got yes',
    );
    expect(() => gatewaySettings({ TRUSTED_PROXIES: 'lb.internal' })).toThrow(/TRUSTED_PROXIES/);
  });

  it("main reads the database, the bus, the listener and the two secrets in one schema, naming every one missing or short, never a secret's value", () => {
    const base = {
      DATABASE_URL: 'postgres://x',
      KAFKA_BROKERS: '127.0.0.1:9092',
      SCHEMA_REGISTRY_URL: 'http://127.0.0.1:8081',
    };
    expect(() => readEnv(GatewayMainEnv, base)).toThrow(
      'PRINCIPAL_PRIVATE_KEY is required; ADMIN_TOKEN is required',
    );
    let message = '';
    try {
      readEnv(GatewayMainEnv, { ...base, PRINCIPAL_PRIVATE_KEY: 'pem', ADMIN_TOKEN: 'too-short' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toBe('ADMIN_TOKEN must have at least 16 characters');
    expect(
      readEnv(GatewayMainEnv, {
        ...base,
        PRINCIPAL_PRIVATE_KEY: 'pem',
        ADMIN_TOKEN: 'a'.repeat(16),
      }),
    ).toMatchObject({ PORT: 8080, HOST: '0.0.0.0', ADMIN_TOKEN: 'a'.repeat(16) });
  });
});
