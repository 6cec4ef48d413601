import { SERVICES } from '../../apps/all-in-one/src/services';
import { startAllInOne } from '../../apps/all-in-one/src/all-in-one';
import { PUBLIC_ROUTES, type PublicRoute } from '../../apps/gateway/src/routes.table';
import { ErrorBodySchema } from '@pgw/platform-http';
import type { ServiceDefinition } from '@pgw/platform-service';

// The OpenAPI document is generated from the schemas the services register on their routes, so it cannot
// drift from what they validate and serialize. The services are already built inside startService, so
// the only place to see a route's schema is an onRoute hook added before the service's own routes: each
// definition's build is wrapped to add one.

/** A route as its service registered it: method, Fastify URL and the JSON schemas of its parts. */
export interface CapturedRoute {
  service: string;
  method: string;
  url: string;
  schema: RouteSchema;
}

interface RouteSchema {
  params?: JsonSchema;
  querystring?: JsonSchema;
  headers?: JsonSchema;
  body?: JsonSchema;
  response?: Record<string, JsonSchema>;
}

type JsonSchema = Record<string, unknown>;

/** Starts the all-in-one (in memory, silent) with every service's routes observed, runs `whileRunning`, then stops it. */
export async function captureRoutes(whileRunning?: (url: string) => Promise<void>): Promise<CapturedRoute[]> {
  const captured: CapturedRoute[] = [];
  const observed = SERVICES.map((definition): ServiceDefinition => ({
    ...definition,
    build: async (app, context) => {
      app.addHook('onRoute', (options) => {
        for (const method of [options.method].flat()) {
          captured.push({ service: definition.name, method: String(method), url: options.url, schema: plain(options.schema ?? {}) as RouteSchema });
        }
      });
      return definition.build(app, context);
    },
  }));
  const system = await startAllInOne({ dataDir: null, port: 0, demo: false, log: { level: 'silent' }, services: observed });
  try {
    await whileRunning?.(system.url);
  } finally {
    await system.stop();
  }
  return captured;
}

// TypeBox marks schemas with symbol keys; a JSON round trip keeps exactly the JSON Schema.
const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value)) as unknown;

const ERROR_ANSWERS: Record<string, string> = {
  '401': 'authentication_error: the API key is missing, invalid or revoked',
  '403': 'permission_error: permission_denied, seller_scope_required or seller_kyc_required',
  '404': 'not_found_error: resource_not_found (also an object of another tenant or of the other environment)',
  '409': 'idempotency_error: idempotency_key_reused or idempotency_key_in_use',
  '422': 'invalid_request_error: the request is invalid (code and param say which part)',
  '429': 'rate_limit_error: rate_limited',
  '500': 'api_error: internal_error',
  '502': 'provider_error: provider_unavailable',
  '503': 'api_error: service_unavailable — the service is over its in-flight bound or not answering; retry after Retry-After seconds (with the same Idempotency-Key)',
};

const IDEMPOTENT = new Set(['POST /api/v1/charges', 'POST /api/v1/charges/:id/capture', 'POST /api/v1/charges/:id/refund', 'POST /api/v1/anticipations']);

const openApiPath = (url: string) => url.replace(/:([A-Za-z_]+)/g, '{$1}');
const operationId = (route: PublicRoute) =>
  `${route.method.toLowerCase()}_${route.url.replace('/api/v1/', '').replace(/:([A-Za-z_]+)/g, 'by_$1').replace(/[^A-Za-z0-9]+/g, '_')}`;

function parametersOf(route: PublicRoute, schema: RouteSchema): JsonSchema[] {
  const parameters: JsonSchema[] = [];
  const pathNames = [...route.url.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1]!);
  const paramProps = (schema.params?.properties ?? {}) as Record<string, JsonSchema>;
  for (const name of pathNames) parameters.push({ name, in: 'path', required: true, schema: paramProps[name] ?? { type: 'string' } });
  const query = schema.querystring;
  const required = new Set((query?.required ?? []) as string[]);
  for (const [name, property] of Object.entries((query?.properties ?? {}) as Record<string, JsonSchema>)) {
    parameters.push({ name, in: 'query', required: required.has(name), schema: property });
  }
  if (IDEMPOTENT.has(`${route.method} ${route.url}`)) {
    parameters.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description: 'Same key and request: the first answer is replayed (Idempotent-Replayed: true); kept 24 hours.',
      schema: { type: 'string', minLength: 1, maxLength: 255 },
    });
  }
  return parameters;
}

