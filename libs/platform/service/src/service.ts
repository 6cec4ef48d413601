import type { KeyObject } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { Bus, BusMessage, Prepare, Subscription } from '@pgw/platform-bus';
import { isEventType } from '@pgw/contracts';
import {
  busMigration,
  busRetentionMigration,
  deadLetterMigration,
  DeadLetters,
  inboxHandler,
  INBOX_RETENTION_MS_DEFAULT,
  OutboxRelay,
  OUTBOX_RETENTION_MS_DEFAULT,
  POISON_AFTER_MS_DEFAULT,
  POISON_ATTEMPTS_DEFAULT,
  pruneBusTables,
} from '@pgw/platform-bus';
import { startLoop, type Db, type Migration, type Tx } from '@pgw/platform-db';
import {
  ApiError,
  buildApp,
  isDatabaseUnavailable,
  principalPlugin,
  readEnv,
  type App,
  type AppOptions,
} from '@pgw/platform-http';
import type { Clock } from './clock';
import { deadLetterRoutes, type ParkingConsumer } from './dead-letters.route';

/** What a service gets from whoever runs it: the distributed main, the all-in-one process or a test. */
export interface ServiceContext {
  db: Db;
  bus: Bus;
  clock: Clock;
  /** The gateway's public key (a PEM or a KeyObject): verifies the signed principal on every request. */
  principalPublicKey: string | KeyObject;
  /** During a rotation of the gateway's key pair, the other public key a principal may be signed for. */
  principalPublicKeyPrevious?: string | KeyObject;
  /** Other services' internal base URLs or in-process apps, by service name (see `callService`). */
  peers: Peers;
  log?: AppOptions['log'];
  env: NodeJS.ProcessEnv;
}

/** How one service calls another's internal routes: over HTTP in the distributed mode, in-process otherwise. */
export interface Peers {
  request(service: string, request: PeerRequest): Promise<PeerResponse>;
}

export interface PeerRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  headers?: Record<string, string>;
  body?: unknown;
  timeoutMs?: number;
}

export interface PeerResponse {
  statusCode: number;
  body: unknown;
}

export interface ConsumerDefinition {
  /** The consumer group, and the inbox's consumer name. */
  name: string;
  topics: string[];
  apply(trx: Tx, message: BusMessage): Promise<void>;
  /**
   * Whether this consumer's build knows an event type; one it does not is parked, not skipped (issue 17
   * item 3). Default: the types of this build's contracts. A known type that is not the consumer's
   * business is still `apply`'s to skip.
   */
  knows?(type: string | undefined): boolean;
  /**
   * `apply` reads nothing and only defers its writes (insertAtCommit, writeAtCommit): a
   * batch of new events is then one statement, with no transaction around it (InboxOptions.writesOnly).
   */
  writesOnly?: boolean;
  /**
   * For an `apply` that reads: reads once per batch what every message of it needs, and answers the
   * apply that uses it (InboxOptions.prepare); with `writesOnly`, the read comes before the unit.
   * `apply` must still do alone what the prepared one does (a parked message is replayed through it).
   */
  prepare?: Prepare;
}

export interface ServiceParts {
  app: App;
  consumers?: ConsumerDefinition[];
  /** Background loops of the service (jobs' schedulers, reconciliation); started after the app is ready. */
  onStart?: () => Promise<void>;
  onStop?: () => Promise<void>;
}

export interface ServiceDefinition {
  name: string;
  migrations: Migration[];
  /** Builds the routes and consumers on an app that already verifies principals. */
  build(app: App, context: ServiceContext): Promise<Omit<ServiceParts, 'app'>>;
  /** Routes answered without a principal, besides `/health`. */
  publicRoutes?: string[];
  /**
   * The public edge (the gateway) rather than a service behind it: no principal is verified (the edge
   * authenticates callers itself and signs the principals it forwards; `request.principal` starts null), an
   * incoming X-Request-Id is not believed, and its app takes these options.
   */
  edge?: (context: ServiceContext) => Pick<AppOptions, 'bodyLimitBytes' | 'trustProxy'>;
}

export interface RunningService {
  name: string;
  app: App;
  relay: OutboxRelay;
  /** Starts the outbox relay, when `startService` was told to defer it. */
  startRelay(): void;
  stop(): Promise<void>;
}

export interface StartOptions {
  /**
   * Leave the relay stopped until `startRelay()`. The all-in-one mode starts every service first and
   * the relays last: the in-process bus delivers only to groups already subscribed, so a relay that
   * published before its consumers listened would mark events sent that nobody applied.
   */
  deferRelay?: boolean;
}

