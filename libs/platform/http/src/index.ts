export { buildApp, isDatabaseUnavailable, sendError } from './build-app';
export type { App, AppOptions } from './build-app';
export {
  ApiError,
  errorBody,
  errorStatus,
  errorType,
  isErrorCode,
  LoadShedError,
  notFound,
  ERROR_TYPES,
} from './errors';
export type { ErrorBody, ErrorCode, ErrorType } from './errors';
export { newRequestId, REQUEST_ID_PATTERN } from './ids';
export { exportLogLines } from './log-export';
export { injectAsOwnRequest } from './inject';
export { timeClientRequest } from './client-metrics';
export type { ClientRequestTimer } from './client-metrics';
export {
  canonicalPath,
  canonicalQuery,
  envPrincipalPublicKeys,
  generatePrincipalKeys,
  PRINCIPAL_HEADER,
  PRINCIPAL_TTL_MS,
  principalPrivateKey,
  principalPublicKey,
  requestBinding,
  sameRequest,
  signPrincipal,
  verifyPrincipal,
} from './principal';
export type {
  ApiKeyPrincipal,
  OperatorPrincipal,
  Principal,
  PrincipalBinding,
  PrincipalKeyPair,
  VerifiedPrincipal,
} from './principal';
export { TestPrincipals } from './principal-testing';
export {
  apiPrincipal,
  apiScope,
  principalPlugin,
  requireOperator,
  scopeOf,
  sellerPrincipal,
} from './principal-plugin';
export type { PrincipalPluginOptions, PrincipalScope } from './principal-plugin';
export {
  ErrorBodySchema,
  ListEnvelope,
  listPage,
  literals,
  Nullable,
  PagingQuery,
  pagingOf,
  RequestIdSchema,
} from './schemas';
export type { ListPage } from './schemas';
export { ConfigError } from './config';
export { readEnv } from './env';
export { checkedOptionalBody, emptyBodyAsObject } from './optional-body';
export { validationToApiError } from './validation';
// Pure, so they live in @pgw/domain (charges' domain checks metadata with them); re-exported for the routes.
export { nestsDeeperThan, serializesLongerThan } from '@pgw/domain';
export { isBlockedAddress, webhookUrlProblem } from './webhook-target';
export { JobResultSchema } from './job-result';
