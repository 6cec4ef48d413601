// The rules of POST /charges that a JSON schema cannot say (api-v1 §4, contract §4): which fields go with
// which payment method, buyer normalization, split allocation, metadata size. Pure: the route has already
// checked shapes with the schema, and checks what needs I/O (the token, split recipients) afterwards.
import { isIP } from 'node:net';
import {
  addDays,
  allocateSplit,
  isDateString,
  normalizeCep,
  normalizeDocument,
  normalizePhone,
  serializesLongerThan,
  type SplitAllocation,
  type SplitRejectionReason,
} from '@pgw/domain';
import type { CaptureMethod, PaymentMethod } from './charge';

export const METADATA_CHARS_MAX = 4096;
export const PIX_EXPIRES_IN_DEFAULT_S = 86_400; // the Bacen cob API's default `expiracao`
export const BOLETO_DUE_DAYS_DEFAULT = 3;

export interface CreateChargeRequest {
  amount: number;
  currency?: 'BRL';
  payment_method: 'CREDIT_CARD' | 'DEBIT_CARD' | 'PIX' | 'BOLETO';
  capture_method?: CaptureMethod;
  installments?: number;
  card_token?: string;
  security_code?: string;
  buyer: {
    name: string;
    email: string;
    phone: string;
    document: string;
    ip?: string;
    address: {
      line_1: string;
      line_2?: string;
      zip_code: string;
      city: string;
      state: string;
      country?: string;
    };
  };
  pix?: { expires_in?: number };
  boleto?: { due_date?: string };
  split?: Array<{ recipient_seller_id: string; amount_cents?: number; percentage_bps?: number }>;
  metadata?: Record<string, unknown>;
}

export interface Buyer {
  name: string;
  email: string;
  phone: string;
  document: string;
  document_type: 'cpf' | 'cnpj';
  ip: string | null;
  address: {
    line_1: string;
    line_2: string | null;
    zip_code: string;
    city: string;
    state: string;
    country: string;
  };
}

export interface NewCharge {
  amountCents: number;
  currency: 'BRL';
  paymentMethod: PaymentMethod;
  captureMethod: CaptureMethod;
  /** 1..24 for cards; null for Pix and boleto. */
  installments: number | null;
  cardToken: string | null;
  buyer: Buyer;
  metadata: Record<string, unknown> | null;
  split: SplitAllocation[];
  pix: { expiresInSeconds: number } | null;
  boleto: { dueDate: string } | null;
}

export type InputRejection = {
  code: 'parameter_invalid' | 'parameter_missing' | 'split_invalid' | 'seller_scope_required';
  message: string;
  param: string | null;
};

export type InputResult =
  { ok: true; charge: NewCharge } | { ok: false; rejection: InputRejection };

const METHODS: Record<CreateChargeRequest['payment_method'], PaymentMethod> = {
  CREDIT_CARD: 'credit_card',
  DEBIT_CARD: 'debit_card',
  PIX: 'pix',
  BOLETO: 'boleto',
};

class Rejected extends Error {
  constructor(readonly rejection: InputRejection) {
    super(rejection.message);
  }
}

function invalid(param: string, message: string): never {
  throw new Rejected({ code: 'parameter_invalid', message: `${param}: ${message}`, param });
}

function missing(param: string, message: string): never {
  throw new Rejected({ code: 'parameter_missing', message: `${param}: ${message}`, param });
}

export interface InputContext {
  /** The API key's seller, or null for a tenant-wide key. */
  keySellerId: string | null;
  /**
   * The client's address as the gateway saw it (the signed principal's clientIp), if any. Never a header:
   * X-Forwarded-For's entries are the client's to write, and the socket here is the gateway's.
   */
  requestIp: string | null;
  today: string;
}

/** Validates and normalizes a POST /charges body that already passed the schema. */
export function readCreateCharge(body: CreateChargeRequest, context: InputContext): InputResult {
  try {
    return { ok: true, charge: read(body, context) };
  } catch (error) {
    if (error instanceof Rejected) return { ok: false, rejection: error.rejection };
    throw error;
  }
}

