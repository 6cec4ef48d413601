// The error body of contract.md §2, and the single table that maps every error code to its HTTP status
// and type. Operating errors (a declined card, a reused idempotency key) are values of ApiError that
// handlers throw or return; anything else reaching the error handler is a bug and answers 500.

export const ERROR_TYPES = {
  authentication_error: 401,
  permission_error: 403,
  not_found_error: 404,
  idempotency_error: 409,
  invalid_request_error: 422,
  rate_limit_error: 429,
  provider_error: 502,
  api_error: 500,
} as const;

export type ErrorType = keyof typeof ERROR_TYPES;

const CODES = {
  api_key_missing: 'authentication_error',
  api_key_invalid: 'authentication_error',
  api_key_revoked: 'authentication_error',
  admin_token_invalid: 'authentication_error',
  principal_invalid: 'authentication_error',
  permission_denied: 'permission_error',
  seller_scope_required: 'permission_error',
  seller_kyc_required: 'permission_error',
  resource_not_found: 'not_found_error',
  idempotency_key_reused: 'idempotency_error',
  idempotency_key_in_use: 'idempotency_error',
  invalid_json: 'invalid_request_error',
  parameter_missing: 'invalid_request_error',
  parameter_invalid: 'invalid_request_error',
  parameter_unknown: 'invalid_request_error',
  card_number_invalid: 'invalid_request_error',
  charge_not_capturable: 'invalid_request_error',
  charge_not_refundable: 'invalid_request_error',
  refund_amount_exceeds_remaining: 'invalid_request_error',
  split_invalid: 'invalid_request_error',
  receivable_not_eligible: 'invalid_request_error',
  anticipation_limit_exceeded: 'invalid_request_error',
  treasury_limit_exceeded: 'invalid_request_error',
  rate_limited: 'rate_limit_error',
  provider_unavailable: 'provider_error',
  internal_error: 'api_error',
  // Not in contract §2's minimum list, answered with their own HTTP status (see STATUS_OVERRIDES).
  request_too_large: 'invalid_request_error',
  unsupported_media_type: 'invalid_request_error',
  // An operator's replay of a parked event that its consumer still cannot apply (a deploy missing, a bug).
  event_not_replayable: 'invalid_request_error',
  // A service behind the gateway did not answer: the request may or may not have been applied, so the
  // client retries with the same Idempotency-Key.
  service_unavailable: 'api_error',
} as const satisfies Record<string, ErrorType>;

export type ErrorCode = keyof typeof CODES;

// HTTP gives these a status of their own; their type stays the one of the table above.
const STATUS_OVERRIDES: Partial<Record<ErrorCode, number>> = {
  request_too_large: 413,
  unsupported_media_type: 415,
  event_not_replayable: 409,
  service_unavailable: 503,
};

export function errorStatus(code: ErrorCode): number {
  return STATUS_OVERRIDES[code] ?? ERROR_TYPES[CODES[code]];
}

export function errorType(code: ErrorCode): ErrorType {
  return CODES[code];
}

export function isErrorCode(value: string): value is ErrorCode {
  return Object.prototype.hasOwnProperty.call(CODES, value);
}

/**
 * An answer to the client (contract §2's error body), not a bug: its code and message say all there is, so
 * it is made without a stack. Capturing one is V8 walking the frames (and the awaits) at every 4xx and 503,
 * and the tracer formats it for the span's exception event (`recordException` reads `.stack`): ~7 µs of
 * each refusal at 5× capacity, for a stack nothing logs (build-app.ts logs code and message only).
 */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly param: string | null;
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    message: string,
    param: string | null = null,
    headers: Record<string, string> = {},
  ) {
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      super(message);
    } finally {
      Error.stackTraceLimit = stackTraceLimit;
    }
    this.name = 'ApiError';
    this.code = code;
    this.param = param;
    this.headers = headers;
  }

  get status(): number {
    return errorStatus(this.code);
  }

  get type(): ErrorType {
    return errorType(this.code);
  }
}

/**
 * A 503 by design: admission control refusing a request over a service's limit. It is counted
 * (gateway_admission_rejected_total, on the services dashboard) and logged at debug, not warn: under an
 * overload every refused request would otherwise write a log line, on the process that is shedding load.
 */
export class LoadShedError extends ApiError {}

export interface ErrorBody {
  error: { type: ErrorType; code: ErrorCode; message: string; param: string | null };
  request_id: string;
}

export function errorBody(error: ApiError, requestId: string): ErrorBody {
  return {
    error: { type: error.type, code: error.code, message: error.message, param: error.param },
    request_id: requestId,
  };
}

export const notFound = (what = 'resource'): ApiError =>
  new ApiError('resource_not_found', `No such ${what}.`);
