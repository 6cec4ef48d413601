// The acquirer port: everything domain code asks of the outside world that moves money, in our terms.
// The simulator's adapter (sim-acquirer.ts) implements it today; a real acquirer's adapter implements the
// same interface later, and no domain code changes.
//
// Two rules hold for every method:
// - Idempotent by the caller's reference. The same reference with the same request returns the first
//   result and never acts twice; the same reference with a different request is rejected
//   (`reference_reused`). Make references unique and stable per business operation (e.g. the charge id
//   for its authorization, the refund id for its refund), and reuse them when retrying.
// - Failures are values, never exceptions. `unavailable` means nothing happened (safe to report 502 or to
//   retry later); `timeout` means the outcome is unknown: the request may have been applied, and the
//   lookup by the same reference (`getAuthorization`, `getRefund`, …) tells, once the acquirer answers.
//   An exception out of an adapter is a bug (a broken invariant), not an operating error.

import type { RefusedReason } from '@pgw/domain';

/** Letters, digits and `_ - . :`, 1 to 120 characters: what every reference must look like. */
export const REFERENCE_PATTERN = '^[A-Za-z0-9_\\-.:]{1,120}$';

export type AcquirerFailure =
  /** The acquirer could not be reached or answered 503: the request was not applied. */
  | { ok: false; kind: 'unavailable'; message: string }
  /** No answer within the deadline, or an unreadable one: the request may or may not have been applied. */
  | { ok: false; kind: 'timeout'; message: string }
  /** The acquirer refused the request itself (bad state, bad input); nothing changed. */
  | { ok: false; kind: 'rejected'; code: AcquirerRejectionCode; message: string }
  /** A lookup found nothing under that reference (or id): the acquirer never applied such a request. */
  | { ok: false; kind: 'not_found'; message: string };

export type AcquirerResult<T> = { ok: true; value: T } | AcquirerFailure;

export type AcquirerRejectionCode =
  | 'reference_reused'
  | 'invalid_request'
  | 'card_number_invalid'
  | 'card_not_found'
  | 'authorization_not_found'
  | 'not_capturable'
  | 'not_cancelable'
  | 'not_refundable'
  | 'refund_amount_exceeds_captured'
  | 'pix_not_payable'
  | 'pix_not_expirable'
  | 'boleto_due_date_invalid';

export const ACQUIRER_REJECTION_CODES: readonly AcquirerRejectionCode[] = [
  'reference_reused',
  'invalid_request',
  'card_number_invalid',
  'card_not_found',
  'authorization_not_found',
  'not_capturable',
  'not_cancelable',
  'not_refundable',
  'refund_amount_exceeds_captured',
  'pix_not_payable',
  'pix_not_expirable',
  'boleto_due_date_invalid',
];

// ── Card store ────────────────────────────────────────────────────────────────────────────────────

export interface StoreCardInput {
  reference: string;
  /** The PAN, digits only (normalised). Sent once, never returned. */
  number: string;
  expMonth: number;
  expYear: number;
  holderName: string;
}

export interface StoredCard {
  reference: string;
  /** The acquirer's handle on the card: what authorizations are made with. */
  cardRef: string;
  brand: string;
  last4: string;
}

// ── Card authorizations ───────────────────────────────────────────────────────────────────────────

export interface AuthorizeInput {
  reference: string;
  cardRef: string;
  amountCents: number;
  /** 1 to 24. */
  installments: number;
  /** true: authorize and capture at once (status `captured`); false: hold only (status `authorized`). */
  capture: boolean;
  /** The CVV, 3 or 4 digits, when the buyer gave one for this sale: forwarded, never stored. */
  securityCode?: string;
}

export type AuthorizationStatus = 'authorized' | 'captured' | 'canceled' | 'refused' | 'failed';
// Why a card was refused: @pgw/domain's, which the simulator's card rules (a domain project) name too.
export type { RefusedReason };

export interface Authorization {
  reference: string;
  transactionId: string;
  status: AuthorizationStatus;
  amountCents: number;
  installments: number;
  capturedAmountCents: number;
  /** Sum of succeeded refunds. */
  refundedAmountCents: number;
  /** Issuer's approval code, when approved. */
  authorizationCode: string | null;
  /** ISO 8583-style code: `00` approved, `05`, `51`, `54` refused; null when the acquirer gave none. */
  returnCode: string | null;
  returnMessage: string | null;
  /** Set when status is `refused` (card_declined, insufficient_funds, expired_card) or `failed` (processing_error). */
  refusedReason: RefusedReason | null;
  createdAt: string;
  capturedAt: string | null;
  canceledAt: string | null;
}

export interface CaptureInput {
  transactionId: string;
}

export interface CancelInput {
  transactionId: string;
}

// ── Refunds ───────────────────────────────────────────────────────────────────────────────────────

export interface RefundInput {
  reference: string;
  transactionId: string;
  amountCents: number;
  /**
   * The reference the charge was made under. A rail that refunds by the payment rather than by a
   * transaction (Pix: by the received Pix's end-to-end id, read from the PSP's charge) needs it; the
   * simulator and card acquirers ignore it.
   */
  chargeReference?: string;
}

