import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { ConfigError, readEnv } from '@pgw/platform-http';
import type { PeerRequest, Peers } from '@pgw/platform-service';
import {
  ACQUIRER_REJECTION_CODES,
  type AcquirerPort,
  type AcquirerRejectionCode,
  type AcquirerResult,
  type Authorization,
  type AuthorizeInput,
  type Boleto,
  type CancelInput,
  type CaptureInput,
  type CreatePixChargeInput,
  type PixCharge,
  type Refund,
  type RefundInput,
  type RegisterBoletoInput,
  type StoreCardInput,
  type StoredCard,
} from './port';
import {
  camelKeys,
  SIM_KEY_HEADER,
  SIM_PATHS,
  simPath,
  WireAuthorization,
  WireBoleto,
  WireCard,
  WirePixCharge,
  WireRefund,
  type CamelKeys,
} from './sim-wire';
import { validatorCache } from './wire-validators';

export const SIM_SERVICE_NAME = 'acquirer-sim';
/** Every call has a deadline: a card sale that hangs longer than this is treated as an unknown outcome. */
export const ACQUIRER_TIMEOUT_MS_DEFAULT = 3_000;

export interface SimAcquirerOptions {
  peers: Peers;
  /** The peer name of the simulator; `acquirer-sim` unless a test says otherwise. */
  service?: string;
  timeoutMs?: number;
  /** The simulator's shared key, when it is configured with one (`ACQUIRER_SIM_KEY`). */
  key?: string;
}

// Errors that mean the request never left (no connection was made), so nothing can have happened.
const NOT_CONNECTED_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

// Fields the adapter does not know are dropped, not refused: an acquirer that adds a field has not failed.
const ajv = new Ajv({ strict: false, allErrors: false, removeAdditional: true });
addFormats(ajv);
const validator = validatorCache(ajv);

function errorCodes(error: unknown): string[] {
  const codes: string[] = [];
  // Bounded walk over cause chains and AggregateError members: undici's request rejects with the socket's
  // error (code ECONNREFUSED), fetch with TypeError('fetch failed') caused by an Error or AggregateError
  // carrying it.
  const queue: unknown[] = [error];
  for (let seen = 0; queue.length > 0 && seen < 16; seen++) {
    const e = queue.shift();
    if (typeof e !== 'object' || e === null) continue;
    const record = e as { code?: unknown; cause?: unknown; errors?: unknown };
    if (typeof record.code === 'string') codes.push(record.code);
    if (record.cause !== undefined) queue.push(record.cause);
    if (Array.isArray(record.errors)) queue.push(...record.errors);
  }
  return codes;
}

/** Classifies an exception thrown by Peers before any answer arrived. */
export function classifyTransportError(error: unknown): {
  kind: 'unavailable' | 'timeout';
  message: string;
} {
  const name =
    typeof error === 'object' && error !== null && 'name' in error
      ? String((error as { name: unknown }).name)
      : '';
  if (name === 'TimeoutError' || name === 'AbortError')
    return { kind: 'timeout', message: 'the acquirer did not answer in time' };
  const codes = errorCodes(error);
  if (codes.length > 0 && codes.every((c) => NOT_CONNECTED_CODES.has(c))) {
    return { kind: 'unavailable', message: `the acquirer could not be reached (${codes[0]})` };
  }
  // Anything else (a reset connection, a half-read answer) may have happened after the request was
  // sent: the only safe reading is "outcome unknown".
  return { kind: 'timeout', message: 'the connection to the acquirer failed mid-request' };
}

function rejectionCode(body: unknown): AcquirerRejectionCode {
  const code = (body as { error?: { code?: unknown } } | null)?.error?.code;
  return typeof code === 'string' && (ACQUIRER_REJECTION_CODES as readonly string[]).includes(code)
    ? (code as AcquirerRejectionCode)
    : 'invalid_request';
}

function errorMessage(body: unknown, fallback: string): string {
  const message = (body as { error?: { message?: unknown } } | null)?.error?.message;
  return typeof message === 'string' ? message : fallback;
}

