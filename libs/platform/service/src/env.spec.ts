import { readEnv } from '@pgw/platform-http';
import { BusEnv, ServiceMainEnv } from './main';
import { ServicePlatformEnv } from './service';

describe("a service's variables", () => {
  it('main names every missing one at once, and defaults the rest as before', () => {
    expect(() => readEnv(ServiceMainEnv, { PORT: 'eighty' })).toThrow(
      'DATABASE_URL is required; PORT must be an integer, got eighty; KAFKA_BROKERS is required; SCHEMA_REGISTRY_URL is required',
    );
    expect(
      readEnv(ServiceMainEnv, {
        DATABASE_URL: 'postgres://db',
        KAFKA_BROKERS: 'k:9092',
        SCHEMA_REGISTRY_URL: 'http://r',
      }),
    ).toEqual({
      DATABASE_URL: 'postgres://db',
      DATABASE_NAMED_STATEMENTS: true,
      PORT: 8080,
      HOST: '0.0.0.0',
      KAFKA_BROKERS: 'k:9092',
      KAFKA_PARTITIONS: 3,
      KAFKA_REPLICATION_FACTOR: 1,
      KAFKA_MIN_INSYNC_REPLICAS: 1,
      KAFKA_CONSUMER_LINGER_MS: 20,
      SCHEMA_REGISTRY_URL: 'http://r',
    });
    // Off behind a pooler that cannot keep named statements (docs/runbook.md).
    expect(
      readEnv(ServiceMainEnv, {
        DATABASE_URL: 'postgres://db',
        DATABASE_NAMED_STATEMENTS: '0',
        KAFKA_BROKERS: 'k:9092',
        SCHEMA_REGISTRY_URL: 'http://r',
      }).DATABASE_NAMED_STATEMENTS,
    ).toBe(false);
    expect(Object.keys(BusEnv.properties).every((name) => name in ServiceMainEnv.properties)).toBe(
      true,
    );
  });

  it("startService's own: the dead-letter, retention and relay settings, each with its default", () => {
    expect(readEnv(ServicePlatformEnv, { OUTBOX_RETENTION_MS: '60000' })).toEqual({
      CONSUMER_POISON_ATTEMPTS: 5,
      CONSUMER_POISON_AFTER_MS: 30_000,
      BUS_RETENTION_INTERVAL_MS: 3_600_000,
      OUTBOX_RETENTION_MS: 60_000,
      INBOX_RETENTION_MS: 30 * 24 * 3_600_000,
      OUTBOX_POLL_INTERVAL_MS: 250,
      OUTBOX_LINGER_MS: 0,
    });
    expect(() =>
      readEnv(ServicePlatformEnv, {
        CONSUMER_POISON_ATTEMPTS: 'x',
        INBOX_RETENTION_MS: '1.5',
        OUTBOX_POLL_INTERVAL_MS: '5',
      }),
    ).toThrow(
      'CONSUMER_POISON_ATTEMPTS must be an integer, got x; OUTBOX_POLL_INTERVAL_MS must be at least 10, got 5; INBOX_RETENTION_MS must be an integer, got 1.5',
    );
  });
});
