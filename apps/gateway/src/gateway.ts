import type { KeyObject } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { busMigration, OutboxRelay, type Bus } from '@pgw/platform-bus';
import type { Db } from '@pgw/platform-db';
import { allowsPrivateWebhookTargets, ApiError, buildApp, ConfigError, envInt, PRINCIPAL_TTL_MS, principalPrivateKey, RequestIdSchema, type App, type AppOptions } from '@pgw/platform-http';
import { GATEWAY_UPSTREAM_IN_FLIGHT, observeGauge } from '@pgw/platform-metrics';
import { migrateOnStart, type Clock } from '@pgw/platform-service';
import { traceAtEdge } from '@pgw/platform-telemetry';
import { adminTokenCheck } from './auth/admin-auth';
import { ApiKeyAuthenticator } from './auth/api-key-auth';
import { TtlLruCache } from './auth/key-cache';
import { RateLimiter } from './auth/rate-limiter';
import type { KeyForAuth } from './data/api-keys.repository';
import { provisionDemo } from './demo';
import { Admission } from './forwarding/admission';
import { registerForwarding, type Upstreams } from './forwarding/register-forwarding';
import { trustedProxies } from './forwarding/trusted-proxies';
import { gatewayMigrations } from './migrations';
import { registerAdminRoutes } from './routes/admin.plugin';
import { registerAsyncApiRoute } from './routes/asyncapi.route';
import { registerDashboardRoute } from './routes/dashboard.route';
import { registerDocsRoute } from './routes/docs.route';
import { registerOpenApiRoute } from './routes/openapi.route';
import type { RouteContext } from './routes/route-context';
import { OPERATOR_ROUTES, PROVIDER_ROUTES, PUBLIC_ROUTES, type ServiceName } from './routes.table';

export type { ServiceName } from './routes.table';
export type { Upstreams } from './forwarding/register-forwarding';

export interface GatewayOptions {
  db: Db;
  bus: Bus;
  clock: Clock;
  /** PRINCIPAL_PRIVATE_KEY: the Ed25519 key that signs every forwarded principal (a PEM or a KeyObject). */
  principalPrivateKey: string | KeyObject;
  adminToken: string;
  upstreams: Upstreams;
  env: NodeJS.ProcessEnv;
  log?: AppOptions['log'];
  bodyLimitBytes?: number;
  /** The rate limiters' monotonic clock in milliseconds (default performance.now): a test steps it. */
  rateLimitNowMs?: () => number;
}

export interface DemoCredentials {
  tenantId: string;
  sellerId: string;
  apiKey: string;
}

export interface RunningGateway {
  app: App;
  /** DEMO=1: a demo tenant, an approved seller and a full-permission sk_test_ key (made once, then reused). */
  provisionDemo(): Promise<DemoCredentials>;
  /** Requests this gateway has forwarded and not yet seen answered, by service (admission control). */
  inFlight(): Partial<Record<ServiceName, number>>;
  stop(): Promise<void>;
}

/** Key lookups kept per replica: enough for every active key of a large platform, bounded all the same. */
export const KEY_CACHE_ENTRIES_MAX = 10_000;
/** How stale a replica's view of a key may be: a revocation holds everywhere within this (and < 1 s). */
export const KEY_CACHE_TTL_MS = 500;
/**
 * Unknown secrets remembered per replica, apart from the keys: a flood of random secrets cycles through
 * these and never evicts a real key. Kept as long as a key, so a key created under a hash someone had
 * tried (a 190-bit guess) is served within the same TTL.
 */