function operationOf(route: PublicRoute, schema: RouteSchema): JsonSchema {
  const responses: Record<string, JsonSchema> = {};
  for (const [status, body] of Object.entries(schema.response ?? {})) {
    responses[status] = { description: 'Success', content: { 'application/json': { schema: body } } };
  }
  // Every forwarded route can be shed by the gateway's admission control, or find its service down: 503.
  const errors = ['401', '403', '404', '422', '429', '500', '503'];
  if (IDEMPOTENT.has(`${route.method} ${route.url}`)) errors.push('409');
  if (route.service === 'charges' && route.method === 'POST') errors.push('502');
  for (const status of errors.sort()) responses[status] = { $ref: `#/components/responses/Error${status}` };
  return {
    operationId: operationId(route),
    tags: [route.service],
    'x-permission': route.permission,
    'x-seller-scope': route.sellerScope,
    'x-kyc-required': route.kyc,
    parameters: parametersOf(route, schema),
    ...(schema.body ? { requestBody: { required: route.url !== '/api/v1/charges/:id/refund', content: { 'application/json': { schema: schema.body } } } } : {}),
    responses,
  };
}

/** The OpenAPI 3.1 document of every PUBLIC_ROUTES entry, from the schemas its owning service registered. */
export function buildDocument(captured: readonly CapturedRoute[]): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {
    '/api/v1/health': {
      get: { operationId: 'get_health', tags: ['gateway'], security: [], responses: { '200': { description: 'The gateway is up' } } },
    },
    '/api/v1/openapi.json': {
      get: { operationId: 'get_openapi', tags: ['gateway'], security: [], responses: { '200': { description: 'This document', content: { 'application/json': { schema: { type: 'object' } } } } } },
    },
    '/api/v1/asyncapi.json': {
      get: { operationId: 'get_asyncapi', tags: ['gateway'], security: [], responses: { '200': { description: 'The AsyncAPI 3 document of the events on the bus (docs/asyncapi.json)', content: { 'application/json': { schema: { type: 'object' } } } } } },
    },
  };
  const running = new Set(captured.map((c) => c.service));
  // A service this deployment does not run has no routes to describe (the gateway answers them 404).
  for (const route of PUBLIC_ROUTES.filter((r) => running.has(r.service))) {
    const owned = captured.find((c) => c.service === route.service && c.method === route.method && c.url === route.url);
    if (owned === undefined) throw new Error(`${route.method} ${route.url}: the ${route.service} service registers no such route`);
    const path = (paths[openApiPath(route.url)] ??= {});
    path[route.method.toLowerCase()] = operationOf(route, owned.schema);
  }
  const errorResponses = Object.fromEntries(
    Object.entries(ERROR_ANSWERS).map(([status, description]) => [
      `Error${status}`,
      {
        description,
        headers: { 'X-Request-Id': { schema: { type: 'string' } }, ...(status === '503' ? { 'Retry-After': { schema: { type: 'integer' } } } : {}) },
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      },
    ]),
  );
  return {
    openapi: '3.1.0',
    info: {
      title: 'Payment gateway API',
      version: 'v1',
      description: 'Generated by tools/openapi/generate.ts from the route schemas of the services; do not edit by hand.',
    },
    servers: [{ url: 'http://127.0.0.1:8080' }],
    security: [{ apiKey: [] }],
    paths,
    components: {
      securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'An API key secret, sk_test_… or sk_live_…' } },
      schemas: { Error: plain(ErrorBodySchema) },
      responses: errorResponses,
    },
  };
}

/** The document as committed: two-space JSON and a final newline. */
export const serialize = (document: JsonSchema): string => `${JSON.stringify(document, null, 2)}\n`;
