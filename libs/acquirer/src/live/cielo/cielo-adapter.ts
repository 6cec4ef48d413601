import Ajv from 'ajv';
import type { TSchema } from '@sinclair/typebox';
import { detectBrand, type CardBrand } from '@pgw/domain';
import type {
  AcquirerFailure,
  AcquirerPort,
  AcquirerRejectionCode,
  AcquirerResult,
  Authorization,
  AuthorizationStatus,
  AuthorizeInput,
  CancelInput,
  CaptureInput,
  RefusedReason,
  Refund,
  RefundInput,
  RefundLookup,
  StoreCardInput,
  StoredCard,
} from '../../port';
import { classifyTransportError } from '../../sim-acquirer';
import {
  apiErrorMeaningOf,
  CIELO_STATUS,
  normalizeCode,
  refusedReasonOf,
  voidMeaningOf,
  type VoidCodeMeaning,
} from './cielo-codes';
import type { CieloConfig } from './cielo-config';
import { merchantOrderIdOf, referenceOf, requestIdOf } from './cielo-ids';
import {
  CIELO_BRANDS,
  CIELO_HEADERS,
  CIELO_PATHS,
  CieloCardAnswer,
  CieloErrorAnswer,
  CieloOrderAnswer,
  CieloSaleAnswer,
  CieloUpdateAnswer,
  type CieloBrand,
  type CieloCardAnswerBody,
  type CieloCardRequestBody,
  type CieloErrorAnswerBody,
  type CieloOrderAnswerBody,
  type CieloSaleAnswerBody,
  type CieloSaleRequestBody,
  type CieloUpdateAnswerBody,
} from './cielo-wire';
import { validatorCache } from '../../wire-validators';

// The card half of the acquirer port over Cielo API 3.0. Every method resolves to a result value, as the
// port asks; how each Cielo answer reads in our terms is in cielo-codes.ts. What makes a retry safe here,
// since Cielo has no idempotency key: an authorization first asks the query host whether a sale already
// exists under the reference (MerchantOrderId); capture, void and refund first read the sale and act only
// from the state that allows it. A look-up that fails before anything was sent is `unavailable` (nothing
// happened), never `timeout`.
//
// Card data: the PAN goes out once, in the card store request; the CVV only in the sale request. Neither is
// logged, and no message carries text Cielo sent without first masking any run of 12 or more digits.

export const CIELO_ACQUIRER_CODE = 'cielo';

/** The card methods of the port: what this adapter implements (Pix and boleto are other adapters). */
export type CardAcquirer = Pick<
  AcquirerPort,
  | 'code'
  | 'storeCard'
  | 'authorize'
  | 'getAuthorization'
  | 'capture'
  | 'cancel'
  | 'refund'
  | 'getRefund'
>;

/** pino's shape; the adapter logs failures only, with no card data, key or request body. */
export interface CieloLog {
  warn(fields: Record<string, unknown>, message: string): void;
}

export interface CieloAdapterOptions {
  config: CieloConfig;
  /** The clock for timestamps Cielo does not give (a sale's answer carries no date). */
  now?: () => Date;
  log?: CieloLog;
}