const UNKNOWN_KEYS_MAX = 1_000;
/** Token buckets kept per replica; the least recently used is dropped beyond this. */
const RATE_LIMIT_BUCKETS_MAX = 100_000;
const RATE_LIMIT_PER_SECOND_DEFAULT = 100;
/** Failed authentications (an unknown or revoked key) per client address, second and replica, before 429. */
const AUTH_FAILURES_PER_SECOND_DEFAULT = 10;
const UPSTREAM_TIMEOUT_MS_DEFAULT = 30_000;
/**
 * Requests in flight per service and per replica before the next one is refused with 503 (issue 10).
 * By Little's law the target load, 1,000 charges/s answered within 50 ms, is 50 requests in flight, so one
 * replica admits it; a service slower than that holds at most 64 of this replica's requests, and the 65th
 * is answered at once instead of waiting in a queue behind them.
 */
const UPSTREAM_IN_FLIGHT_MAX_DEFAULT = 64;
const BODY_LIMIT_BYTES_DEFAULT = 1024 * 1024;

const HealthSchema = Type.Object({
  object: Type.Literal('health'),
  service: Type.Literal('service-gateway'),
  status: Type.Literal('ok'),
  version: Type.Literal('v1'),
  request_id: RequestIdSchema,
});

function positiveEnvInt(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const value = envInt(env, name, fallback);
  if (value < 1) throw new ConfigError(`${name} must be at least 1, got ${value}`);
  return value;
}

/** The gateway's migrations, the bus's tables first: what `migrate` and a start with MIGRATE_ON_START run. */
export async function migrateGateway(db: Db): Promise<void> {
  await db.migrate([busMigration, ...gatewayMigrations]);
}

/**
 * The only public door. /api/v1: API key → rate limit → permission, seller scope, KYC (read fresh) → the owning
 * service, with a signed principal. /admin/v1: the admin token → the directory (answered here) or the
 * simulations and jobs (forwarded with an operator principal). Directory changes leave through the outbox.
 */
