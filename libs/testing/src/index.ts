export { childEnv } from './child-env';
export { integrationEnv, schemaRegistryUrl, uniqueName, waitFor } from './testing';
export type { IntegrationEnv } from './testing';
