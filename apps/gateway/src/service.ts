import type { KeyObject } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { assert } from '@pgw/domain';
import {
  PRINCIPAL_TTL_MS,
  principalPrivateKey,
  readEnv,
  RequestIdSchema,
  type OperatorPrincipal,
} from '@pgw/platform-http';
import {
  GATEWAY_UPSTREAM_IN_FLIGHT,
  GATEWAY_UPSTREAM_LIMIT,
  observeGauge,
} from '@pgw/platform-metrics';
import { ServiceMainEnv, type ServiceDefinition } from '@pgw/platform-service';
import { traceAtEdge } from '@pgw/platform-telemetry';
import { adminTokenCheck } from './auth/admin-auth';
import { ApiKeyAuthenticator, keyCacheFor } from './auth/api-key-auth';
import { RateLimiter } from './auth/rate-limiter';
import { provisionDemo } from './demo';
import { Admission } from './forwarding/admission';
import { registerForwarding, type Upstreams } from './forwarding/register-forwarding';
import { assertTenantExists } from './forwarding/tenant-exists';
import { trustedProxies } from './forwarding/trusted-proxies';
import { gatewayMigrations } from './migrations';
import { registerAdminRoutes } from './routes/admin.plugin';
import { registerAsyncApiRoute } from './routes/asyncapi.route';
import { registerDashboardRoute } from './routes/dashboard.route';
import { registerDocsRoute } from './routes/docs.route';
import { registerOpenApiRoute } from './routes/openapi.route';
import type { RouteContext } from './routes/route-context';
import { OPERATOR_ROUTES, PROVIDER_ROUTES, PUBLIC_ROUTES, type ServiceName } from './routes.table';

/** What the gateway takes besides a service's context: its secrets, the services it forwards to, its limits. */
export interface GatewayDeps {
  /** PRINCIPAL_PRIVATE_KEY: the Ed25519 key that signs every forwarded principal (a PEM or a KeyObject). */
  principalPrivateKey: string | KeyObject;
  adminToken: string;
  upstreams: Upstreams;
  bodyLimitBytes?: number;
  /** The rate limiters' monotonic clock in milliseconds (default performance.now): a test steps it. */
  rateLimitNowMs?: () => number;
}

export interface DemoCredentials {
  tenantId: string;
  sellerId: string;
  apiKey: string;
}