/** The acquirer port over the simulator's HTTP API, reached through Peers (HTTP or in-process). */
export class SimAcquirer implements AcquirerPort {
  readonly code = 'simulator';
  private readonly service: string;
  private readonly timeoutMs: number;

  constructor(private readonly options: SimAcquirerOptions) {
    this.service = options.service ?? SIM_SERVICE_NAME;
    this.timeoutMs = options.timeoutMs ?? ACQUIRER_TIMEOUT_MS_DEFAULT;
    if (!Number.isSafeInteger(this.timeoutMs) || this.timeoutMs < 1)
      throw new RangeError('timeoutMs must be a positive integer');
  }

  /** One call to the simulator: its answer checked against `schema` and read under the port's names. */
  private async call<S extends TSchema>(
    method: PeerRequest['method'],
    url: string,
    schema: S,
    body?: unknown,
  ): Promise<AcquirerResult<CamelKeys<Static<S>>>> {
    let response;
    try {
      response = await this.options.peers.request(this.service, {
        method,
        url,
        headers: this.options.key !== undefined ? { [SIM_KEY_HEADER]: this.options.key } : {},
        ...(body !== undefined ? { body } : {}),
        timeoutMs: this.timeoutMs,
      });
    } catch (error) {
      return { ok: false, ...classifyTransportError(error) };
    }
    const { statusCode } = response;
    if (statusCode === 200 || statusCode === 201) {
      if (!validator(schema)(response.body))
        return {
          ok: false,
          kind: 'timeout',
          message: 'the acquirer answered with an unreadable body',
        };
      return { ok: true, value: camelKeys(response.body as object) as CamelKeys<Static<S>> };
    }
    if (statusCode === 503)
      return { ok: false, kind: 'unavailable', message: 'the acquirer is unavailable (503)' };
    if (statusCode === 401 || statusCode === 403)
      return {
        ok: false,
        kind: 'unavailable',
        message: `the acquirer refused our credentials (${statusCode})`,
      };
    if (statusCode === 404)
      return {
        ok: false,
        kind: 'not_found',
        message: errorMessage(response.body, 'not found at the acquirer'),
      };
    if (statusCode === 409)
      return {
        ok: false,
        kind: 'rejected',
        code: 'reference_reused',
        message: errorMessage(response.body, 'reference reused with a different request'),
      };
    if (statusCode >= 400 && statusCode < 500) {
      return {
        ok: false,
        kind: 'rejected',
        code: rejectionCode(response.body),
        message: errorMessage(response.body, `rejected (${statusCode})`),
      };
    }
    // A 500 or a gateway error of the acquirer's own: it may have applied the request before failing.
    return {
      ok: false,
      kind: 'timeout',
      message: `the acquirer failed with ${statusCode}; outcome unknown`,
    };
  }

  storeCard(input: StoreCardInput): Promise<AcquirerResult<StoredCard>> {
    return this.call('POST', SIM_PATHS.cards, WireCard, {
      reference: input.reference,
      number: input.number,
      exp_month: input.expMonth,
      exp_year: input.expYear,
      holder_name: input.holderName,
    });
  }

  authorize(input: AuthorizeInput): Promise<AcquirerResult<Authorization>> {
    return this.call('POST', SIM_PATHS.authorizations, WireAuthorization, {
      reference: input.reference,
      card_ref: input.cardRef,
      amount_cents: input.amountCents,
      installments: input.installments,
      capture: input.capture,
      ...(input.securityCode !== undefined ? { security_code: input.securityCode } : {}),
    });
  }

  getAuthorization(reference: string): Promise<AcquirerResult<Authorization>> {
    return this.call('GET', simPath(SIM_PATHS.authorization, { reference }), WireAuthorization);
  }

  capture(input: CaptureInput): Promise<AcquirerResult<Authorization>> {
    return this.onTransaction(SIM_PATHS.capture, input.transactionId);
  }

