export { startGateway } from './gateway';
export type { DemoCredentials, GatewayOptions, RunningGateway, ServiceName, Upstreams } from './gateway';
