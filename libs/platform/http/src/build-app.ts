import Fastify, {
  LogController,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { DestinationStream } from 'pino';
import { ApiError, errorBody, LoadShedError, notFound } from './errors';
import { newRequestId, REQUEST_ID_PATTERN } from './ids';
import { logMixin } from './log-context';
import { exportLogLine } from './log-export';
import { validationToApiError, validatorCompiler } from './validation';

export interface AppOptions {
  /** Service name, written on every log line. */
  name: string;
  /** Services take the gateway's request id from `X-Request-Id`; the gateway always makes its own. */
  trustRequestIdHeader?: boolean;
  bodyLimitBytes?: number;
  log?: { level?: string; stream?: DestinationStream };
  /**
   * The proxies (addresses, CIDRs, or proxy-addr's `loopback`, `linklocal`, `uniquelocal`) whose
   * X-Forwarded-For is believed when working out `request.ip`; none by default: the socket's address.
   */
  trustProxy?: readonly string[];
}

export type App = FastifyInstance<
  import('http').Server,
  import('http').IncomingMessage,
  import('http').ServerResponse,
  import('fastify').FastifyBaseLogger,
  TypeBoxTypeProvider
>;

// Anything that may carry a secret is removed from log lines. Bodies are never logged at all; these
// paths are a second fence for the day someone logs an object carelessly.
const REDACT = [
  'req.headers.authorization',
  `req.headers["x-gateway-principal"]`,
  'headers.authorization',
  '*.authorization',
  '*.card',
  '*.number',
  '*.cvv',
  '*.security_code',
  '*.pan',
  '*.secret',
  '*.password',
];

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' && value !== null && !Array.isArray(value) && !Buffer.isBuffer(value)
  );
}

function toApiError(error: FastifyError): ApiError | null {
  if (error instanceof ApiError) return error;
  if (error.validation) return validationToApiError(error.validation as never);
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError('invalid_json', 'The request body is not valid JSON.');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('request_too_large', 'The request body is too large.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('unsupported_media_type', 'Request bodies must be application/json.');
    default:
      break;
  }
  // Fastify's own parser errors for malformed JSON are SyntaxErrors with status 400.
  if (error instanceof SyntaxError && error.statusCode === 400) {
    return new ApiError('invalid_json', 'The request body is not valid JSON.');
  }
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    return new ApiError('parameter_invalid', 'The request is invalid.');
  }
  return null;
}

export function sendError(reply: FastifyReply, error: ApiError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  return reply
    .code(error.status)
    .type('application/json; charset=utf-8')
    .send(errorBody(error, reply.request.id));
}

/**
 * A Fastify 5 app with the house rules: TypeBox schemas validated strictly, the contract's error body for
 * every error, `req_` ids on every body and in `X-Request-Id`, and secret-free JSON logs.
 */
export function buildApp(options: AppOptions): App {
  const app = Fastify({
    logger: {
      level: options.log?.level ?? process.env.LOG_LEVEL ?? 'info',
      base: { service: options.name },
      redact: { paths: REDACT, censor: '[redacted]' },
      mixin: logMixin,
      messageKey: 'msg',
      hooks: { streamWrite: exportLogLine },
      ...(options.log?.stream ? { stream: options.log.stream } : {}),
    },
    logController: new LogController({ requestIdLogLabel: 'request_id' }),
    bodyLimit: options.bodyLimitBytes ?? 1024 * 1024,
    trustProxy:
      options.trustProxy !== undefined && options.trustProxy.length > 0
        ? [...options.trustProxy]
        : false,
    genReqId: (req) => {
      const header = req.headers['x-request-id'];
      if (
        options.trustRequestIdHeader === true &&
        typeof header === 'string' &&
        REQUEST_ID_PATTERN.test(header)
      ) {
        return header;
      }
      return newRequestId();
    },
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    ajv: { customOptions: { removeAdditional: false } },
    // The router's own refusals (a path parameter over its length limit, a malformed %-escape) bypass the
    // error handler and hooks; without this they answer Fastify's body, not the contract's. The id in
    // such a path cannot match any object, so the answer is the contract's 404.
    frameworkErrors: (_error, request, reply) => {
      reply.header('X-Request-Id', request.id);
      return sendError(reply, notFound());
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);

  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    reply.header('X-Request-Id', request.id);
  });

  // Every success body carries request_id (api-v1 §2); response schemas declare it so it survives
  // serialization. Items inside lists are arrays' members and are left alone.
  app.addHook(
    'preSerialization',
    async (request: FastifyRequest, _reply: FastifyReply, payload: unknown) => {
      if (isPlainObject(payload) && !('request_id' in payload)) {
        return { ...payload, request_id: request.id };
      }
      return payload;
    },
  );

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const apiError = toApiError(error);
    if (apiError !== null) {
      if (apiError instanceof LoadShedError)
        request.log.debug({ code: apiError.code }, apiError.message);
      else if (apiError.status >= 500) request.log.warn({ code: apiError.code }, apiError.message);
      return sendError(reply, apiError);
    }
    // The database going away (a restart, a failover, no connection to be had) is an outage, not a bug:
    // 503 with Retry-After tells the client to retry, with the same Idempotency-Key, a moment later.
    if (isDatabaseUnavailable(error)) {
      request.log.warn({ err: error }, 'database unavailable');
      return sendError(
        reply,
        new ApiError(
          'service_unavailable',
          'The service cannot reach its database; retry shortly.',
          null,
          { 'Retry-After': '1' },
        ),
      );
    }
    // A bug, not an operating error: log it with its stack for us, answer without any of it.
    request.log.error({ err: error }, 'unhandled error');
    return sendError(reply, new ApiError('internal_error', 'An internal error occurred.'));
  });

  app.setNotFoundHandler((_request, reply) => sendError(reply, notFound()));

  return app;
}

/** SQLSTATE classes 08 (connection exception) and 57P (operator intervention: shutdown, starting up). */
const DATABASE_GONE_CODES = /^(08[0-9A-Z]{3}|57P0[1-4]|ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT)$/;

const CONNECTION_LOST = /(^| - )(Connection terminated|Client has encountered a connection error)/;

/** Whether an error says the database cannot be reached now (pg, knex's pool), rather than a bug. */
export function isDatabaseUnavailable(error: unknown): boolean {
  // Read by shape, not instanceof: Node's socket errors may come from another realm (jest's vm modules).
  if (typeof error !== 'object' || error === null) return false;
  const { code, name, message } = error as { code?: unknown; name?: unknown; message?: unknown };
  if (typeof code === 'string' && DATABASE_GONE_CODES.test(code)) return true;
  // knex gave up waiting for a pooled connection; pg's client lost its socket, or is broken since it did
  // (knex prefixes a failed query's message with its SQL and " - ").
  const lost = typeof message === 'string' && CONNECTION_LOST.test(message);
  return name === 'KnexTimeoutError' || lost;
}