/**
 * Starts a service the same way in every mode: migrate its schema, build its app (principal check first,
 * `/health` answered by a real database round trip), subscribe its consumers through the inbox, and start
 * its outbox relay.
 */
export async function startService(
  definition: ServiceDefinition,
  context: ServiceContext,
  options: StartOptions = {},
): Promise<RunningService> {
  // The platform's own variables, read once, before anything starts (a bad one names itself with the others).
  const platformEnv = readEnv(ServicePlatformEnv, context.env);
  // MIGRATE_ON_START=0 (Kubernetes): the schema is migrated by the `migrate` Job, under a DDL role the app lacks.
  if (migrateOnStart(context.env)) await migrateService(definition, context.db);
  const app = buildApp({
    name: definition.name,
    trustRequestIdHeader: definition.edge === undefined,
    ...definition.edge?.(context),
    ...(context.log ? { log: context.log } : {}),
  });
  if (definition.edge !== undefined) app.decorateRequest('principal', null);
  else
    await app.register(principalPlugin, {
      publicKey: context.principalPublicKey,
      ...(context.principalPublicKeyPrevious !== undefined
        ? { previousPublicKey: context.principalPublicKeyPrevious }
        : {}),
      publicRoutes: [...PROBE_ROUTES, ...(definition.publicRoutes ?? [])],
    });
  registerProbes(app, definition.name, context);
  const parts = await definition.build(app, context);
  const parking = parkingConsumers(
    definition.name,
    parts.consumers ?? [],
    context,
    platformEnv,
    app.log as FastifyBaseLogger,
  );
  if (parking.length > 0) deadLetterRoutes(app, definition.name, context.db, context.bus, parking);
  await app.ready();

  const relay = new OutboxRelay({
    db: context.db,
    bus: context.bus,
    pollIntervalMs: platformEnv.OUTBOX_POLL_INTERVAL_MS,
    lingerMs: platformEnv.OUTBOX_LINGER_MS,
    log: app.log as FastifyBaseLogger,
  });
  const subscriptions: Subscription[] = [];
  for (const { definition: consumer, deadLetters } of parking) {
    subscriptions.push(
      await context.bus.subscribe({
        groupId: `${definition.name}.${consumer.name}`,
        topics: consumer.topics,
        handle: inboxHandler(context.db, consumer.name, consumer.apply.bind(consumer), {
          deadLetters,
          writesOnly: consumer.writesOnly ?? false,
          prepare: consumer.prepare?.bind(consumer),
        }),
      }),
    );
  }
  await parts.onStart?.();
  if (options.deferRelay !== true) relay.start();
  const stopRetention = startBusRetention(context, platformEnv, app.log as FastifyBaseLogger);

  return {
    name: definition.name,
    app,
    relay,
    startRelay: () => relay.start(),
    stop: async () => {
      await stopRetention();
      await parts.onStop?.();
      for (const s of subscriptions) await s.stop();
      await relay.stop();
      await app.close();
    },
  };
}

/**
 * Each consumer with its parking (platform-bus dead-letters.ts): an unknown type is parked at once, a
 * poison event after CONSUMER_POISON_ATTEMPTS failed attempts (default 5) spanning CONSUMER_POISON_AFTER_MS
 * (default 30 s) with the database answering.
 */
function parkingConsumers(
  service: string,
  consumers: readonly ConsumerDefinition[],
  context: ServiceContext,
  env: PlatformEnv,
  log: FastifyBaseLogger,
): ParkingConsumer[] {
  const poisonAttempts = env.CONSUMER_POISON_ATTEMPTS;
  const poisonAfterMs = env.CONSUMER_POISON_AFTER_MS;
  return consumers.map((consumer) => ({
    definition: consumer,
    deadLetters: new DeadLetters(context.db, consumer.name, {
      service,
      bus: context.bus,
      knows: consumer.knows?.bind(consumer) ?? isEventType,
      isTransient: isDatabaseUnavailable,
      poisonAttempts,
      poisonAfterMs,
      log,
    }),
  }));
}

/** The probes every service answers without a principal. */
export const PROBE_ROUTES: readonly string[] = ['/livez', '/readyz', '/health'];

