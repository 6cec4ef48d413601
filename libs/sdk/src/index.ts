export { Gateway } from './gateway';
export type { GatewayOptions, RequestOptions } from './gateway';
export {
  ApiError,
  AuthenticationError,
  ConnectionError,
  GatewayError,
  IdempotencyError,
  InvalidRequestError,
  NotFoundError,
  PermissionError,
  ProviderError,
  RateLimitError,
} from './errors';
export type { ErrorCode, ErrorType, GatewayErrorFields, KnownErrorCode } from './errors';
export { PagedList } from './pagination';
export { CHARGE_STATUSES, PAYMENT_METHODS, PERMISSIONS } from './names';
export type { Permission } from './names';
export type { Page } from './pagination';
export { DEFAULT_RETRY_POLICY } from './transport';
export type { FetchFn, RetryPolicy } from './transport';
export { constructEvent, SignatureVerificationError } from './webhooks';
export type {
  ConstructEventOptions,
  SignatureFailure,
  WebhookEvent,
  WebhookEventType,
} from './webhooks';
export type {
  Anticipation,
  AnticipationCreateParams,
  AnticipationListParams,
  AnticipationRetrieved,
  AnticipationSimulateParams,
  AnticipationSimulation,
  AsyncApiDocument,
  Balance,
  BalanceHistoryParams,
  BalanceTransaction,
  Charge,
  ChargeCaptured,
  ChargeCreateParams,
  ChargeEvent,
  ChargeListParams,
  Chargeback,
  ChargebackListParams,
  ChargeRetrieved,
  Health,
  ListItem,
  ListPage,
  ListPath,
  OpenApiDocument,
  PaymentMethodToken,
  Receivable,
  ReceivableListParams,
  Refund,
  RefundCreateParams,
  Settlement,
  SettlementListParams,
  TokenCreateParams,
} from './types';
export type { components, operations, paths } from './generated/api';