const CIELO_BRAND: Readonly<Record<Exclude<CardBrand, 'unknown'>, CieloBrand>> = {
  visa: 'Visa',
  mastercard: 'Master',
  amex: 'Amex',
  elo: 'Elo',
  hipercard: 'Hipercard',
  diners: 'Diners',
  discover: 'Discover',
  jcb: 'JCB',
};
const GUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
// Our card reference names the brand too: Cielo's sale needs it beside the CardToken, and the port's
// authorize carries only the card reference.
const CARD_REF =
  /^(Visa|Master|Amex|Elo|Aura|JCB|Diners|Discover|Hipercard|Hiper):([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$/;
/** Installments the port allows (Cielo's field takes two digits; the merchant's plan may allow fewer). */
const INSTALLMENTS_MAX = 24;
/** A MerchantOrderId holds more than one PaymentId only after retries; reading more than this many is not needed. */
const ORDER_PAYMENTS_MAX = 50;
// Brazil has kept UTC−3 all year since 2019; the manual's dates ("2022-07-29 17:16:21") carry no zone.
const SAO_PAULO_OFFSET = '-03:00';

// Fields the adapter does not read are dropped, not refused: Cielo adding one is not a failure.
const ajv = new Ajv({ strict: false, allErrors: false, removeAdditional: true });
const validator = validatorCache(ajv);
function readAs<T>(schema: TSchema, body: unknown): T | null {
  return validator(schema)(body) ? (body as T) : null;
}

/** Text from Cielo, fit for a message: runs of 12+ digits masked (a PAN must never ride along), bounded. */
export function safeText(text: string | undefined): string {
  return (text ?? '')
    .replace(/[0-9][0-9 .-]{10,}[0-9]/g, (run) =>
      run.replace(/[^0-9]/g, '').length >= 12 ? '[masked]' : run,
    )
    .slice(0, 200);
}

function codeText(code: string | number | undefined): string | null {
  return code === undefined ? null : String(code);
}

/** A Cielo date (São Paulo local time, with or without a fraction) as an ISO instant, or null. */
export function cieloInstant(text: string | undefined): string | null {
  const m =
    text === undefined
      ? null
      : /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(\.\d{1,7})?$/.exec(text);
  if (m === null) return null;
  const fraction = m[3] === undefined ? '.000' : m[3].slice(0, 4).padEnd(4, '0');
  const instant = new Date(`${m[1]}T${m[2]}${fraction}${SAO_PAULO_OFFSET}`);
  return Number.isNaN(instant.getTime()) ? null : instant.toISOString();
}

function rejected(code: AcquirerRejectionCode, message: string): AcquirerFailure {
  return { ok: false, kind: 'rejected', code, message };
}

const unreadable: AcquirerFailure = {
  ok: false,
  kind: 'timeout',
  message: 'Cielo answered with a body this adapter cannot read; outcome unknown',
};

type Answer = { ok: true; status: number; body: unknown } | AcquirerFailure;

export class CieloAdapter implements CardAcquirer {
  readonly code = CIELO_ACQUIRER_CODE;
  private readonly config: CieloConfig;
  private readonly now: () => Date;
  private readonly log: CieloLog | undefined;

  constructor(options: CieloAdapterOptions) {
    this.config = options.config;
    this.now = options.now ?? (() => new Date());
    this.log = options.log;
    for (const ms of [this.config.timeoutMs, this.config.queryTimeoutMs]) {
      if (!Number.isSafeInteger(ms) || ms < 1)
        throw new RangeError('Cielo timeouts must be positive integers (ms)');
    }
  }

  // ── Card store ─────────────────────────────────────────────────────────────────────────────────

  async storeCard(input: StoreCardInput): Promise<AcquirerResult<StoredCard>> {
    if (!/^[0-9]{12,19}$/.test(input.number))
      return rejected('card_number_invalid', 'the card number must have 12 to 19 digits');
    const ourBrand = detectBrand(input.number);
    if (ourBrand === 'unknown')
      return rejected('card_number_invalid', 'the card brand is not one Cielo accepts');
    const brand = CIELO_BRAND[ourBrand];
    if (
      !Number.isSafeInteger(input.expMonth) ||
      input.expMonth < 1 ||
      input.expMonth > 12 ||
      !Number.isSafeInteger(input.expYear) ||
      input.expYear < 2000 ||
      input.expYear > 9999
    ) {
      return rejected('invalid_request', 'the expiry must be a month 1-12 and a four-digit year');
    }
    const holder = holderText(input.holderName);
    if (holder === '')
      return rejected('invalid_request', 'the holder name must have letters or digits');
    const body: CieloCardRequestBody = {
      CustomerName: input.holderName.trim().slice(0, 255) || holder,
      CardNumber: input.number,
      Holder: holder,
      ExpirationDate: `${String(input.expMonth).padStart(2, '0')}/${input.expYear}`,
      Brand: brand,
    };
    const answer = await this.send(
      'api',
      'POST',
      CIELO_PATHS.card,
      'store_card',
      requestIdOf('store_card', input.reference),
      body,
    );
    if (!answer.ok) return answer;
    const card = readAs<CieloCardAnswerBody>(CieloCardAnswer, answer.body);
    if (card === null) return unreadable;
    return {
      ok: true,
      value: {
        reference: input.reference,
        cardRef: `${brand}:${card.CardToken}`,
        brand: ourBrand,
        last4: input.number.slice(-4),
      },
    };
  }

  // ── Authorizations ─────────────────────────────────────────────────────────────────────────────

  async authorize(input: AuthorizeInput): Promise<AcquirerResult<Authorization>> {
    const orderId = merchantOrderIdOf(input.reference);
    if (orderId === null)
      return rejected(
        'invalid_request',
        "the reference does not fit Cielo's MerchantOrderId (36 letters and digits once encoded)",
      );
    const card = CARD_REF.exec(input.cardRef);
    if (card === null)
      return rejected('card_not_found', 'the card reference is not one this card store issued');
    const brand = CIELO_BRANDS.find((b) => b === card[1]);
    const token = card[2];
    if (brand === undefined || token === undefined)
      return rejected('card_not_found', 'the card reference is not one this card store issued');
    if (!Number.isSafeInteger(input.amountCents) || input.amountCents < 1)
      return rejected('invalid_request', 'amountCents must be a positive integer');
    if (
      !Number.isSafeInteger(input.installments) ||
      input.installments < 1 ||
      input.installments > INSTALLMENTS_MAX
    ) {
      return rejected('invalid_request', `installments must be 1 to ${INSTALLMENTS_MAX}`);
    }
    if (input.securityCode !== undefined && !/^[0-9]{3,4}$/.test(input.securityCode))
      return rejected('invalid_request', 'the security code must have 3 or 4 digits');

    // A retry after a lost answer must not sell twice: the sale made under this reference, if any, is the answer.
    const earlier = await this.findSale(orderId);
    if (earlier.ok) {
      const p = earlier.value.Payment;
      const sameCard =
        p.CreditCard?.CardToken === undefined ||
        p.CreditCard.CardToken.toLowerCase() === token.toLowerCase();
      const sameCapture = p.Capture === undefined || p.Capture === input.capture;
      if (
        p.Amount !== input.amountCents ||
        p.Installments !== input.installments ||
        !sameCard ||
        !sameCapture
      ) {
        return rejected(
          'reference_reused',
          'a different sale was already made under this reference',
        );
      }
      return this.authorizationOf(input.reference, earlier.value);
    }
    if (earlier.kind !== 'not_found')
      return {
        ok: false,
        kind: 'unavailable',
        message: `could not ask Cielo for an earlier sale under this reference (${earlier.message}); no sale was sent`,
      };

    const body: CieloSaleRequestBody = {
      MerchantOrderId: orderId,
      Payment: {
        Type: 'CreditCard',
        Amount: input.amountCents,
        Currency: 'BRL',
        Country: 'BRA',
        Installments: input.installments,
        // Installments without interest to the buyer ("parcelado loja"): the merchant's plan prices them.
        Interest: 'ByMerchant',
        Capture: input.capture,
        ...(this.config.softDescriptor !== undefined
          ? { SoftDescriptor: this.config.softDescriptor }
          : {}),
        CreditCard: {
          CardToken: token,
          ...(input.securityCode !== undefined ? { SecurityCode: input.securityCode } : {}),
          Brand: brand,
        },
      },
    };
    const answer = await this.send(
      'api',
      'POST',
      CIELO_PATHS.sales,
      'authorize',
      requestIdOf('authorize', input.reference),
      body,
    );
    if (!answer.ok) return answer;
    const sale = readAs<CieloSaleAnswerBody>(CieloSaleAnswer, answer.body);
    if (sale === null) return unreadable;
    return this.authorizationOf(input.reference, sale);
  }

  async getAuthorization(reference: string): Promise<AcquirerResult<Authorization>> {
    const orderId = merchantOrderIdOf(reference);
    // authorize refuses such a reference before sending anything, so no sale can exist under it.
    if (orderId === null)
      return {
        ok: false,
        kind: 'not_found',
        message: 'no sale can have been made under this reference',
      };
    const sale = await this.findSale(orderId);
    if (!sale.ok) return sale;
    return this.authorizationOf(reference, sale.value);
  }

  async capture(input: CaptureInput): Promise<AcquirerResult<Authorization>> {
    const current = await this.currentSale(input.transactionId, 'capture');
    if (!current.ok) return current;
    const { authorization } = current;
    if (authorization.status === 'captured') return { ok: true, value: authorization };
    if (authorization.status !== 'authorized')
      return rejected('not_capturable', `the sale is ${authorization.status}`);

    const answer = await this.send(
      'api',
      'PUT',
      CIELO_PATHS.capture(input.transactionId),
      'capture',
      requestIdOf('capture', input.transactionId),
    );
    if (!answer.ok) return answer;
    const update = readAs<CieloUpdateAnswerBody>(CieloUpdateAnswer, answer.body);
    if (update === null) return unreadable;
    const meaning = CIELO_STATUS[update.Status];
    if (meaning === 'unknown' || meaning === undefined)
      return {
        ok: false,
        kind: 'timeout',
        message: `Cielo has not decided the capture (Status ${update.Status})`,
      };
    if (meaning !== 'captured')
      return rejected('not_capturable', `Cielo did not capture: ${describe(update)}`);
    const now = this.now().toISOString();
    return {
      ok: true,
      value: {
        ...authorization,
        status: 'captured',
        capturedAmountCents: authorization.amountCents,
        capturedAt: now,
        authorizationCode: authorization.authorizationCode ?? update.AuthorizationCode ?? null,
        returnCode: authorization.returnCode ?? codeText(update.ReturnCode),
        returnMessage:
          authorization.returnMessage ??
          (update.ReturnMessage !== undefined ? safeText(update.ReturnMessage) : null),
      },
    };
  }

  async cancel(input: CancelInput): Promise<AcquirerResult<Authorization>> {
    const current = await this.currentSale(input.transactionId, 'cancel');
    if (!current.ok) return current;
    const { authorization } = current;
    if (authorization.status === 'canceled') return { ok: true, value: authorization };
    if (authorization.status !== 'authorized')
      return rejected('not_cancelable', `the sale is ${authorization.status}`);

    const answer = await this.send(
      'api',
      'PUT',
      CIELO_PATHS.void(input.transactionId),
      'cancel',
      requestIdOf('cancel', input.transactionId),
    );
    if (!answer.ok)
      return answer.kind === 'rejected' ? rejected(asCancel(answer.code), answer.message) : answer;
    const update = readAs<CieloUpdateAnswerBody>(CieloUpdateAnswer, answer.body);
    if (update === null) return unreadable;
    if (CIELO_STATUS[update.Status] === 'voided') {
      return {
        ok: true,
        value: { ...authorization, status: 'canceled', canceledAt: this.now().toISOString() },
      };
    }
    const failure = voidFailure(voidMeaningOf(update.ReturnCode), update, 'cancel');
    return (
      failure ?? {
        ok: false,
        kind: 'timeout',
        message: `Cielo answered the void with Status ${update.Status}; outcome unknown`,
      }
    );
  }

  // ── Refunds ────────────────────────────────────────────────────────────────────────────────────

  async refund(input: RefundInput): Promise<AcquirerResult<Refund>> {
    if (!Number.isSafeInteger(input.amountCents) || input.amountCents < 1)
      return rejected('invalid_request', 'amountCents must be a positive integer');
    const current = await this.currentSale(input.transactionId, 'refund');
    if (!current.ok) return current;
    const { authorization } = current;
    if (authorization.status !== 'captured')
      return rejected('not_refundable', `the sale is ${authorization.status}`);
    if (input.amountCents > authorization.capturedAmountCents - authorization.refundedAmountCents) {
      return rejected(
        'refund_amount_exceeds_captured',
        'the refunds would exceed the captured amount',
      );
    }

    const refundId = requestIdOf('refund', input.reference);
    const path = `${CIELO_PATHS.void(input.transactionId)}?amount=${input.amountCents}`;
    const answer = await this.send('api', 'PUT', path, 'refund', refundId);
    if (!answer.ok)
      return answer.kind === 'rejected' ? rejected(asRefund(answer.code), answer.message) : answer;
    const update = readAs<CieloUpdateAnswerBody>(CieloUpdateAnswer, answer.body);
    if (update === null) return unreadable;
    const meaning = voidMeaningOf(update.ReturnCode);
    const refund = (
      status: Refund['status'],
      failureReason: string | null,
    ): AcquirerResult<Refund> => ({
      ok: true,
      value: {
        reference: input.reference,
        refundId,
        transactionId: input.transactionId,
        status,
        amountCents: input.amountCents,
        failureReason,
        createdAt: this.now().toISOString(),
      },
    });
    if (meaning === 'succeeded') return refund('succeeded', null);
    if (meaning === 'declined') return refund('failed', 'refund_declined');
    if (meaning === 'merchant_balance') return refund('failed', 'merchant_balance_insufficient');
    return (
      voidFailure(meaning, update, 'refund') ?? {
        ok: false,
        kind: 'timeout',
        message: `Cielo answered the refund with ${describe(update)}; outcome unknown`,
      }
    );
  }

  /**
   * Cielo keeps refunds (partial voids) only as a sum on the sale, with no reference of ours, so a refund
   * cannot be found by its reference alone. With the caller's `lookup` (the sale, this refund's amount and
   * the sum of the sale's refunds known to have succeeded, given only when no other refund of it is in
   * flight) the sale's `VoidedAmount` tells: that sum plus this amount → it succeeded; that sum alone → it
   * was never applied (`not_found`: resending is safe). Anything else, or no lookup, is "outcome unknown",
   * never `not_found`, which would make the caller resend an applied refund and pay it twice. The caller
   * asks only once the request's own deadline has long passed (charges waits ACQUIRER_TIMEOUT_MS and more),
   * so a request still on its way cannot be applied after the sum was read.
   */
  async getRefund(reference: string, lookup?: RefundLookup): Promise<AcquirerResult<Refund>> {
    const unknown: AcquirerResult<Refund> = {
      ok: false,
      kind: 'timeout',
      message: `Cielo cannot look a refund up by our reference (${reference}); read the sale's refunded amount instead`,
    };
    if (lookup?.amountCents === undefined || lookup.settledRefundedCents === undefined)
      return unknown;
    const current = await this.currentSale(lookup.transactionId, 'refund lookup');
    if (!current.ok) return current.kind === 'not_found' ? unknown : current;
    const refunded = current.authorization.refundedAmountCents;
    if (refunded === lookup.settledRefundedCents)
      return {
        ok: false,
        kind: 'not_found',
        message: 'the sale shows no refund beyond the settled ones: this one was never applied',
      };
    if (refunded !== lookup.settledRefundedCents + lookup.amountCents) return unknown;
    return {
      ok: true,
      value: {
        reference,
        refundId: requestIdOf('refund', reference),
        transactionId: lookup.transactionId,
        status: 'succeeded',
        amountCents: lookup.amountCents,
        failureReason: null,
        createdAt: this.now().toISOString(),
      },
    };
  }

  // ── Reading sales ──────────────────────────────────────────────────────────────────────────────

  /** The newest sale made under a MerchantOrderId (query host: the PaymentIds, then the sale). */
  private async findSale(
    orderId: string,
  ): Promise<{ ok: true; value: CieloSaleAnswerBody } | AcquirerFailure> {
    const path = `${CIELO_PATHS.salesByOrder}?merchantOrderId=${encodeURIComponent(orderId)}`;
    const answer = await this.send(
      'query',
      'GET',
      path,
      'find_sale',
      requestIdOf('find_sale', orderId),
    );
    if (!answer.ok) return answer;
    const order = readAs<CieloOrderAnswerBody>(CieloOrderAnswer, answer.body);
    if (order === null) return unreadable;
    const payments = order.Payment.slice(0, ORDER_PAYMENTS_MAX);
    if (payments.length === 0)
      return { ok: false, kind: 'not_found', message: 'Cielo has no sale under this reference' };
    // The newest; a payment without a readable date counts as the oldest.
    let newest = { id: '', at: '' };
    for (const p of payments) {
      const at = cieloInstant(p.ReceivedDate ?? p.ReceveidDate) ?? '';
      if (newest.id === '' || at > newest.at) newest = { id: p.PaymentId, at };
    }
    return this.readSale(newest.id);
  }

  private async readSale(
    paymentId: string,
  ): Promise<{ ok: true; value: CieloSaleAnswerBody } | AcquirerFailure> {
    const answer = await this.send(
      'query',
      'GET',
      CIELO_PATHS.sale(paymentId),
      'read_sale',
      requestIdOf('read_sale', paymentId),
    );
    if (!answer.ok) return answer;
    const sale = readAs<CieloSaleAnswerBody>(CieloSaleAnswer, answer.body);
    return sale === null ? unreadable : { ok: true, value: sale };
  }

  /**
   * The sale a capture, void or refund is about, read before acting. A failure to read it, or a sale that
   * Cielo has not decided yet, means nothing was sent: `unavailable`, try later.
   */
  private async currentSale(
    paymentId: string,
    operation: string,
  ): Promise<{ ok: true; authorization: Authorization } | AcquirerFailure> {
    if (!GUID.test(paymentId))
      return { ok: false, kind: 'not_found', message: 'not a Cielo PaymentId' };
    const sale = await this.readSale(paymentId);
    if (!sale.ok) {
      if (sale.kind === 'not_found') return sale;
      return {
        ok: false,
        kind: 'unavailable',
        message: `could not read the sale before the ${operation} (${sale.message}); nothing was sent`,
      };
    }
    const reference = referenceOf(sale.value.MerchantOrderId) ?? sale.value.MerchantOrderId;
    const authorization = this.authorizationOf(reference, sale.value);
    if (!authorization.ok)
      return {
        ok: false,
        kind: 'unavailable',
        message: `${authorization.message}; the ${operation} was not sent`,
      };
    return { ok: true, authorization: authorization.value };
  }

  /** A Cielo sale in our terms; a sale Cielo has not decided (NotFinished, Pending) is an unknown outcome. */
  private authorizationOf(
    reference: string,
    sale: CieloSaleAnswerBody,
  ): AcquirerResult<Authorization> {
    const p = sale.Payment;
    const meaning = CIELO_STATUS[p.Status];
    if (meaning === undefined || meaning === 'unknown')
      return {
        ok: false,
        kind: 'timeout',
        message: `Cielo has not decided the sale yet (Status ${p.Status}); ask again later`,
      };
    const now = this.now().toISOString();
    const createdAt = cieloInstant(p.ReceivedDate) ?? now;
    const capturedSoFar = p.CapturedAmount ?? 0;
    const voided = p.VoidedAmount ?? 0;
    let status: AuthorizationStatus;
    let capturedAmountCents = 0;
    let refundedAmountCents = 0;
    let refusedReason: RefusedReason | null = null;
    let canceledAt: string | null = null;
    switch (meaning) {
      case 'authorized':
        status = 'authorized';
        break;
      case 'captured':
        status = 'captured';
        capturedAmountCents = capturedSoFar > 0 ? capturedSoFar : p.Amount;
        refundedAmountCents = voided;
        break;
      case 'refused':
        refusedReason = refusedReasonOf(p.ReturnCode);
        status = refusedReason === 'processing_error' ? 'failed' : 'refused';
        break;
      case 'failed':
        status = 'failed';
        refusedReason = 'processing_error';
        break;
      case 'voided':
        // A void after capture is a refund of all of it (the sale stays captured, refunded in full);
        // before capture it releases the hold.
        if (capturedSoFar > 0) {
          status = 'captured';
          capturedAmountCents = capturedSoFar;
          refundedAmountCents = voided > 0 ? voided : capturedSoFar;
        } else {
          status = 'canceled';
          canceledAt = cieloInstant(p.VoidedDate) ?? now;
        }
        break;
      case 'refunded':
        status = 'captured';
        capturedAmountCents = capturedSoFar > 0 ? capturedSoFar : p.Amount;
        refundedAmountCents = voided > 0 ? voided : capturedAmountCents;
        break;
    }
    return {
      ok: true,
      value: {
        reference,
        transactionId: p.PaymentId.toLowerCase(),
        status,
        amountCents: p.Amount,
        installments: p.Installments,
        capturedAmountCents,
        refundedAmountCents,
        authorizationCode: p.AuthorizationCode ?? null,
        returnCode: codeText(p.ReturnCode),
        returnMessage: p.ReturnMessage !== undefined ? safeText(p.ReturnMessage) : null,
        refusedReason,
        createdAt,
        capturedAt: status === 'captured' ? (cieloInstant(p.CapturedDate) ?? createdAt) : null,
        canceledAt,
      },
    };
  }

  // ── The wire ───────────────────────────────────────────────────────────────────────────────────

  private async send(
    host: 'api' | 'query',
    method: 'GET' | 'POST' | 'PUT',
    path: string,
    operation: string,
    requestId: string,
    body?: unknown,
  ): Promise<Answer> {
    const base = host === 'api' ? this.config.apiUrl : this.config.queryUrl;
    const timeoutMs = host === 'api' ? this.config.timeoutMs : this.config.queryTimeoutMs;
    let status: number;
    let text: string;
    try {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          [CIELO_HEADERS.merchantId]: this.config.merchantId,
          [CIELO_HEADERS.merchantKey]: this.config.merchantKey.expose(),
          [CIELO_HEADERS.requestId]: requestId,
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        // One deadline for the answer and its body: a half-read answer is as unknown as a missing one.
        signal: AbortSignal.timeout(timeoutMs),
      });
      status = response.status;
      text = await response.text();
    } catch (error) {
      const failure = classifyTransportError(error);
      this.log?.warn({ acquirer: this.code, operation, kind: failure.kind }, 'cielo call failed');
      return { ok: false, ...failure };
    }
    let parsed: unknown = null;
    if (text !== '') {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
    }
    if (status === 200 || status === 201) return { ok: true, status, body: parsed };
    const failure = httpFailure(status, parsed);
    // A 404 is how the query host says "no such order": an answer, not a failure worth a warning.
    if (status !== 404) {
      this.log?.warn(
        {
          acquirer: this.code,
          operation,
          http_status: status,
          kind: failure.kind,
          ...(failure.kind === 'rejected' ? { code: failure.code } : {}),
        },
        'cielo call failed',
      );
    }
    return failure;
  }
}