/** Every migration of a service, the bus's tables first: what `migrate` and a start with MIGRATE_ON_START run. */
export async function migrateService(
  definition: Pick<ServiceDefinition, 'migrations'>,
  db: Db,
): Promise<void> {
  await db.migrate([
    busMigration,
    busRetentionMigration,
    deadLetterMigration,
    ...definition.migrations,
  ]);
}

/** The variables startService reads for every service (names and defaults in docs/engineering.md). */
export const ServicePlatformEnv = Type.Object({
  CONSUMER_POISON_ATTEMPTS: Type.Integer({ default: POISON_ATTEMPTS_DEFAULT }),
  CONSUMER_POISON_AFTER_MS: Type.Integer({ default: POISON_AFTER_MS_DEFAULT }),
  BUS_RETENTION_INTERVAL_MS: Type.Integer({ default: 3_600_000 }),
  OUTBOX_RETENTION_MS: Type.Integer({ default: OUTBOX_RETENTION_MS_DEFAULT }),
  /**
   * How often the outbox relay looks for rows it was not woken for. A commit of this process wakes its relay
   * at once; the poll finds what another replica wrote (only one replica's relay holds the lease).
   */
  OUTBOX_POLL_INTERVAL_MS: Type.Integer({ minimum: 10, default: 250 }),
  /**
   * A relay round begins no sooner than this after the last (RelayOptions.lingerMs): under load a round, and
   * each consumer's batch, carries every event committed meanwhile, instead of one round per commit. 0 by
   * default: a relay publishing to Kafka batches already while its broker acknowledges (20 ms measured no
   * gain there); the all-in-one sets 20 ms.
   */
  OUTBOX_LINGER_MS: Type.Integer({ minimum: 0, maximum: 1000, default: 0 }),
  INBOX_RETENTION_MS: Type.Integer({ default: INBOX_RETENTION_MS_DEFAULT }),
});
type PlatformEnv = Static<typeof ServicePlatformEnv>;

const MigrateOnStartEnv = Type.Object({ MIGRATE_ON_START: Type.Boolean({ default: true }) });

/** MIGRATE_ON_START: on unless `0` or `false` (npm start, compose, bench and chaos migrate at start). */
export function migrateOnStart(env: NodeJS.ProcessEnv): boolean {
  return readEnv(MigrateOnStartEnv, env).MIGRATE_ON_START;
}

/**
 * `/livez`: the process alone (answered while the event loop runs), so a broker or database outage never
 * restarts a pod. `/readyz`: the database and the broker both answer, else 503 and the pod leaves the
 * Service. `/health` is `/readyz` under its older name (bench, chaos and soak tools use it).
 */
function registerProbes(app: App, name: string, context: ServiceContext): void {
  const Status = { 200: Type.Object({ status: Type.String(), service: Type.String() }) };
  app.get('/livez', { schema: { response: Status } }, async () => ({
    status: 'ok',
    service: name,
  }));
  const ready = async (): Promise<{ status: string; service: string }> => {
    try {
      await context.db.read((q) => q.raw('select 1'));
      await context.bus.checkHealth?.();
    } catch {
      throw new ApiError('service_unavailable', `${name} cannot reach its database or its broker.`);
    }
    return { status: 'ok', service: name };
  };
  app.get('/readyz', { schema: { response: Status } }, ready);
  app.get('/health', { schema: { response: Status } }, ready);
}

/**
 * Prunes the service's sent outbox rows, old inbox rows and replayed dead letters (platform-bus retention.ts) every
 * `BUS_RETENTION_INTERVAL_MS` (default an hour; 0 turns it off), after `OUTBOX_RETENTION_MS` and
 * `INBOX_RETENTION_MS`. Every replica may run it: the deletes are idempotent. Returns its stop.
 */
function startBusRetention(
  context: ServiceContext,
  env: PlatformEnv,
  log: FastifyBaseLogger,
): () => Promise<void> {
  const intervalMs = env.BUS_RETENTION_INTERVAL_MS;
  const retention = {
    outboxRetentionMs: env.OUTBOX_RETENTION_MS,
    inboxRetentionMs: env.INBOX_RETENTION_MS,
  };
  if (intervalMs === 0) return async () => undefined;
  const loop = startLoop({
    name: 'outbox and inbox pruning',
    intervalMs,
    log,
    round: async () => {
      const pruned = await pruneBusTables(context.db, retention);
      if (pruned.outbox + pruned.inbox + pruned.deadLetters > 0)
        log.info({ pruned }, 'outbox, inbox and replayed dead letters pruned');
    },
  });
  return () => loop.stop();
}