function read(body: CreateChargeRequest, context: InputContext): NewCharge {
  const paymentMethod = METHODS[body.payment_method];
  const card = paymentMethod === 'credit_card' || paymentMethod === 'debit_card';
  const captureMethod = body.capture_method ?? 'automatic';

  // Money must belong to a seller. A card charge's seller is its token's; a Pix or boleto has no token,
  // so its seller is the key's, and a tenant-wide key cannot say whose money it is.
  if (!card && context.keySellerId === null) {
    throw new Rejected({
      code: 'seller_scope_required',
      message:
        'Pix and boleto charges need a seller-scoped API key: the money must belong to a seller.',
      param: null,
    });
  }

  if (!card && captureMethod === 'manual')
    invalid('capture_method', 'manual capture is only for card payments');
  let installments: number | null = null;
  if (card) {
    if (body.installments === undefined)
      missing('installments', 'is required for card payments (send 1 for a one-time payment)');
    installments = body.installments ?? null;
    // A debit card takes the money at once; it cannot be paid in installments.
    if (paymentMethod === 'debit_card' && installments !== 1)
      invalid('installments', 'must be 1 for a debit card');
    if (body.card_token === undefined) missing('card_token', 'is required for card payments');
    if (body.pix !== undefined) invalid('pix', 'is only for PIX payments');
    if (body.boleto !== undefined) invalid('boleto', 'is only for BOLETO payments');
  } else {
    if (body.installments !== undefined && body.installments !== 1)
      invalid('installments', 'Pix and boleto are paid at once (1)');
    if (body.card_token !== undefined) invalid('card_token', 'is only for card payments');
    if (body.security_code !== undefined) invalid('security_code', 'is only for card payments');
    if (paymentMethod === 'pix' && body.boleto !== undefined)
      invalid('boleto', 'is only for BOLETO payments');
    if (paymentMethod === 'boleto' && body.pix !== undefined)
      invalid('pix', 'is only for PIX payments');
  }

  const buyer = readBuyer(body.buyer, context.requestIp);

  let boleto: NewCharge['boleto'] = null;
  if (paymentMethod === 'boleto') {
    const dueDate = body.boleto?.due_date ?? addDays(context.today, BOLETO_DUE_DAYS_DEFAULT);
    if (!isDateString(dueDate)) invalid('boleto.due_date', 'must be a date (YYYY-MM-DD)');
    // A bank does not register a slip that is overdue already.
    if (dueDate < context.today)
      invalid('boleto.due_date', `must be today (${context.today}) or later`);
    boleto = { dueDate };
  }
  const pix =
    paymentMethod === 'pix'
      ? { expiresInSeconds: body.pix?.expires_in ?? PIX_EXPIRES_IN_DEFAULT_S }
      : null;

  const split = readSplit(body.amount, body.split);

  let metadata: Record<string, unknown> | null = null;
  if (body.metadata !== undefined) {
    if (serializesLongerThan(body.metadata, METADATA_CHARS_MAX))
      invalid('metadata', `must be at most ${METADATA_CHARS_MAX} characters once serialized`);
    metadata = body.metadata;
  }

  return {
    amountCents: body.amount,
    currency: 'BRL',
    paymentMethod,
    captureMethod,
    installments,
    cardToken: card ? (body.card_token ?? null) : null,
    buyer,
    metadata,
    split,
    pix,
    boleto,
  };
}

function readBuyer(input: CreateChargeRequest['buyer'], requestIp: string | null): Buyer {
  const phone = normalizePhone(input.phone);
  if (phone === null) invalid('buyer.phone', 'must be a phone number of 10 to 15 digits');
  const document = normalizeDocument(input.document);
  if (document === null) {
    const digits = input.document.replace(/[.\-/\s]/g, '');
    if (/^\d{11}$/.test(digits)) invalid('buyer.document', 'CPF check digits do not match');
    if (/^\d{14}$/.test(digits)) invalid('buyer.document', 'CNPJ check digits do not match');
    invalid('buyer.document', 'must be a CPF (11 digits) or a CNPJ (14 digits)');
  }
  if (input.ip !== undefined && isIP(input.ip) === 0)
    invalid('buyer.ip', 'must be an IPv4 or IPv6 address');

  const address = input.address;
  const country = (address.country ?? 'BR').toUpperCase();
  let zipCode = address.zip_code;
  if (country === 'BR') {
    const cep = normalizeCep(address.zip_code);
    if (cep === null) invalid('buyer.address.zip_code', 'must be a CEP of 8 digits');
    zipCode = cep;
  }
  return {
    name: input.name,
    email: input.email,
    phone,
    document: document.digits,
    document_type: document.type,
    ip: input.ip ?? requestIp,
    address: {
      line_1: address.line_1,
      line_2: address.line_2 ?? null,
      zip_code: zipCode,
      city: address.city,
      state: address.state,
      country,
    },
  };
}

const SPLIT_MESSAGES: Record<SplitRejectionReason, { field: string | null; message: string }> = {
  amount_and_percentage: { field: null, message: 'use amount_cents or percentage_bps, not both' },
  amount_or_percentage_missing: { field: null, message: 'needs amount_cents or percentage_bps' },
  mixed_modes: {
    field: null,
    message: 'all items must use the same mode: amount_cents, or percentage_bps',
  },
  amount_invalid: { field: 'amount_cents', message: 'must be an integer of at least 1' },
  percentage_invalid: { field: 'percentage_bps', message: 'must be an integer from 1 to 10000' },
  duplicate_recipient: { field: 'recipient_seller_id', message: 'appears twice' },
  resolves_to_zero: {
    field: 'percentage_bps',
    message: 'is too small for this amount: it resolves to 0 cents',
  },
  sum_exceeds_total: {
    field: null,
    message: 'the recipients would receive more than the charge amount',
  },
};

function readSplit(amountCents: number, items: CreateChargeRequest['split']): SplitAllocation[] {
  if (items === undefined) return [];
  const result = allocateSplit(
    amountCents,
    items.map((i) => ({
      recipientSellerId: i.recipient_seller_id,
      ...(i.amount_cents !== undefined ? { amountCents: i.amount_cents } : {}),
      ...(i.percentage_bps !== undefined ? { percentageBps: i.percentage_bps } : {}),
    })),
  );
  if (result.ok) return result.recipients;
  const { field, message } = SPLIT_MESSAGES[result.reason];
  const param =
    result.index === undefined
      ? 'split'
      : field === null
        ? `split.${result.index}`
        : `split.${result.index}.${field}`;
  throw new Rejected({ code: 'split_invalid', message: `${param}: ${message}`, param });
}
