// jest globalSetup of `npm run test:integration` (jest.integration.config.js): uses DATABASE_URL and
// KAFKA_BROKERS, or starts PostgreSQL and Kafka with testcontainers when neither is set and a container
// runtime answers, or stops at once saying how to run the suites. Not exercised on machines without a
// runtime (this project's CI machine has none): there the variables are always set.
import { chooseServers } from './integration-servers';

/** Images pinned so that every machine tests against the same servers. */
const POSTGRES_IMAGE = 'postgres:15-alpine';
const KAFKA_IMAGE = 'confluentinc/cp-kafka:7.9.0';

interface Started {
  stop(): Promise<unknown>;
}

async function runtimeAvailable(): Promise<boolean> {
  const { getContainerRuntimeClient } = await import('testcontainers');
  return getContainerRuntimeClient().then(
    () => true,
    () => false,
  );
}

export default async function globalSetup(): Promise<void> {
  const wantsContainers =
    (process.env.DATABASE_URL ?? '') === '' && (process.env.KAFKA_BROKERS ?? '') === '';
  const choice = chooseServers(process.env, wantsContainers ? await runtimeAvailable() : false);
  if (choice.kind === 'refused') throw new Error(choice.message);
  if (choice.kind === 'given') return;
  const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
  const { KafkaContainer } = await import('@testcontainers/kafka');
  const [postgres, kafka] = await Promise.all([
    new PostgreSqlContainer(POSTGRES_IMAGE).start(),
    new KafkaContainer(KAFKA_IMAGE).withKraft().start(),
  ]);
  // The suites read these (integrationEnv); --runInBand keeps them in this process, workers inherit them.
  process.env.DATABASE_URL = postgres.getConnectionUri();
  process.env.KAFKA_BROKERS = `${kafka.getHost()}:${kafka.getMappedPort(9093)}`;
  (globalThis as { __pgwContainers?: Started[] }).__pgwContainers = [postgres, kafka];
}