function httpFailure(status: number, body: unknown): AcquirerFailure {
  if (status === 400) {
    const errors = readAs<CieloErrorAnswerBody>(CieloErrorAnswer, body);
    const first = errors?.[0];
    if (first === undefined) return rejected('invalid_request', 'Cielo refused the request (400)');
    const meaning = apiErrorMeaningOf(first.Code);
    const message = `Cielo error ${normalizeCode(first.Code)}: ${safeText(first.Message)}`;
    return meaning === 'unavailable'
      ? { ok: false, kind: 'unavailable', message }
      : rejected(meaning, message);
  }
  if (status === 401 || status === 403)
    return {
      ok: false,
      kind: 'unavailable',
      message: `Cielo refused our credentials or address (${status})`,
    };
  if (status === 404) return { ok: false, kind: 'not_found', message: 'Cielo has no such sale' };
  if (status === 503)
    return { ok: false, kind: 'unavailable', message: 'Cielo is unavailable (503)' };
  if (status >= 400 && status < 500)
    return rejected('invalid_request', `Cielo refused the request (${status})`);
  // A 500, 502 or 504: Cielo may have applied the request before failing.
  return { ok: false, kind: 'timeout', message: `Cielo failed with ${status}; outcome unknown` };
}

function describe(update: CieloUpdateAnswerBody): string {
  return `Status ${update.Status}, ReturnCode ${codeText(update.ReturnCode) ?? 'none'}${update.ReturnMessage !== undefined ? ` (${safeText(update.ReturnMessage)})` : ''}`;
}

