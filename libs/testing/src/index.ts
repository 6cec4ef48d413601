export { childEnv } from './child-env';
export {
  integrationEnv,
  schemaRegistryUrl,
  statementsDuring,
  uniqueName,
  waitFor,
} from './testing';
export type { IntegrationEnv } from './testing';
