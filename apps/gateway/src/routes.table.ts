import type { AccessRule } from './auth/api-key-auth';

// Every route the gateway forwards, in one table: what it needs of the caller and which service owns it.
// The gateway forwards a request at the same path to its service, so the service registers these paths
// as they are written here. A path that is not in this table is never forwarded (404), which is also
// what keeps the services' /internal/... routes off the internet.

export type ServiceName =
  'vault' | 'charges' | 'ledger' | 'receivables' | 'anticipation' | 'webhooks' | 'acquirer-sim';

export type ForwardMethod = 'GET' | 'POST' | 'PUT';

export interface ForwardedRoute {
  method: ForwardMethod;
  /** Fastify URL pattern, the same at the gateway and at the service. */
  url: string;
  service: ServiceName;
}

export interface PublicRoute extends ForwardedRoute, AccessRule {
  /** Every split recipient the body names must have KYC approved (POST /charges, contract §4a). */
  splitRecipientsKyc: boolean;
}

/**
 * `tenant`: any key of the tenant; `seller`: a seller-scoped key; `+kyc`: the key's seller, when it has
 * one, must have KYC approved (contract §4a: tokenize, and a charge of any method of its seller).
 */
type Scope = 'tenant' | 'tenant+kyc' | 'seller' | 'seller+kyc';

const route = (
  method: ForwardMethod,
  url: string,
  service: ServiceName,
  permission: AccessRule['permission'],
  scope: Scope = 'tenant',
): PublicRoute => ({
  method,
  url,
  service,
  permission,
  sellerScope: scope.startsWith('seller'),
  kyc: scope.endsWith('+kyc'),
  splitRecipientsKyc: false,
});

/** GET `url` (a list) and GET `url`/:id (one of it), read under one permission and scope. */
const collection = (
  url: string,
  service: ServiceName,
  permission: AccessRule['permission'],
  scope: Scope = 'tenant',
): PublicRoute[] => [
  route('GET', url, service, permission, scope),
  route('GET', `${url}/:id`, service, permission, scope),
];

/** api-v1.md §4, every endpoint but GET /health (answered by the gateway itself). */
export const PUBLIC_ROUTES: readonly PublicRoute[] = [
  route(
    'POST',
    '/api/v1/payment-methods/tokenize',
    'vault',
    'payment_methods:tokenize',
    'seller+kyc',
  ),
  {
    ...route('POST', '/api/v1/charges', 'charges', 'charges:create', 'tenant+kyc'),
    splitRecipientsKyc: true,
  },
  ...collection('/api/v1/charges', 'charges', 'charges:read'),
  // Not in api-v1.md (issue 22, the dashboard's charge page): a charge's refunds and its history, read as the charge is.
  route('GET', '/api/v1/charges/:id/refunds', 'charges', 'charges:read'),
  route('GET', '/api/v1/charges/:id/events', 'charges', 'charges:read'),
  route('POST', '/api/v1/charges/:id/capture', 'charges', 'charges:create'),
  route('POST', '/api/v1/charges/:id/refund', 'charges', 'refunds:create'),
  route('GET', '/api/v1/balance', 'ledger', 'balance:read', 'seller'),
  route('GET', '/api/v1/balance/history', 'ledger', 'balance:read', 'seller'),
  ...collection('/api/v1/receivables', 'receivables', 'receivables:read'),
  ...collection('/api/v1/settlements', 'receivables', 'settlements:read'),
  ...collection('/api/v1/chargebacks', 'charges', 'chargebacks:read'),
  route('POST', '/api/v1/anticipations/simulate', 'anticipation', 'anticipations:read', 'seller'),
  route('POST', '/api/v1/anticipations', 'anticipation', 'anticipations:create', 'seller'),
  ...collection('/api/v1/anticipations', 'anticipation', 'anticipations:read', 'seller'),
];

