import { chooseServers } from './integration-servers';

describe('where the integration suites find PostgreSQL and Kafka', () => {
  const given = {
    DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/x',
    KAFKA_BROKERS: '127.0.0.1:9092',
  };

  // Proves the variables win over containers, so CI here and a developer's own servers are used as they are.
  it('uses DATABASE_URL and KAFKA_BROKERS when both are set, runtime or not', () => {
    expect(chooseServers(given, true)).toEqual({
      kind: 'given',
      databaseUrl: given.DATABASE_URL,
      kafkaBrokers: given.KAFKA_BROKERS,
    });
    expect(chooseServers(given, false)).toMatchObject({ kind: 'given' });
  });

  // Proves testcontainers is the path only with neither variable and a runtime that answers.
  it('starts containers with neither variable set and a container runtime', () => {
    expect(chooseServers({}, true)).toEqual({ kind: 'containers' });
    expect(chooseServers({ DATABASE_URL: '', KAFKA_BROKERS: '' }, true)).toEqual({
      kind: 'containers',
    });
  });

  // Proves a machine with neither stops at once with a message that names both ways.
  it('refuses with neither the variables nor a runtime, naming both ways', () => {
    const choice = chooseServers({}, false);
    expect(choice.kind).toBe('refused');
    if (choice.kind === 'refused')
      expect(choice.message).toMatch(
        /DATABASE_URL and KAFKA_BROKERS.*container runtime.*testcontainers/s,
      );
  });

  // Proves half a configuration is an error, not containers started beside a server the developer meant.
  it('refuses one variable without the other, naming the missing one', () => {
    expect(chooseServers({ DATABASE_URL: given.DATABASE_URL }, true)).toMatchObject({
      kind: 'refused',
      message: expect.stringContaining('KAFKA_BROKERS is not set'),
    });
    expect(chooseServers({ KAFKA_BROKERS: given.KAFKA_BROKERS }, true)).toMatchObject({
      kind: 'refused',
      message: expect.stringContaining('DATABASE_URL is not set'),
    });
  });
});
