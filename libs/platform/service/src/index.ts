export { ManualClock, systemClock } from './clock';
export type { Clock } from './clock';
export { migrateOnStart, migrateService, PROBE_ROUTES, startService } from './service';
export type {
  ConsumerDefinition,
  PeerRequest,
  PeerResponse,
  Peers,
  RunningService,
  ServiceContext,
  ServiceDefinition,
  ServiceParts,
} from './service';
export { HttpPeers, InjectPeers } from './peers';
export { reportBrokenInvariants } from './invariants';
export type { InvariantLog } from './invariants';
export {
  BusEnv,
  busFromConfig,
  busFromEnv,
  MigrateEnv,
  peerUrlsFromEnv,
  PEER_URL_VARIABLES,
  runMain,
  runServiceMain,
  ServiceMainEnv,
} from './main';
export type { Stop } from './main';
export type { StartOptions } from './service';
