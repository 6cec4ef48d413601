import { assert } from '@pgw/domain';
import type { KeyObject } from 'node:crypto';
import httpProxy from '@fastify/http-proxy';
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  RawServerBase,
  RouteGenericInterface,
} from 'fastify';
import {
  ApiError,
  errorBody,
  injectAsOwnRequest,
  notFound,
  sendError,
  timeClientRequest,
  type App,
  type Principal,
} from '@pgw/platform-http';
import { findRoute, type ForwardedRoute, type ServiceName } from '../routes.table';
import { overCapacity, type Admission } from './admission';
import {
  forwardRequestHeaders,
  forwardResponseHeaders,
  type ForwardIdentity,
} from './forward-headers';
import { forwardedBody, parseJsonBody, useRawJsonBodies } from './raw-json-body';

/** How the gateway reaches the services: @fastify/http-proxy over HTTP, or in-process without a network hop. */
export type Upstreams =
  | { mode: 'http'; baseUrls: Partial<Record<ServiceName, string>> }
  | { mode: 'inject'; apps: Map<ServiceName, App> };

export interface ForwardingOptions<R extends ForwardedRoute> {
  routes: readonly R[];
  /** Decides who the caller is and whether they may call `route`; throws the contract's 401/403/429. */
  authorize: (request: FastifyRequest, route: R) => Promise<Principal>;
  /** Checks of the parsed JSON body that need the gateway's own data (after authorize and invalid_json); throws the contract's error. */
  checkBody?: (principal: Principal, route: R, body: unknown) => Promise<void>;
  upstreams: Upstreams;
  /** The gateway's signing key (PRINCIPAL_PRIVATE_KEY): no service holds it. */
  principalKey: KeyObject;
  /** How long a service may take to answer before the gateway gives up on it. */
  timeoutMs: number;
  /** The bound on requests in flight per service, shared by every forwarding scope of the gateway. */
  admission: Admission;
  /**
   * Whether these routes' latencies move the services' adaptive limits (admission.ts); false for the
   * operator's jobs, which are long by design. Default true.
   */
  latencyAdaptsLimit?: boolean;
}

type ForwardSettings = Pick<
  ForwardingOptions<ForwardedRoute>,
  'principalKey' | 'timeoutMs' | 'admission' | 'latencyAdaptsLimit'
>;

/**
 * Registers `routes` as forwarded routes. Both modes run the same preValidation (authorize, then check
 * the JSON, then checkBody) before anything reaches a service; they differ only in how the bytes travel.
 * A route whose service does not run in this deployment answers 404 after the same checks.
 */
export async function registerForwarding<R extends ForwardedRoute>(
  app: App,
  options: ForwardingOptions<R>,
): Promise<void> {
  await app.register(async (scope: FastifyInstance) => {
    useRawJsonBodies(scope);
    const preValidation = async (request: FastifyRequest): Promise<void> => {
      const route = findRoute(options.routes, request.method, request.routeOptions.url);
      const asked = { method: request.method, route: request.routeOptions.url ?? '' };
      assert(route !== undefined, 'forwarding.rule-for-route', asked);
      const principal = await options.authorize(request, route);
      request.principal = principal;
      const body = parseJsonBody(request);
      if (options.checkBody !== undefined) await options.checkBody(principal, route, body);
    };
    if (options.upstreams.mode === 'inject') {
      registerInject(scope, options.routes, options.upstreams.apps, preValidation, options);
    } else {
      await registerHttp(scope, options.routes, options.upstreams.baseUrls, preValidation, options);
    }
  });
}

type PreValidation = (request: FastifyRequest) => Promise<void>;

function requirePrincipal(request: { principal: Principal | null }): Principal {
  const principal = request.principal;
  assert(principal !== null, 'forwarding.request-authorized');
  return principal;
}

/** Who calls and for which request: the principal is signed for this method and URL, which the service receives unchanged. */
function forwardIdentity(
  request: { principal: Principal | null; method: string; url: string; id: string; ip: string },
  options: ForwardSettings,
): ForwardIdentity {
  return {
    principal: requirePrincipal(request),
    principalKey: options.principalKey,
    request: { method: request.method, url: request.url },
    requestId: request.id,
    clientIp: request.ip,
  };
}

