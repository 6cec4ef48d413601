import { SERVICES } from '../../apps/all-in-one/src/services';
import { startAllInOne } from '../../apps/all-in-one/src/all-in-one';
import { registerAdminRoutes } from '../../apps/gateway/src/routes/admin.plugin';
import type { RouteContext } from '../../apps/gateway/src/routes/route-context';
import {
  OPERATOR_ROUTES,
  PUBLIC_ROUTES,
  type ForwardedRoute,
  type PublicRoute,
} from '../../apps/gateway/src/routes.table';
import { buildApp, ErrorBodySchema, errorStatus, type ErrorCode } from '@pgw/platform-http';
import { ManualClock, type ServiceDefinition } from '@pgw/platform-service';
import { signWebhook } from '@pgw/webhook-signature';
import { Components, type JsonSchema } from './components';
import { EXAMPLES_NOW, recordExamples, type Examples, type Exchange } from './examples';
import { ADMIN_INTRODUCTION, PUBLIC_INTRODUCTION } from './introduction';
import {
  ADMIN_OPERATIONS,
  GATEWAY_OPERATIONS,
  PUBLIC_OPERATIONS,
  type OperationDoc,
} from './operations';
import { EVENT_SCHEMA, SIGNATURE_HEADER, webhooksOf } from './webhooks';

// The OpenAPI documents are generated from the schemas the services and the gateway register on their
// routes, so they cannot drift from what they validate and serialize; operations.ts adds the names and
// the prose, examples.ts real answers. The services are already built inside startService, so the only
// place to see a route's schema is an onRoute hook added before the service's own routes: each
// definition's build is wrapped to add one. The gateway's own operator routes are registered once more
// on a bare app, with the same hook, since the gateway is built inside startAllInOne.

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

export interface Capture {
  routes: CapturedRoute[];
  examples: Examples;
}

/**
 * Starts the all-in-one (in memory, silent, its clock stopped at EXAMPLES_NOW) with every route observed,
 * records the examples through it, runs `whileRunning`, then stops it.
 */
export async function captureRoutes(
  whileRunning?: (url: string) => Promise<void>,
): Promise<Capture> {
  const routes: CapturedRoute[] = [];
  const observe =
    (service: string) =>
    (options: { method: string | string[]; url: string; schema?: unknown }) => {
      for (const method of [options.method].flat())
        routes.push({
          service,
          method: String(method),
          url: options.url,
          schema: plain(options.schema ?? {}) as RouteSchema,
        });
    };
  const observed = SERVICES.map((definition): ServiceDefinition => ({
    ...definition,
    build: async (app, context) => {
      app.addHook('onRoute', observe(definition.name));
      return definition.build(app, context);
    },
  }));
  const gateway = buildApp({ name: 'gateway', log: { level: 'silent' } });
  gateway.addHook('onRoute', observe('gateway'));
  // Registering reads nothing of the context: only the handlers do, and none runs on this app.
  await registerAdminRoutes(gateway, {} as RouteContext, () => undefined);
  await gateway.close();

  const system = await startAllInOne({
    dataDir: null,
    port: 0,
    demo: false,
    clock: new ManualClock(EXAMPLES_NOW),
    log: { level: 'silent' },
    services: observed,
  });
  let examples: Examples;
  try {
    examples = await recordExamples(system.url, system.adminToken);
    await whileRunning?.(system.url);
  } finally {
    await system.stop();
  }
  return { routes, examples };
}

// TypeBox marks schemas with symbol keys; a JSON round trip keeps exactly the JSON Schema.
const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value)) as unknown;

const IDEMPOTENT = new Set([
  'POST /api/v1/charges',
  'POST /api/v1/charges/:id/capture',
  'POST /api/v1/charges/:id/refund',
  'POST /api/v1/anticipations',
]);

const ERROR_TITLES: Record<string, string> = {
  '401': 'Not authenticated',
  '403': 'Not permitted',
  '404': 'Not found',
  '409': 'Idempotency conflict',
  '422': 'Invalid request',
  '429': 'Too many requests',
  '500': 'Internal error',
  '502': 'Payment provider unavailable',
  '503': 'Service unavailable: retry after Retry-After seconds, with the same Idempotency-Key',
};

const openApiPath = (url: string) => url.replace(/:([A-Za-z_]+)/g, '{$1}');
const keyOf = (route: ForwardedRoute) => `${route.method} ${route.url}`;

