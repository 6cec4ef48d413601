export { migrateGateway, startGateway } from './gateway';
export type {
  DemoCredentials,
  GatewayDeps,
  GatewayOptions,
  RunningGateway,
  ServiceName,
  Upstreams,
} from './gateway';
export { gatewayService, KEY_CACHE_TTL_MS } from './service';
export type { GatewayDefinition } from './service';
export { gatewayMigrations } from './migrations';
export { JOB_OWNERS, OPERATOR_ROUTES, PROVIDER_ROUTES, PUBLIC_ROUTES } from './routes.table';
export type { ForwardedRoute, PublicRoute } from './routes.table';
export { PERMISSIONS } from './auth/permissions';
export type { Permission } from './auth/permissions';
export { SELLER_DEFAULTS, TENANT_DEFAULTS } from '@pgw/gateway-domain/defaults';