/** Jobs of contract §5 and the service that runs each; any other name is a 404. */
export const JOB_OWNERS = {
  'receivables-release': 'receivables',
  'settlement-run': 'receivables',
  'authorization-expiry': 'charges',
  'pix-expiry': 'charges',
  'refund-reconciliation': 'charges',
  // Live rails (issue 23): payments the PSP and the bank confirm on their own time.
  'pix-payments': 'charges',
  'boleto-exchange': 'charges',
} as const satisfies Record<string, ServiceName>;

/** The services with consumers: each parks the events it cannot apply and lists and replays them (issue 17 item 3). */
export const PARKING_SERVICES = [
  'charges',
  'ledger',
  'receivables',
  'anticipation',
  'webhooks',
] as const satisfies readonly ServiceName[];

/** Contract §5's operator routes that services own: forwarded with an operator principal. */
export const OPERATOR_ROUTES: readonly ForwardedRoute[] = [
  { method: 'POST', url: '/admin/v1/simulations/charges/:charge_id/pay', service: 'charges' },
  { method: 'POST', url: '/admin/v1/simulations/chargebacks', service: 'charges' },
  { method: 'POST', url: '/admin/v1/simulations/chargebacks/:cb_id/resolve', service: 'charges' },
  { method: 'POST', url: '/admin/v1/simulations/provider', service: 'acquirer-sim' },
  // A tenant's live rails: charges routes every acquirer call, so it keeps which rail serves each kind.
  { method: 'PUT', url: '/admin/v1/tenants/:tenant_id/live-rails', service: 'charges' },
  { method: 'GET', url: '/admin/v1/tenants/:tenant_id/live-rails', service: 'charges' },
  // …and the registration of the tenant's Pix account's webhook at its PSP, which charges reaches.
  { method: 'PUT', url: '/admin/v1/tenants/:tenant_id/live-rails/pix/webhook', service: 'charges' },
  // Deliveries, redelivery and secret rotation: the webhooks service signs, so it keeps their state.
  { method: 'GET', url: '/admin/v1/webhook-endpoints/:id/deliveries', service: 'webhooks' },
  { method: 'GET', url: '/admin/v1/webhook-deliveries/:id', service: 'webhooks' },
  { method: 'POST', url: '/admin/v1/webhook-deliveries/:id/redeliver', service: 'webhooks' },
  { method: 'POST', url: '/admin/v1/webhook-endpoints/:id/rotate-secret', service: 'webhooks' },
  // One static path per job, so an unknown job name is the router's 404 and each job reaches its owner.
  ...Object.entries(JOB_OWNERS).map(([name, service]): ForwardedRoute => ({
    method: 'POST',
    url: `/admin/v1/jobs/${name}`,
    service,
  })),
  // Parked events (dead letters): one static path per service, so each reaches the service that parked them.
  ...PARKING_SERVICES.flatMap((service): ForwardedRoute[] => [
    { method: 'GET', url: `/admin/v1/services/${service}/dead-letters`, service },
    { method: 'POST', url: `/admin/v1/services/${service}/dead-letters/:id/replay`, service },
    { method: 'POST', url: `/admin/v1/services/${service}/dead-letters/replay`, service },
  ]),
];

/**
 * Providers' callbacks (issue 23): the API Pix webhook a tenant's PSP calls. No API key or admin token
 * comes with them: the PSP authenticates itself by mutual TLS, which the ingress terminates, forwarding
 * its client certificate in the header charges names (PIX_NOTIFY_CLIENT_CERT_HEADER). The gateway forwards
 * them with an operator principal bound to this one path (a principal is signed for its method and URL);
 * charges takes only a certificate of a tenant's configured PSP (else 401), and treats the body as a hint
 * that it confirms with the PSP before anything moves.
 */
export const PROVIDER_ROUTES: readonly ForwardedRoute[] = [
  { method: 'POST', url: '/provider/v1/pix/notifications/pix', service: 'charges' },
];

/** The table row of a matched route; HEAD is answered as the GET it mirrors. */
export function findRoute<R extends ForwardedRoute>(
  routes: readonly R[],
  method: string,
  url: string | undefined,
): R | undefined {
  const wanted = method === 'HEAD' ? 'GET' : method;
  return routes.find((r) => r.method === wanted && r.url === url);
}
