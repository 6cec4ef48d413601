import { createPublicKey } from 'node:crypto';
import type { Bus } from '@pgw/platform-bus';
import type { Db } from '@pgw/platform-db';
import { principalPrivateKey, type App, type AppOptions } from '@pgw/platform-http';
import {
  InjectPeers,
  migrateService,
  startService,
  type Clock,
  type ServiceContext,
} from '@pgw/platform-service';
import { gatewayMigrations } from './migrations';
import type { ServiceName } from './routes.table';
import { gatewayService, type DemoCredentials, type GatewayDeps } from './service';

export type { ServiceName } from './routes.table';
export type { Upstreams } from './forwarding/register-forwarding';
export type { DemoCredentials, GatewayDeps } from './service';

export interface GatewayOptions extends GatewayDeps {
  db: Db;
  bus: Bus;
  clock: Clock;
  env: NodeJS.ProcessEnv;
  log?: AppOptions['log'];
}

export interface RunningGateway {
  app: App;
  /** DEMO=1: a demo tenant, an approved seller and a full-permission sk_test_ key (made once, then reused). */
  provisionDemo(): Promise<DemoCredentials>;
  /** Requests this gateway has forwarded and not yet seen answered, by service (admission control). */
  inFlight(): Partial<Record<ServiceName, number>>;
  /** Each service's adaptive limit now: the requests it may have in flight. */
  limits(): Partial<Record<ServiceName, number>>;
  stop(): Promise<void>;
}

/** The gateway's migrations, the bus's tables first: what `migrate` and a start with MIGRATE_ON_START run. */
export async function migrateGateway(db: Db): Promise<void> {
  await migrateService({ migrations: gatewayMigrations }, db);
}

/**
 * Starts the gateway (service.ts) through startService, as every service starts: its context is a service's,
 * with the public key of the pair it signs with (no principal reaches it to verify) and no peers (it reaches
 * the services through `upstreams`, forwarding).
 */
export async function startGateway(options: GatewayOptions): Promise<RunningGateway> {
  const { db, bus, clock, env, log, ...deps } = options;
  const privateKey = principalPrivateKey(deps.principalPrivateKey);
  const definition = gatewayService({ ...deps, principalPrivateKey: privateKey });
  const context: ServiceContext = {
    db,
    bus,
    clock,
    env,
    principalPublicKey: createPublicKey(privateKey),
    peers: new InjectPeers(),
    ...(log ? { log } : {}),
  };
  const service = await startService(definition, context);
  return {
    app: service.app,
    provisionDemo: () => definition.provisionDemo(),
    inFlight: () => definition.inFlight(),
    limits: () => definition.limits(),
    stop: () => service.stop(),
  };
}
