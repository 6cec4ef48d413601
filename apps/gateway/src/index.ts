export { KEY_CACHE_TTL_MS, startGateway } from './gateway';
export type { DemoCredentials, GatewayOptions, RunningGateway, ServiceName, Upstreams } from './gateway';
export { gatewayMigrations } from './migrations';
export { JOB_OWNERS, OPERATOR_ROUTES, PROVIDER_ROUTES, PUBLIC_ROUTES } from './routes.table';
export type { ForwardedRoute, PublicRoute } from './routes.table';
export { PERMISSIONS } from './auth/permissions';
export type { Permission } from './auth/permissions';
export { SELLER_DEFAULTS, TENANT_DEFAULTS } from './directory/defaults';