/** The gateway's ServiceDefinition, and what a started one answers besides its app. */
export interface GatewayDefinition extends ServiceDefinition {
  /** DEMO=1: a demo tenant, an approved seller and a full-permission sk_test_ key (made once, then reused). */
  provisionDemo(): Promise<DemoCredentials>;
  /** Requests this gateway has forwarded and not yet seen answered, by service (admission control). */
  inFlight(): Partial<Record<ServiceName, number>>;
  /** Each service's adaptive limit now: the requests it may have in flight. */
  limits(): Partial<Record<ServiceName, number>>;
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
/**
 * The latency each service's adaptive limit keeps its answers under (forwarding/adaptive-limit.ts): a
 * charge answers in 10–40 ms when its service has no queue, so 100 ms means a queue, and holds the
 * admitted requests' p99 near issue 18's 250 ms at any offered load.
 */
const UPSTREAM_LATENCY_TARGET_MS_DEFAULT = 100;
const BODY_LIMIT_BYTES_DEFAULT = 1024 * 1024;

const HealthSchema = Type.Object({
  object: Type.Literal('health'),
  service: Type.Literal('service-gateway'),
  status: Type.Literal('ok'),
  version: Type.Literal('v1'),
  request_id: RequestIdSchema,
});

/**
 * The gateway's own variables, read once (gatewaySettings); the database, the bus, the listener and its
 * secrets are main.ts's (GatewayMainEnv).
 */
export const GatewayEnv = Type.Object({
  RATE_LIMIT_PER_SECOND: Type.Integer({ minimum: 1, default: RATE_LIMIT_PER_SECOND_DEFAULT }),
  UPSTREAM_TIMEOUT_MS: Type.Integer({ minimum: 1, default: UPSTREAM_TIMEOUT_MS_DEFAULT }),
  UPSTREAM_IN_FLIGHT_MAX: Type.Integer({ minimum: 1, default: UPSTREAM_IN_FLIGHT_MAX_DEFAULT }),
  UPSTREAM_LATENCY_TARGET_MS: Type.Integer({
    minimum: 1,
    default: UPSTREAM_LATENCY_TARGET_MS_DEFAULT,
  }),
  AUTH_FAILURES_PER_SECOND: Type.Integer({ minimum: 1, default: AUTH_FAILURES_PER_SECOND_DEFAULT }),
  /** Whose X-Forwarded-For request.ip believes (forwarding/trusted-proxies.ts); empty: nobody's. */
  TRUSTED_PROXIES: Type.String({ default: '' }),
  /** 1: webhook endpoints may name private addresses (contract §7; the all-in-one's default). */
  WEBHOOK_ALLOW_PRIVATE_TARGETS: Type.Boolean({ default: false }),
});

/** What the gateway's main reads, once: a service main's variables, and the gateway's two secrets. */
export const GatewayMainEnv = Type.Composite([
  ServiceMainEnv,
  Type.Object({
    /** The Ed25519 private key (PEM) that signs every forwarded principal. */
    PRINCIPAL_PRIVATE_KEY: Type.String(),
    /** The operator API's bearer token. */
    ADMIN_TOKEN: Type.String({ minLength: 16 }),
  }),
]);

/** GatewayEnv as read, with TRUSTED_PROXIES checked and split. */
export type GatewaySettings = Static<typeof GatewayEnv> & { trustedProxies: string[] };

/** Reads the gateway's variables: every bad one named in one ConfigError. */
export function gatewaySettings(env: NodeJS.ProcessEnv): GatewaySettings {
  const vars = readEnv(GatewayEnv, env);
  return { ...vars, trustedProxies: trustedProxies(vars.TRUSTED_PROXIES) };
}

/**
 * The only public door, started by startService as every service is (migrations, probes, the outbox relay,
 * the bus retention), as the edge: no principal to verify, its own request ids. /api/v1: API key → rate limit
 * → permission, seller scope, KYC (read fresh) → the owning service, with a signed principal. /admin/v1: the
 * admin token → the directory (answered here) or the simulations and jobs (forwarded with an operator
 * principal). Directory changes leave through the outbox.
 */
export function gatewayService(deps: GatewayDeps): GatewayDefinition {
  let started: { ctx: RouteContext; admission: Admission } | null = null;
  // Read once, by whichever of edge and build startService calls first.
  let settings: GatewaySettings | null = null;
  const settingsOf = (env: NodeJS.ProcessEnv) => (settings ??= gatewaySettings(env));
  const running = () => {
    assert(started !== null, 'gateway.built-before-use');
    return started;
  };
  return {
    name: 'gateway',
    migrations: gatewayMigrations,
    // TRUSTED_PROXIES: whose X-Forwarded-For request.ip believes; the address is signed into each principal.
    edge: (context) => ({
      bodyLimitBytes: deps.bodyLimitBytes ?? BODY_LIMIT_BYTES_DEFAULT,
      trustProxy: settingsOf(context.env).trustedProxies,
    }),
    provisionDemo: () => provisionDemo(running().ctx),
    inFlight: () => running().admission.snapshot(),
    limits: () => running().admission.limits(),
    async build(app, context) {
      const vars = settingsOf(context.env);
      // One limit per service, shared by the public and the operator routes: it protects the service.
      const admission = new Admission({
        inFlightMax: vars.UPSTREAM_IN_FLIGHT_MAX,
        latencyTargetMs: vars.UPSTREAM_LATENCY_TARGET_MS,
      });
      const checkAdminToken = adminTokenCheck(deps.adminToken);
      const authenticator = new ApiKeyAuthenticator({
        db: context.db,
        keys: keyCacheFor(context.db, {
          entriesMax: KEY_CACHE_ENTRIES_MAX,
          unknownEntriesMax: UNKNOWN_KEYS_MAX,
          ttlMs: KEY_CACHE_TTL_MS,
        }),
        rateLimiter: new RateLimiter({
          bucketsMax: RATE_LIMIT_BUCKETS_MAX,
          nowMs: deps.rateLimitNowMs,
        }),
        defaultRateLimitPerSecond: vars.RATE_LIMIT_PER_SECOND,
        failureLimiter: new RateLimiter({
          bucketsMax: RATE_LIMIT_BUCKETS_MAX,
          nowMs: deps.rateLimitNowMs,
          message:
            'Too many failed authentications from this address; retry after the time in Retry-After.',
        }),
        failuresPerSecond: vars.AUTH_FAILURES_PER_SECOND,
      });
      const ctx: RouteContext = {
        db: context.db,
        clock: context.clock,
        authenticator,
        allowPrivateWebhookTargets: vars.WEBHOOK_ALLOW_PRIVATE_TARGETS,
      };
      // Parsed once: every forwarded request is signed with it.
      const principalKey = principalPrivateKey(deps.principalPrivateKey);

      // Sampling is decided here, at the edge: each public request starts its own trace, whatever an
      // integrator's traceparent says (it is kept only as a link), and the services follow the gateway's decision.
      traceAtEdge(app.server);

      app.get(
        '/api/v1/health',
        { schema: { response: { 200: HealthSchema } } },
        async (request) => ({
          object: 'health' as const,
          service: 'service-gateway' as const,
          status: 'ok' as const,
          version: 'v1' as const,
          request_id: request.id,
        }),
      );
      registerOpenApiRoute(app);
      registerAsyncApiRoute(app);
      registerDocsRoute(app);
      registerDashboardRoute(app);
      await registerAdminRoutes(app, ctx, checkAdminToken);
      // What every forwarding scope shares: the services, the signing key, the timeout and the admission bound.
      const forwarding = {
        upstreams: deps.upstreams,
        principalKey,
        timeoutMs: vars.UPSTREAM_TIMEOUT_MS,
        admission,
      };
      const operatorPrincipal = (request: FastifyRequest): OperatorPrincipal => ({
        kind: 'operator',
        requestId: request.id,
        expiresAtMs: Date.now() + PRINCIPAL_TTL_MS,
      });
      await registerForwarding(app, {
        routes: OPERATOR_ROUTES,
        authorize: async (request) => {
          checkAdminToken(request);
          await assertTenantExists(context.db, request);
          return operatorPrincipal(request);
        },
        ...forwarding,
        latencyAdaptsLimit: false,
      });
      await registerForwarding(app, {
        routes: PROVIDER_ROUTES,
        // See PROVIDER_ROUTES: no key; charges authenticates the PSP by the client certificate the ingress forwards, and acts on nothing it says unconfirmed.
        authorize: async (request) => operatorPrincipal(request),
        ...forwarding,
      });
      await registerForwarding(app, {
        routes: PUBLIC_ROUTES,
        // At capacity a request is refused once its key is checked and before the KYC read: shedding
        // an overload must not cost the database a query per refusal.
        authorize: (request, route) =>
          authenticator.principalFor(request, route, () => admission.assertRoom(route.service)),
        checkBody: async (principal, route, body) => {
          if (route.splitRecipientsKyc && principal.kind === 'api_key')
            await authenticator.assertSplitRecipientsApproved(principal, body);
        },
        ...forwarding,
      });

      const byService = (values: Partial<Record<string, number>>) =>
        Object.entries(values).map(([service, value]) => ({
          value: value ?? 0,
          attributes: { service },
        }));
      const stopObservingInFlight = observeGauge(GATEWAY_UPSTREAM_IN_FLIGHT, () =>
        byService(admission.snapshot()),
      );
      const stopObservingLimits = observeGauge(GATEWAY_UPSTREAM_LIMIT, () =>
        byService(admission.limits()),
      );
      started = { ctx, admission };
      return {
        onStop: async () => {
          stopObservingInFlight();
          stopObservingLimits();
        },
      };
    },
  };
}
