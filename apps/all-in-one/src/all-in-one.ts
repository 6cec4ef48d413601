import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { startGateway, type DemoCredentials, type ServiceName } from '@pgw/gateway';
import { EmbeddedSchemaRegistry, EventWire } from '@pgw/contracts';
import { InProcessBus, SchemaRegistryBus } from '@pgw/platform-bus';
import { createPgliteKnex, sharedDb } from '@pgw/platform-db';
import { generatePrincipalKeys, type App, type AppOptions } from '@pgw/platform-http';
import {
  InjectPeers,
  startService,
  systemClock,
  type Clock,
  type RunningService,
  type ServiceDefinition,
} from '@pgw/platform-service';
import { SERVICES } from './services';

export interface AllInOneOptions {
  /** Where the embedded database lives; null keeps it in memory (tests). */
  dataDir: string | null;
  port: number;
  host?: string;
  adminToken?: string;
  demo: boolean;
  clock?: Clock;
  log?: AppOptions['log'];
  env?: NodeJS.ProcessEnv;
  services?: ServiceDefinition[];
}

export interface AllInOne {
  url: string;
  adminToken: string;
  adminTokenGenerated: boolean;
  demo: DemoCredentials | null;
  gateway: App;
  services: RunningService[];
  /**
   * Starts another gateway over the same database, bus and services, as a second replica behind a load
   * balancer would be (not listening: tests call it with inject). Stopped with the rest.
   */
  startGatewayReplica(): Promise<App>;
  stop(): Promise<void>;
}

const schemaOf = (name: string) => name.replace(/-/g, '_');

/**
 * `npm start`: the gateway and every service in one process, on one embedded PostgreSQL (a schema per
 * service) and the in-process bus, which carries the same Avro bytes as Kafka. The gateway reaches the
 * services through the same signed principal and routes as in the distributed mode, minus the network.
 * The bus frames events as on Kafka (magic byte, schema id, Avro body) with an embedded schema registry.
 */
export async function startAllInOne(options: AllInOneOptions): Promise<AllInOne> {
  // Contract §7: the all-in-one lets webhooks reach private targets (a developer's localhost) unless told not to.
  // Every outbox row is written in this process, and its commit wakes the relay at once: the relays' poll
  // only finds what a missed wake would leave, so once a second is enough (at 250 ms, the seven relays' polls
  // were ~110 of the ~135 statements a second an idle `npm start` ran on its one embedded connection).
  // Publishing in-process costs a relay round and a batch per consumer whatever the batch holds, so a round
  // begins 20 ms after the last at the soonest and carries what committed meanwhile (one per commit before:
  // 2.3× fewer charges/s, docs/benchmarks.md).
  const env = {
    WEBHOOK_ALLOW_PRIVATE_TARGETS: '1',
    OUTBOX_POLL_INTERVAL_MS: '1000',
    OUTBOX_LINGER_MS: '20',
    ...(options.env ?? process.env),
  };
  if (options.dataDir !== null) mkdirSync(options.dataDir, { recursive: true });
  const knex = createPgliteKnex(options.dataDir === null ? null : join(options.dataDir, 'pg'));
  const bus = new SchemaRegistryBus(
    new InProcessBus(),
    new EventWire(new EmbeddedSchemaRegistry()),
  );
  const clock = options.clock ?? systemClock;
  // The principal never leaves this process, so a fresh key pair per start is enough (nothing to
  // configure); as in the distributed mode, the gateway signs and the services hold the public key only.
  const principalKeys = generatePrincipalKeys();
  const adminToken = options.adminToken ?? `adm_${randomBytes(24).toString('hex')}`;
  const peers = new InjectPeers();
  const apps = new Map<ServiceName, App>();

  const running: RunningService[] = [];
  try {
    for (const definition of options.services ?? SERVICES) {
      const service = await startService(
        definition,
        {
          db: sharedDb(knex, schemaOf(definition.name)),
          bus,
          clock,
          principalPublicKey: principalKeys.publicKey,
          peers,
          env,
          ...(options.log ? { log: options.log } : {}),
        },
        { deferRelay: true },
      );
      running.push(service);
      peers.register(definition.name, service.app);
      apps.set(definition.name as ServiceName, service.app);
    }
  } catch (error) {
    for (const service of running.reverse()) await service.stop();
    await knex.destroy();
    throw error;
  }

  const gatewayDb = sharedDb(knex, 'gateway');
  const newGateway = () =>
    startGateway({
      db: gatewayDb,
      bus,
      clock,
      principalPrivateKey: principalKeys.privateKey,
      adminToken,
      upstreams: { mode: 'inject', apps },
      env,
      ...(options.log ? { log: options.log } : {}),
    });
  const gateway = await newGateway();
  const replicas: Array<{ stop(): Promise<void> }> = [];

  // Every consumer listens now: the relays may publish (see StartOptions.deferRelay).
  for (const service of running) service.startRelay();

  let demo: DemoCredentials | null = null;
  if (options.demo) demo = await demoCredentials(options.dataDir, () => gateway.provisionDemo());

  const url = await gateway.app.listen({ port: options.port, host: options.host ?? '127.0.0.1' });
  return {
    url,
    adminToken,
    adminTokenGenerated: options.adminToken === undefined,
    demo,
    gateway: gateway.app,
    services: running,
    startGatewayReplica: async () => {
      const replica = await newGateway();
      replicas.push(replica);
      return replica.app;
    },
    stop: async () => {
      for (const replica of replicas) await replica.stop();
      await gateway.stop();
      for (const service of [...running].reverse()) await service.stop();
      await bus.close();
      await knex.destroy();
    },
  };
}

// The demo key's secret is stored only as a hash in the database; the all-in-one keeps the plain secret
// in DATA_DIR so that a restart can print it again. A demo convenience for a local test key only.
async function demoCredentials(
  dataDir: string | null,
  provision: () => Promise<DemoCredentials>,
): Promise<DemoCredentials> {
  const file = dataDir === null ? null : join(dataDir, 'demo.json');
  if (file !== null && existsSync(file))
    return JSON.parse(readFileSync(file, 'utf8')) as DemoCredentials;
  const demo = await provision();
  if (file !== null) writeFileSync(file, JSON.stringify(demo, null, 2), { mode: 0o600 });
  return demo;
}