export async function startGateway(options: GatewayOptions): Promise<RunningGateway> {
  // MIGRATE_ON_START=0 (Kubernetes): the `migrate` Job has run migrateGateway under a DDL role the app lacks.
  if (migrateOnStart(options.env)) await migrateGateway(options.db);
  const defaultRateLimitPerSecond = positiveEnvInt(options.env, 'RATE_LIMIT_PER_SECOND', RATE_LIMIT_PER_SECOND_DEFAULT);
  const timeoutMs = positiveEnvInt(options.env, 'UPSTREAM_TIMEOUT_MS', UPSTREAM_TIMEOUT_MS_DEFAULT);
  // One bound per service, shared by the public and the operator routes: it protects the service.
  const admission = new Admission(positiveEnvInt(options.env, 'UPSTREAM_IN_FLIGHT_MAX', UPSTREAM_IN_FLIGHT_MAX_DEFAULT));
  const checkAdminToken = adminTokenCheck(options.adminToken);
  const authenticator = new ApiKeyAuthenticator({
    db: options.db,
    cache: new TtlLruCache<string, KeyForAuth>({ entriesMax: KEY_CACHE_ENTRIES_MAX, ttlMs: KEY_CACHE_TTL_MS }),
    unknownKeys: new TtlLruCache<string, true>({ entriesMax: UNKNOWN_KEYS_MAX, ttlMs: KEY_CACHE_TTL_MS }),
    rateLimiter: new RateLimiter({ bucketsMax: RATE_LIMIT_BUCKETS_MAX, nowMs: options.rateLimitNowMs }),
    defaultRateLimitPerSecond,
    failureLimiter: new RateLimiter({ bucketsMax: RATE_LIMIT_BUCKETS_MAX, nowMs: options.rateLimitNowMs, message: 'Too many failed authentications from this address; retry after the time in Retry-After.' }),
    failuresPerSecond: positiveEnvInt(options.env, 'AUTH_FAILURES_PER_SECOND', AUTH_FAILURES_PER_SECOND_DEFAULT),
  });
  const ctx: RouteContext = { db: options.db, clock: options.clock, authenticator, allowPrivateWebhookTargets: allowsPrivateWebhookTargets(options.env) };
  // Parsed once: every forwarded request is signed with it.
  const principalKey = principalPrivateKey(options.principalPrivateKey);

  // TRUSTED_PROXIES: whose X-Forwarded-For request.ip believes; the address is signed into each principal.
  const app = buildApp({ name: 'gateway', bodyLimitBytes: options.bodyLimitBytes ?? BODY_LIMIT_BYTES_DEFAULT, trustProxy: trustedProxies(options.env), ...(options.log ? { log: options.log } : {}) });
  // Sampling is decided here, at the edge: each public request starts its own trace, whatever an
  // integrator's traceparent says (it is kept only as a link), and the services follow the gateway's decision.
  traceAtEdge(app.server);
  // The principal each forwarded request carries; the field is declared by @pgw/platform-http.
  app.decorateRequest('principal', null);

  app.get('/api/v1/health', { schema: { response: { 200: HealthSchema } } }, async (request) => ({
    object: 'health' as const,
    service: 'service-gateway' as const,
    status: 'ok' as const,
    version: 'v1' as const,
    request_id: request.id,
  }));
  // The probes, not part of the public API. /livez: the process alone, so a broker outage restarts nothing.
  // /readyz (and /health, its older name): a round trip to the database and the broker, else 503.
  const ProbeStatus = { 200: Type.Object({ status: Type.String(), service: Type.String() }) };
  app.get('/livez', { schema: { response: ProbeStatus } }, async () => ({ status: 'ok', service: 'gateway' }));
  const ready = async (): Promise<{ status: string; service: string }> => {
    try {
      await options.db.read((q) => q.raw('select 1'));
      await options.bus.checkHealth?.();
    } catch {
      throw new ApiError('service_unavailable', 'The gateway cannot reach its database or its broker.');
    }
    return { status: 'ok', service: 'gateway' };
  };
  app.get('/readyz', { schema: { response: ProbeStatus } }, ready);
  app.get('/health', { schema: { response: ProbeStatus } }, ready);

  registerOpenApiRoute(app);
  registerAsyncApiRoute(app);
  registerDocsRoute(app);
  registerDashboardRoute(app);
  await registerAdminRoutes(app, ctx, checkAdminToken);
  await registerForwarding(app, {
    routes: OPERATOR_ROUTES,
    authorize: async (request) => {
      checkAdminToken(request);
      return { kind: 'operator', requestId: request.id, expiresAtMs: Date.now() + PRINCIPAL_TTL_MS };
    },
    upstreams: options.upstreams,
    principalKey,
    timeoutMs,
    admission,
  });
  await registerForwarding(app, {
    routes: PROVIDER_ROUTES,
    // See PROVIDER_ROUTES: the caller was authenticated by the ingress, and the route acts on nothing it says unconfirmed.
    authorize: async (request) => ({ kind: 'operator', requestId: request.id, expiresAtMs: Date.now() + PRINCIPAL_TTL_MS }),
    upstreams: options.upstreams,
    principalKey,
    timeoutMs,
    admission,
  });
  await registerForwarding(app, {
    routes: PUBLIC_ROUTES,
    authorize: (request, route) => authenticator.principalFor(request, route),
    checkBody: async (principal, route, body) => {
      if (route.splitRecipientsKyc && principal.kind === 'api_key') await authenticator.assertSplitRecipientsApproved(principal, body);
    },
    upstreams: options.upstreams,
    principalKey,
    timeoutMs,
    admission,
  });

  const relay = new OutboxRelay({ db: options.db, bus: options.bus, log: app.log });
  const stopObservingInFlight = observeGauge(GATEWAY_UPSTREAM_IN_FLIGHT, () => Object.entries(admission.snapshot()).map(([service, value]) => ({ value, attributes: { service } })));
  app.addHook('onClose', async () => {
    stopObservingInFlight();
    await relay.stop();
  });
  await app.ready();
  relay.start();

  return {
    app,
    provisionDemo: () => provisionDemo(ctx),
    inFlight: () => admission.snapshot(),
    stop: async () => {
      await app.close();
    },
  };
}
