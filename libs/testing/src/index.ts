export { integrationEnv, uniqueName, waitFor } from './testing';
export type { IntegrationEnv } from './testing';
