// Typed errors: every answer that is not 2xx becomes a GatewayError subclass chosen by the `type` of the
// error body (contract §2), carrying its `code`, `param`, `request_id` and the HTTP status. A failure to
// get any answer at all (connection refused or dropped, timeout) is a ConnectionError.

/** The `type` of the error body. */
export type ErrorType =
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'idempotency_error'
  | 'invalid_request_error'
  | 'rate_limit_error'
  | 'provider_error'
  | 'api_error';

/** The codes the contract names; the gateway may answer others, kept as strings. */
export type KnownErrorCode =
  | 'api_key_missing'
  | 'api_key_invalid'
  | 'api_key_revoked'
  | 'permission_denied'
  | 'seller_scope_required'
  | 'seller_kyc_required'
  | 'resource_not_found'
  | 'idempotency_key_reused'
  | 'idempotency_key_in_use'
  | 'invalid_json'
  | 'parameter_missing'
  | 'parameter_invalid'
  | 'parameter_unknown'
  | 'card_number_invalid'
  | 'charge_not_capturable'
  | 'charge_not_refundable'
  | 'refund_amount_exceeds_remaining'
  | 'split_invalid'
  | 'receivable_not_eligible'
  | 'anticipation_limit_exceeded'
  | 'treasury_limit_exceeded'
  | 'rate_limited'
  | 'provider_unavailable'
  | 'service_unavailable'
  | 'internal_error';

// `string & {}` keeps the known codes offered by editors while accepting a code this version does not know.
export type ErrorCode = KnownErrorCode | (string & {});

export interface GatewayErrorFields {
  type: ErrorType | 'connection_error';
  code: ErrorCode;
  message: string;
  param: string | null;
  /** The HTTP status; null when no answer came (ConnectionError). */
  status: number | null;
  requestId: string | null;
  /** The Idempotency-Key the request carried: retry with it, later, to learn the outcome without a second effect. */
  idempotencyKey: string | null;
}

export class GatewayError extends Error implements GatewayErrorFields {
  readonly type: GatewayErrorFields['type'];
  readonly code: ErrorCode;
  readonly param: string | null;
  readonly status: number | null;
  readonly requestId: string | null;
  readonly idempotencyKey: string | null;

  constructor(fields: GatewayErrorFields, options?: { cause?: unknown }) {
    super(fields.message, options);
    this.name = new.target.name;
    this.type = fields.type;
    this.code = fields.code;
    this.param = fields.param;
    this.status = fields.status;
    this.requestId = fields.requestId;
    this.idempotencyKey = fields.idempotencyKey;
  }
}

export class AuthenticationError extends GatewayError {}
export class PermissionError extends GatewayError {}
export class NotFoundError extends GatewayError {}
export class IdempotencyError extends GatewayError {}
export class InvalidRequestError extends GatewayError {}
export class RateLimitError extends GatewayError {}
export class ProviderError extends GatewayError {}
export class ApiError extends GatewayError {}
/** No answer: the request may or may not have reached the gateway. Retry with the same Idempotency-Key. */
export class ConnectionError extends GatewayError {}

const CLASS_BY_TYPE: Record<ErrorType, typeof GatewayError> = {
  authentication_error: AuthenticationError,
  permission_error: PermissionError,
  not_found_error: NotFoundError,
  idempotency_error: IdempotencyError,
  invalid_request_error: InvalidRequestError,
  rate_limit_error: RateLimitError,
  provider_error: ProviderError,
  api_error: ApiError,
};

// What a status means when the body is not the contract's (a proxy's HTML page, an empty 502).
const TYPE_BY_STATUS: Record<number, ErrorType> = {
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  409: 'idempotency_error',
  422: 'invalid_request_error',
  429: 'rate_limit_error',
  502: 'provider_error',
};

const isErrorType = (value: unknown): value is ErrorType =>
  typeof value === 'string' && Object.hasOwn(CLASS_BY_TYPE, value);

/** The error of a non-2xx answer, from its parsed body (or its text when it was not JSON). */
export function errorFromResponse(
  response: Response,
  body: unknown,
  idempotencyKey: string | null,
): GatewayError {
  const error =
    typeof body === 'object' &&
    body !== null &&
    'error' in body &&
    typeof body.error === 'object' &&
    body.error !== null
      ? (body.error as Record<string, unknown>)
      : null;
  const type = isErrorType(error?.['type'])
    ? error['type']
    : (TYPE_BY_STATUS[response.status] ?? 'api_error');
  const requestId =
    typeof body === 'object' &&
    body !== null &&
    'request_id' in body &&
    typeof body.request_id === 'string'
      ? body.request_id
      : response.headers.get('x-request-id');
  const ErrorClass = CLASS_BY_TYPE[type];
  return new ErrorClass({
    type,
    code: typeof error?.['code'] === 'string' ? error['code'] : `http_${response.status}`,
    message:
      typeof error?.['message'] === 'string'
        ? error['message']
        : `HTTP ${response.status} ${response.statusText}`.trim(),
    param: typeof error?.['param'] === 'string' ? error['param'] : null,
    status: response.status,
    requestId,
    idempotencyKey,
  });
}