/** What a refund's look-up may also need besides its reference: the same payment its request named. */
export interface RefundLookup {
  transactionId: string;
  chargeReference: string;
  /**
   * For acquirers that keep refunds only as a sum on the sale (Cielo): this refund's amount, and the sum
   * of the payment's refunds the caller knows succeeded — given only when no other refund of the payment
   * is in flight, so that the sale's refunded sum can tell whether this one was applied.
   */
  amountCents?: number;
  settledRefundedCents?: number;
}

export interface Refund {
  reference: string;
  refundId: string;
  transactionId: string;
  status: 'succeeded' | 'failed';
  amountCents: number;
  failureReason: string | null;
  createdAt: string;
}

// ── Pix ───────────────────────────────────────────────────────────────────────────────────────────

export interface CreatePixChargeInput {
  reference: string;
  amountCents: number;
  /** 60 to 86400 seconds. */
  expiresInSeconds: number;
}

export interface PixCharge {
  reference: string;
  /** The PSP's cob txid, 26 to 35 letters and digits. */
  txid: string;
  /** `expired` once `expiresAt` has passed unpaid, or after `expirePix`. */
  status: 'active' | 'paid' | 'expired';
  amountCents: number;
  /** The BR Code ("copia e cola"): EMV MPM with a valid CRC16 in field 63. */
  qrCode: string;
  expiresAt: string;
  paidAt: string | null;
}

// ── Boleto ────────────────────────────────────────────────────────────────────────────────────────

/** Who must pay a slip, as a bank registers it (CNAB 240 segment Q). */
export interface BoletoPayer {
  /** CPF (11 digits) or CNPJ (14 digits). */
  document: string;
  name: string;
  /** Street, number and complement, on one line. */
  address: string;
  /** Bairro, when known: the API does not ask for it and banks register a slip without it. */
  district: string | null;
  /** CEP, 8 digits. */
  postalCode: string;
  city: string;
  /** UF, 2 letters. */
  state: string;
}

export interface RegisterBoletoInput {
  reference: string;
  amountCents: number;
  /** YYYY-MM-DD, today or later. */
  dueDate: string;
  /**
   * Optional in the type because the simulator registers a slip without it; a bank's rail refuses a
   * registration without it (`invalid_request`), as the bank itself would (reasons 45–48).
   */
  payer?: BoletoPayer;
}

export interface Boleto {
  reference: string;
  status: 'registered' | 'paid';
  amountCents: number;
  /** 44 digits, FEBRABAN general check digit, due-date factor after the 2025-02-22 reset. */
  barcode: string;
  /** 47 digits (unformatted), with its three mod-10 field check digits. */
  digitableLine: string;
  dueDate: string;
  paidAt: string | null;
}

/**
 * What domain code calls. Every method resolves (never rejects on an operating error); read `ok`, then
 * `kind`. Lookups (`get…`) are how a caller learns the outcome of a request that timed out.
 */
export interface AcquirerPort {
  /** A short, stable name of the acquirer (`acquirer_code` on charges). */
  readonly code: string;

  /** Hands the PAN to the acquirer's card store; returns its card reference. */
  storeCard(input: StoreCardInput): Promise<AcquirerResult<StoredCard>>;

  /** Authorizes (and with `capture: true`, captures) an amount on a stored card. A refusal is a value with status `refused`/`failed`, not a failure. */
  authorize(input: AuthorizeInput): Promise<AcquirerResult<Authorization>>;
  getAuthorization(reference: string): Promise<AcquirerResult<Authorization>>;
  /** Captures the full authorized amount. Capturing a captured authorization returns it unchanged. */
  capture(input: CaptureInput): Promise<AcquirerResult<Authorization>>;
  /** Voids an authorization that was not captured. Canceling a canceled one returns it unchanged. */
  cancel(input: CancelInput): Promise<AcquirerResult<Authorization>>;

  /** Refunds part or all of a captured authorization. A declined refund is a value with status `failed`. */
  refund(input: RefundInput): Promise<AcquirerResult<Refund>>;
  /** `lookup`: the payment the refund was of, for rails that find a refund only under it (Pix). */
  getRefund(reference: string, lookup?: RefundLookup): Promise<AcquirerResult<Refund>>;

  createPixCharge(input: CreatePixChargeInput): Promise<AcquirerResult<PixCharge>>;
  getPixCharge(reference: string): Promise<AcquirerResult<PixCharge>>;
  /** Test mode: the buyer pays (the PSP confirms). Paying a paid charge returns it unchanged. */
  payPix(reference: string): Promise<AcquirerResult<PixCharge>>;
  /** Ends an active charge unpaid. Expiring an expired charge returns it unchanged. */
  expirePix(reference: string): Promise<AcquirerResult<PixCharge>>;

  registerBoleto(input: RegisterBoletoInput): Promise<AcquirerResult<Boleto>>;
  getBoleto(reference: string): Promise<AcquirerResult<Boleto>>;
  /** Test mode: the buyer pays the slip (the bank confirms). Paying a paid boleto returns it unchanged. */
  payBoleto(reference: string): Promise<AcquirerResult<Boleto>>;
}
