// Where `npm run test:integration` finds PostgreSQL and Kafka: the servers named by DATABASE_URL and
// KAFKA_BROKERS, or, with neither set, containers that testcontainers starts on a machine with a container
// runtime (Docker, Podman's socket). The choice is a pure function so that its every branch is tested here,
// where no container runtime runs.

export type ServersChoice =
  | { kind: 'given'; databaseUrl: string; kafkaBrokers: string }
  | { kind: 'containers' }
  | { kind: 'refused'; message: string };

const HOW =
  'either set DATABASE_URL and KAFKA_BROKERS (README: tools/kafka/start runs a broker without Docker), ' +
  'or unset both on a machine with a container runtime, where testcontainers starts PostgreSQL and Kafka';

/** Both variables set: those servers; neither: containers if a runtime answers; anything else: refused. */
export function chooseServers(env: NodeJS.ProcessEnv, runtimeAvailable: boolean): ServersChoice {
  const databaseUrl = env.DATABASE_URL ?? '';
  const kafkaBrokers = env.KAFKA_BROKERS ?? '';
  if (databaseUrl !== '' && kafkaBrokers !== '')
    return { kind: 'given', databaseUrl, kafkaBrokers };
  if (databaseUrl !== '' || kafkaBrokers !== '') {
    const missing = databaseUrl === '' ? 'DATABASE_URL' : 'KAFKA_BROKERS';
    return {
      kind: 'refused',
      message: `integration tests: ${missing} is not set while the other is; ${HOW}`,
    };
  }
  if (runtimeAvailable) return { kind: 'containers' };
  return {
    kind: 'refused',
    message: `integration tests: DATABASE_URL and KAFKA_BROKERS are not set and no container runtime answers; ${HOW}`,
  };
}
