export { childEnv } from './child-env';
export { integrationEnv, uniqueName, waitFor } from './testing';
export type { IntegrationEnv } from './testing';