  cancel(input: CancelInput): Promise<AcquirerResult<Authorization>> {
    return this.onTransaction(SIM_PATHS.cancel, input.transactionId);
  }

  /** A capture or a cancel: a POST on the transaction, answered with its authorization. */
  private onTransaction(path: string, transactionId: string) {
    const url = simPath(path, { transaction_id: transactionId });
    return this.call('POST', url, WireAuthorization, {});
  }

  refund(input: RefundInput): Promise<AcquirerResult<Refund>> {
    return this.call('POST', SIM_PATHS.refunds, WireRefund, {
      reference: input.reference,
      transaction_id: input.transactionId,
      amount_cents: input.amountCents,
    });
  }

  getRefund(reference: string): Promise<AcquirerResult<Refund>> {
    return this.call('GET', simPath(SIM_PATHS.refund, { reference }), WireRefund);
  }

  createPixCharge(input: CreatePixChargeInput): Promise<AcquirerResult<PixCharge>> {
    return this.call('POST', SIM_PATHS.pixCharges, WirePixCharge, {
      reference: input.reference,
      amount_cents: input.amountCents,
      expires_in: input.expiresInSeconds,
    });
  }

  getPixCharge(reference: string): Promise<AcquirerResult<PixCharge>> {
    return this.call('GET', simPath(SIM_PATHS.pixCharge, { reference }), WirePixCharge);
  }

  payPix(reference: string): Promise<AcquirerResult<PixCharge>> {
    return this.call('POST', simPath(SIM_PATHS.pixPay, { reference }), WirePixCharge, {});
  }

  expirePix(reference: string): Promise<AcquirerResult<PixCharge>> {
    return this.call('POST', simPath(SIM_PATHS.pixExpire, { reference }), WirePixCharge, {});
  }

  registerBoleto(input: RegisterBoletoInput): Promise<AcquirerResult<Boleto>> {
    return this.call('POST', SIM_PATHS.boletos, WireBoleto, {
      reference: input.reference,
      amount_cents: input.amountCents,
      due_date: input.dueDate,
    });
  }

  getBoleto(reference: string): Promise<AcquirerResult<Boleto>> {
    return this.call('GET', simPath(SIM_PATHS.boleto, { reference }), WireBoleto);
  }

  payBoleto(reference: string): Promise<AcquirerResult<Boleto>> {
    return this.call('POST', simPath(SIM_PATHS.boletoPay, { reference }), WireBoleto, {});
  }
}

/** createAcquirer's variables, read once. */
const AcquirerEnv = Type.Object({
  ACQUIRER_ADAPTER: Type.String({ default: 'simulator' }),
  ACQUIRER_TIMEOUT_MS: Type.Integer({ minimum: 1, default: ACQUIRER_TIMEOUT_MS_DEFAULT }),
  /** The simulator's shared key (ACQUIRER_SIM_KEY of the simulator), when it has one. */
  ACQUIRER_SIM_KEY: Type.Optional(Type.String({ minLength: 16 })),
});

/**
 * The acquirer a service talks to, chosen by configuration: `ACQUIRER_ADAPTER` (only `simulator` exists
 * today), `ACQUIRER_TIMEOUT_MS` (default 3000) and, for the simulator, `ACQUIRER_SIM_KEY`.
 */
export function createAcquirer(options: { peers: Peers; env: NodeJS.ProcessEnv }): AcquirerPort {
  const vars = readEnv(AcquirerEnv, options.env);
  switch (vars.ACQUIRER_ADAPTER) {
    case 'simulator':
      return new SimAcquirer({
        peers: options.peers,
        timeoutMs: vars.ACQUIRER_TIMEOUT_MS,
        ...(vars.ACQUIRER_SIM_KEY !== undefined ? { key: vars.ACQUIRER_SIM_KEY } : {}),
      });
    default:
      throw new ConfigError(
        `ACQUIRER_ADAPTER=${vars.ACQUIRER_ADAPTER} is not a known acquirer adapter`,
      );
  }
}
