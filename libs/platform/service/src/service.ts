import type { FastifyBaseLogger } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Bus, BusMessage, Subscription } from '@pgw/platform-bus';
import { inboxHandler, OutboxRelay, busMigration } from '@pgw/platform-bus';
import type { Db, Migration, Tx } from '@pgw/platform-db';
import { ApiError, buildApp, principalPlugin, type App, type AppOptions } from '@pgw/platform-http';
import type { Clock } from './clock';

/** What a service gets from whoever runs it: the distributed main, the all-in-one process or a test. */
export interface ServiceContext {
  db: Db;
  bus: Bus;
  clock: Clock;
  /** Shared with the gateway: verifies the signed principal on every request. */
  principalSecret: string;
  /** During a rotation of PRINCIPAL_SECRET, the other secret a principal may be signed with. */
  principalSecretPrevious?: string;
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
  /** Optional: runs at the end of each batch's transaction, after every apply (e.g. one write per hot row). */
  afterBatch?(trx: Tx): Promise<void>;
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
export async function startService(definition: ServiceDefinition, context: ServiceContext, options: StartOptions = {}): Promise<RunningService> {
  await context.db.migrate([busMigration, ...definition.migrations]);
  const app = buildApp({ name: definition.name, trustRequestIdHeader: true, ...(context.log ? { log: context.log } : {}) });
  await app.register(principalPlugin, {
    secret: context.principalSecret,
    ...(context.principalSecretPrevious !== undefined ? { previousSecret: context.principalSecretPrevious } : {}),
    publicRoutes: ['/health', ...(definition.publicRoutes ?? [])],
  });
  app.get('/health', { schema: { response: { 200: Type.Object({ status: Type.String(), service: Type.String() }) } } }, async () => {
    // Ready only when both stores it depends on answer: its database and its broker.
    try {
      await context.db.read((q) => q.raw('select 1'));
      await context.bus.checkHealth?.();
    } catch {
      throw new ApiError('service_unavailable', `${definition.name} cannot reach its database or its broker.`);
    }
    return { status: 'ok', service: definition.name };
  });
  const parts = await definition.build(app, context);
  await app.ready();

  const relay = new OutboxRelay({ db: context.db, bus: context.bus, log: app.log as FastifyBaseLogger });
  const subscriptions: Subscription[] = [];
  for (const consumer of parts.consumers ?? []) {
    subscriptions.push(
      await context.bus.subscribe({
        groupId: `${definition.name}.${consumer.name}`,
        topics: consumer.topics,
        handle: inboxHandler(context.db, consumer.name, consumer.apply, consumer.afterBatch?.bind(consumer)),
      }),
    );
  }
  await parts.onStart?.();
  if (options.deferRelay !== true) relay.start();

  return {
    name: definition.name,
    app,
    relay,
    startRelay: () => relay.start(),
    stop: async () => {
      await parts.onStop?.();
      for (const s of subscriptions) await s.stop();
      await relay.stop();
      await app.close();
    },
  };
}