function registerInject(
  scope: FastifyInstance,
  routes: readonly ForwardedRoute[],
  apps: Map<ServiceName, App>,
  preValidation: PreValidation,
  options: ForwardSettings,
): void {
  for (const route of routes) {
    scope.route({
      method: route.method,
      url: route.url,
      preValidation,
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        // Looked up per request: a service that starts after the gateway is reached as soon as it is there.
        const target = apps.get(route.service);
        if (target === undefined) throw notFound('route');
        const release = options.admission.tryEnter(
          route.service,
          options.latencyAdaptsLimit ?? true,
        );
        if (release === null) return sendError(reply, overCapacity(route.service));
        const body = forwardedBody(request);
        const identity = forwardIdentity(request, options);
        let response;
        let failed = true;
        try {
          response = await withDeadline(
            injectAsOwnRequest(target, {
              method: route.method,
              url: request.url,
              headers: forwardRequestHeaders(request.headers, identity, {
                framing: true,
                hasBody: body !== null,
              }),
              ...(body !== null ? { payload: body } : {}),
            }),
            options.timeoutMs,
            route.service,
          );
          failed = false;
        } finally {
          // The service answered, failed or ran out of time: as in the http mode, where the HTTP client
          // gives up on the request at the same deadline.
          release({ failed });
        }
        reply.headers(forwardResponseHeaders(response.headers));
        reply.header('x-request-id', request.id);
        return reply.code(response.statusCode).send(response.rawPayload);
      },
    });
  }
}

async function withDeadline<T>(work: Promise<T>, timeoutMs: number, service: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new ApiError('service_unavailable', `The ${service} service did not answer in time.`),
        ),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

async function registerHttp(
  scope: FastifyInstance,
  routes: readonly ForwardedRoute[],
  baseUrls: Partial<Record<ServiceName, string>>,
  preValidation: PreValidation,
  options: ForwardSettings,
): Promise<void> {
  // One @fastify/http-proxy per service and method, listing exactly the table's paths: the proxy never
  // sees a path the table does not name.
  const groups = new Map<
    string,
    { service: ServiceName; method: ForwardedRoute['method']; urls: string[] }
  >();
  for (const route of routes) {
    const id = `${route.service} ${route.method}`;
    const group = groups.get(id) ?? { service: route.service, method: route.method, urls: [] };
    group.urls.push(route.url);
    groups.set(id, group);
  }
  for (const { service, method, urls } of groups.values()) {
    const upstream = baseUrls[service];
    if (upstream === undefined) {
      for (const url of urls) {
        scope.route({
          method,
          url,
          preValidation,
          handler: async () => {
            throw notFound('route');
          },
        });
      }
      continue;
    }
    await scope.register(httpProxy, {
      upstream,
      httpMethods: [method],
      routes: urls,
      preValidation: (request, _reply, done) => {
        preValidation(request).then(() => done(), done);
      },
      disableRequestLogging: true,
      // One connection per admitted request at most: the client never queues requests of its own.
      undici: {
        connections: options.admission.inFlightMax,
        pipelining: 1,
        headersTimeout: options.timeoutMs,
        bodyTimeout: options.timeoutMs,
      },
      handler: (request, reply, dest, fromOptions) => {
        const release = options.admission.tryEnter(service, options.latencyAdaptsLimit ?? true);
        if (release === null) return sendError(reply, overCapacity(service));
        const body = forwardedBody(request);
        const timer = timeClientRequest(request.method, new URL(dest, upstream));
        try {
          return reply.from(dest, {
            ...fromOptions,
            ...(body !== null
              ? { body, contentType: request.headers['content-type'] ?? 'application/json' }
              : { body: null }),
            // The slot is given back when the service has answered (its headers are in: reply-from calls
            // this for every answer, also when the client has already gone, whose request the service
            // still works on) or when the exchange failed (unreachable, reset, past the deadline).
            rewriteHeaders: (headers, req) => {
              release();
              return fromOptions.rewriteHeaders === undefined
                ? headers
                : fromOptions.rewriteHeaders(headers, req);
            },
            onError: (failedReply, failure) => {
              release({ failed: true });
              timer.failed(failure.error);
              upstreamFailed(failedReply, failure.error, service);
            },
            // reply-from's own answer (the stream sent on), with the upstream's status measured first. Its
            // types call `res` a server response; it is the client's answer: status, headers and stream.
            onResponse: (_request, answer, res) => {
              const upstreamAnswer = res as unknown as {
                statusCode: number;
                stream: NodeJS.ReadableStream;
              };
              timer.answered(upstreamAnswer.statusCode);
              void answer.send(upstreamAnswer.stream);
            },
          });
        } catch (error) {
          // reply.from throws only before it sends anything.
          release({ failed: true });
          throw error;
        }
      },
      replyOptions: {
        rewriteRequestHeaders: (request, headers) => {
          return forwardRequestHeaders(headers, forwardIdentity(request, options), {
            framing: false,
            hasBody: forwardedBody(request) !== null,
          });
        },
        rewriteHeaders: (headers, request) => ({ ...headers, 'x-request-id': request?.id }),
        // The client retries (with its Idempotency-Key); a proxy that retries on its own could repeat a charge.
        retryDelay: () => null,
      },
    });
  }
}

function upstreamFailed(
  reply: FastifyReply<RouteGenericInterface, RawServerBase>,
  error: Error,
  service: ServiceName,
): void {
  reply.request.log.warn({ err: error, service }, 'upstream service failed');
  const failure = new ApiError('service_unavailable', `The ${service} service did not answer.`);
  reply
    .code(failure.status)
    .type('application/json; charset=utf-8')
    .send(errorBody(failure, reply.request.id));
}
