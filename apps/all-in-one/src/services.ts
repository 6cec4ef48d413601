import type { ServiceDefinition } from '@pgw/platform-service';

/**
 * Every service the all-in-one process runs, in start order. A new service adds its definition here;
 * the gateway reaches it by its name.
 */
export const SERVICES: ServiceDefinition[] = [];
