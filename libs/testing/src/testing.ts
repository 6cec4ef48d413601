import { randomBytes } from 'node:crypto';

export interface IntegrationEnv {
  databaseUrl: string;
  kafkaBrokers: string[];
}

/** Integration suites fail loudly, rather than skip, when the servers they test against are not configured. */
export function integrationEnv(): IntegrationEnv {
  const databaseUrl = process.env.DATABASE_URL;
  const brokers = process.env.KAFKA_BROKERS;
  if (!databaseUrl || !brokers) {
    throw new Error(
      'integration tests need DATABASE_URL and KAFKA_BROKERS (see README: npm run test:integration)',
    );
  }
  return { databaseUrl, kafkaBrokers: brokers.split(',').map((b) => b.trim()) };
}

/** The schema registry (Confluent API) of the suites that run services or the wire format on Kafka; they fail without it. */
export function schemaRegistryUrl(): string {
  const url = process.env.SCHEMA_REGISTRY_URL;
  if (!url)
    throw new Error(
      'this suite needs SCHEMA_REGISTRY_URL (tools/registry/start, then SCHEMA_REGISTRY_URL=http://127.0.0.1:8081/apis/ccompat/v7)',
    );
  return url.replace(/\/+$/, '');
}

/** A name no other run uses: schemas, topics and consumer groups of one test never meet another's. */
export function uniqueName(prefix: string): string {
  return `${prefix}_${randomBytes(5).toString('hex')}`;
}

/** Polls `check` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function waitFor<T>(
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${lastError ? `: ${String(lastError)}` : ''}`,
      );
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** What `statementsDuring` listens to: a knex instance (its `query` event). */
interface QueryEmitter {
  on(event: 'query', listener: (query: { sql: string }) => void): unknown;
  off(event: 'query', listener: (query: { sql: string }) => void): unknown;
}

/** The SQL of every statement `knex` sends while `fn` runs, in order (BEGIN and COMMIT included). */
export async function statementsDuring(
  knex: QueryEmitter,
  fn: () => Promise<unknown>,
): Promise<string[]> {
  const sent: string[] = [];
  const listen = (query: { sql: string }) => void sent.push(query.sql);
  knex.on('query', listen);
  try {
    await fn();
  } finally {
    knex.off('query', listen);
  }
  return sent;
}