/** A void that did not go through, in our terms; null when its meaning is not a failure (succeeded, declined). */
function voidFailure(
  meaning: VoidCodeMeaning,
  update: CieloUpdateAnswerBody,
  operation: 'cancel' | 'refund',
): AcquirerFailure | null {
  const message = `Cielo did not void: ${describe(update)}`;
  switch (meaning) {
    case 'retry':
      return { ok: false, kind: 'unavailable', message };
    case 'unknown':
      return { ok: false, kind: 'timeout', message: `${message}; outcome unknown` };
    case 'not_found':
      return rejected('authorization_not_found', message);
    case 'exceeds':
      return rejected(
        operation === 'refund' ? 'refund_amount_exceeds_captured' : 'invalid_request',
        message,
      );
    case 'not_allowed':
    case 'declined':
    case 'merchant_balance':
      return rejected(operation === 'refund' ? 'not_refundable' : 'not_cancelable', message);
    case 'invalid':
      return rejected('invalid_request', message);
    case 'succeeded':
      return null;
  }
}

// One Cielo error code serves both kinds of void; the caller's operation names the rejection.
function asCancel(code: AcquirerRejectionCode): AcquirerRejectionCode {
  return code === 'not_refundable' ? 'not_cancelable' : code;
}
function asRefund(code: AcquirerRejectionCode): AcquirerRejectionCode {
  return code === 'not_cancelable' ? 'not_refundable' : code;
}

/** The manual's Holder: letters, digits and spaces, 25 at most; accents are dropped (Cielo refuses them). */
function holderText(name: string): string {
  return name
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9 ]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 25)
    .trim();
}