/** The error codes each status of an operation can carry, by what the route is. */
function errorCodes(
  route: ForwardedRoute & Partial<PublicRoute>,
  doc: OperationDoc,
  schema: RouteSchema,
  admin: boolean,
): Map<string, ErrorCode[]> {
  const codes: ErrorCode[] = admin
    ? ['admin_token_invalid']
    : ['api_key_missing', 'api_key_invalid', 'api_key_revoked', 'permission_denied'];
  if (route.sellerScope) codes.push('seller_scope_required');
  if (route.kyc || route.splitRecipientsKyc) codes.push('seller_kyc_required');
  if (route.url.includes(':')) codes.push('resource_not_found');
  if (IDEMPOTENT.has(keyOf(route))) codes.push('idempotency_key_reused', 'idempotency_key_in_use');
  if (schema.body !== undefined || schema.querystring !== undefined || route.method === 'POST')
    codes.push('parameter_missing', 'parameter_invalid', 'parameter_unknown');
  if (schema.body !== undefined) codes.push('invalid_json');
  codes.push(...(doc.invalid ?? []));
  if (!admin) codes.push('rate_limited');
  if (doc.extra?.includes('502')) codes.push('provider_unavailable');
  codes.push('internal_error', 'service_unavailable');
  const byStatus = new Map<string, ErrorCode[]>();
  for (const code of codes) {
    const status = String(errorStatus(code));
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return byStatus;
}

const exampleKey = (name: string) => name.replace(/[^A-Za-z0-9]+/g, '_');

function examplesOf(
  exchanges: readonly Exchange[],
  pick: (e: Exchange) => unknown,
): Record<string, JsonSchema> | undefined {
  if (exchanges.length === 0) return undefined;
  return Object.fromEntries(
    exchanges.map((e) => [exampleKey(e.name), { summary: e.name, value: pick(e) }]),
  );
}

function operationOf(
  route: ForwardedRoute & Partial<PublicRoute>,
  doc: OperationDoc,
  schema: RouteSchema,
  components: Components,
  recorded: readonly Exchange[],
  admin: boolean,
): JsonSchema {
  const key = keyOf(route);
  const responses: Record<string, JsonSchema> = {};
  for (const [status, body] of Object.entries(schema.response ?? {})) {
    const examples = examplesOf(
      recorded.filter((e) => String(e.status) === status),
      (e) => e.response,
    );
    responses[status] = {
      description: doc.resource ?? 'Success',
      content: {
        'application/json': {
          schema: doc.resource !== undefined ? components.answer(doc.resource, body, key) : body,
          ...(examples ? { examples } : {}),
        },
      },
    };
  }
  for (const [status, codes] of [...errorCodes(route, doc, schema, admin)].sort(([a], [b]) =>
    a.localeCompare(b),
  )) {
    const examples = examplesOf(
      recorded.filter((e) => String(e.status) === status),
      (e) => e.response,
    );
    responses[status] = {
      description: `${ERROR_TITLES[status] ?? 'Error'}: ${codes.map((c) => `\`${c}\``).join(', ')}`,
      headers: {
        'X-Request-Id': { $ref: '#/components/headers/RequestId' },
        ...(status === '503' ? { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } } : {}),
      },
      content: {
        'application/json': {
          schema: { $ref: '#/components/schemas/Error' },
          ...(examples ? { examples } : {}),
        },
      },
    };
  }
  const requestExamples = examplesOf(
    recorded.filter((e) => e.request !== undefined && e.status < 400),
    (e) => e.request,
  );
  return {
    operationId: doc.operationId,
    summary: doc.summary,
    description: doc.description,
    tags: [doc.tag],
    ...(route.permission !== undefined
      ? {
          'x-permission': route.permission,
          'x-seller-scope': route.sellerScope,
          'x-kyc-required': route.kyc,
        }
      : {}),
    parameters: parametersOf(route, schema),
    ...(schema.body
      ? {
          requestBody: {
            required: key !== 'POST /api/v1/charges/:id/refund',
            content: {
              'application/json': {
                schema: schema.body,
                ...(requestExamples ? { examples: requestExamples } : {}),
              },
            },
          },
        }
      : {}),
    responses,
  };
}

function parametersOf(route: ForwardedRoute, schema: RouteSchema): JsonSchema[] {
  const parameters: JsonSchema[] = [];
  const pathNames = [...route.url.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1]!);
  const paramProps = (schema.params?.properties ?? {}) as Record<string, JsonSchema>;
  for (const name of pathNames)
    parameters.push({
      name,
      in: 'path',
      required: true,
      schema: paramProps[name] ?? { type: 'string' },
    });
  const query = schema.querystring;
  const required = new Set((query?.required ?? []) as string[]);
  for (const [name, property] of Object.entries(
    (query?.properties ?? {}) as Record<string, JsonSchema>,
  )) {
    parameters.push({ name, in: 'query', required: required.has(name), schema: property });
  }
  // Inline rather than a $ref: tools reading the document (the hostile-input spec among them) find it by name.
  if (IDEMPOTENT.has(keyOf(route))) {
    parameters.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        'Same key and request: the first answer is replayed (Idempotent-Replayed: true); kept 24 hours.',
      schema: { type: 'string', minLength: 1, maxLength: 255 },
    });
  }
  return parameters;
}

/** Adds every route of `routes` that a running service registered, described by `docs`, to `paths`. */
function describeRoutes<R extends ForwardedRoute>(
  routes: readonly R[],
  docs: Readonly<Record<string, OperationDoc>>,
  captured: readonly CapturedRoute[],
  examples: Examples,
  components: Components,
  paths: Record<string, Record<string, JsonSchema>>,
  admin: boolean,
): void {
  for (const route of routes) {
    const owned = captured.find(
      (c) => c.service === route.service && c.method === route.method && c.url === route.url,
    );
    if (owned === undefined)
      throw new Error(`${keyOf(route)}: the ${route.service} service registers no such route`);
    const doc = docs[keyOf(route)];
    if (doc === undefined)
      throw new Error(`${keyOf(route)}: no entry in tools/openapi/operations.ts`);
    (paths[openApiPath(route.url)] ??= {})[route.method.toLowerCase()] = operationOf(
      route,
      doc,
      owned.schema,
      components,
      examples.routes[keyOf(route)] ?? [],
      admin,
    );
  }
  const described = new Set(routes.map(keyOf));
  const stale = Object.keys(docs).filter((key) => !described.has(key));
  if (stale.length > 0)
    throw new Error(
      `tools/openapi/operations.ts describes routes that are not served: ${stale.join(', ')}`,
    );
}

const tagsOf = (
  paths: Record<string, Record<string, JsonSchema>>,
  descriptions: Record<string, string>,
) => {
  const names = [
    ...new Set(
      Object.values(paths).flatMap((ops) =>
        Object.values(ops).flatMap((op) => op.tags as string[]),
      ),
    ),
  ];
  return names.map((name) => ({ name, description: descriptions[name] ?? name }));
};

const SHARED_COMPONENTS = {
  headers: {
    RequestId: {
      description: 'The request id, also in the body: quote it when asking for help.',
      schema: { type: 'string', pattern: '^req_' },
    },
    RetryAfter: {
      description: 'Seconds to wait before retrying.',
      schema: { type: 'integer', minimum: 0 },
    },
  },
};

const TAG_DESCRIPTIONS: Record<string, string> = {
  'Payment methods': 'Cards exchanged for tokens: the number never reaches a charge.',
  Charges: 'Card, Pix and boleto charges, their capture and their refunds.',
  Balance: "The seller's balance and every entry that moved it.",
  Receivables: 'The schedule of what each charge pays the seller, installment by installment.',
  Settlements: 'Payouts of available receivables.',
  Chargebacks: 'Disputes opened by card issuers.',
  Anticipations: 'Receiving pending receivables now, for a fee.',
  Meta: 'The API itself.',
  Webhooks: 'Events sent to the tenant’s endpoints, signed in X-Signature (see the introduction).',
  Tenants: 'White-label integrators.',
  Sellers: "A tenant's merchants and their KYC.",
  'Pricing plans': 'MDR, anticipation fee and settlement delay.',
  'API keys': 'Keys for the public API.',
  Simulations: 'Test mode: what the buyer, the issuer and the acquirer would do.',
  Jobs: 'The daily jobs, run by hand for a date.',
  'Dead letters': 'Events a service parked because it could not apply them.',
};

/** The OpenAPI 3.1 document of every PUBLIC_ROUTES entry and the events of contract §7. */
export function buildDocument(capture: Capture): JsonSchema {
  const { routes: captured, examples } = capture;
  const components = new Components();
  const paths: Record<string, Record<string, JsonSchema>> = {};
  const gatewayRoutes = Object.keys(GATEWAY_OPERATIONS).map((key) => ({
    method: key.split(' ')[0]!,
    url: key.split(' ')[1]!,
  }));
  for (const { method, url } of gatewayRoutes) {
    const doc = GATEWAY_OPERATIONS[`${method} ${url}`]!;
    (paths[url] ??= {})[method.toLowerCase()] = {
      operationId: doc.operationId,
      summary: doc.summary,
      description: doc.description,
      tags: [doc.tag],
      security: [],
      responses: {
        '200': {
          description: doc.summary,
          content: { 'application/json': { schema: { type: 'object' } } },
        },
      },
    };
  }
  const running = new Set(captured.map((c) => c.service));
  // A service this deployment does not run has no routes to describe (the gateway answers them 404).
  const routes = PUBLIC_ROUTES.filter((r) => running.has(r.service));
  describeRoutes(
    routes,
    Object.fromEntries(
      Object.entries(PUBLIC_OPERATIONS).filter(([key]) => routes.some((r) => keyOf(r) === key)),
    ),
    captured,
    examples,
    components,
    paths,
    false,
  );
  const webhooks = webhooksOf(components, examples.events);
  const signed = examples.events['charge.paid'];
  return {
    ...documentHead('Payment gateway API', PUBLIC_INTRODUCTION),
    security: [{ apiKey: [] }],
    tags: tagsOf({ ...paths, ...webhooks }, TAG_DESCRIPTIONS),
    paths,
    webhooks,
    components: {
      securitySchemes: {
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key secret, sk_test_… or sk_live_…',
        },
      },
      schemas: {
        Error: plain(ErrorBodySchema),
        Event: EVENT_SCHEMA,
        ...sorted(components.schemas),
      },
      parameters: {
        Signature: {
          ...SIGNATURE_HEADER,
          // A real signature: the charge.paid example's body signed with the secret whsec_example at EXAMPLES_NOW.
          ...(signed !== undefined
            ? {
                example: signWebhook(
                  'whsec_example',
                  JSON.stringify(signed),
                  EXAMPLES_NOW.getTime() / 1000,
                ),
              }
            : {}),
        },
      },
      ...SHARED_COMPONENTS,
    },
  };
}

/** The head both documents share: OpenAPI 3.1, the API's title and introduction, the local server. */
function documentHead(title: string, description: string): JsonSchema {
  return {
    openapi: '3.1.0',
    info: {
      title,
      version: 'v1',
      description,
      license: { name: 'UNLICENSED', identifier: 'UNLICENSED' },
    },
    servers: [{ url: 'http://127.0.0.1:8080', description: '`npm start` on this machine' }],
  };
}

/** The OpenAPI 3.1 document of the operator API: the gateway's directory and OPERATOR_ROUTES. */
export function buildAdminDocument(capture: Capture): JsonSchema {
  const { routes: captured, examples } = capture;
  const components = new Components();
  const paths: Record<string, Record<string, JsonSchema>> = {};
  const gatewayRoutes = captured
    .filter((c) => c.service === 'gateway' && c.method !== 'HEAD')
    .map((c) => ({
      method: c.method as ForwardedRoute['method'],
      url: c.url,
      service: 'gateway' as ForwardedRoute['service'],
    }));
  const running = new Set(captured.map((c) => c.service));
  const routes = [...gatewayRoutes, ...OPERATOR_ROUTES.filter((r) => running.has(r.service))];
  describeRoutes(routes, ADMIN_OPERATIONS, captured, examples, components, paths, true);
  return {
    ...documentHead('Payment gateway operator API', ADMIN_INTRODUCTION),
    security: [{ adminToken: [] }],
    tags: tagsOf(paths, TAG_DESCRIPTIONS),
    paths,
    components: {
      securitySchemes: {
        adminToken: {
          type: 'http',
          scheme: 'bearer',
          description: "The deployment's ADMIN_TOKEN (npm start prints it).",
        },
      },
      schemas: { Error: plain(ErrorBodySchema), ...sorted(components.schemas) },
      ...SHARED_COMPONENTS,
    },
  };
}

const sorted = (record: Record<string, JsonSchema>) =>
  Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));

/** The document as committed: two-space JSON and a final newline. */
export const serialize = (document: JsonSchema): string => `${JSON.stringify(document, null, 2)}\n`;
