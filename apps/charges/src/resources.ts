// The API resources of charges (api-v1 §2, contract §4 and §4a): one TypeBox schema each, which is also
// the allowlist Fastify serializes with, and one renderer from the row. The same renderers give the
// events' resource_json (the webhook's data.object), so an integrator sees one shape everywhere.
import { Type, type Static } from '@sinclair/typebox';
import { literals, Nullable, RequestIdSchema } from '@pgw/platform-http';
import type { SplitAllocation } from '@pgw/contracts';
import { CHARGE_STATUSES, PAYMENT_METHODS } from '@pgw/charges-domain/charge';
import type { ChargeEventRow } from './data/charge-event.repository';
import { CHARGE_EVENT_KINDS } from './charge-event-kinds';
import type { Buyer } from '@pgw/charges-domain/charge-input';
import type { ChargeRow } from './data/charge.repository';
import type { ChargebackRow } from './data/chargeback.repository';
import type { RefundRow } from './data/refund.repository';

const strict = { additionalProperties: false } as const;
const DateTime = Type.String({ format: 'date-time' });

const BuyerAddressSchema = Type.Object(
  {
    line_1: Type.String(),
    line_2: Nullable(Type.String()),
    zip_code: Type.String(),
    city: Type.String(),
    state: Type.String(),
    country: Type.String(),
  },
  strict,
);

const BuyerSchema = Type.Object(
  {
    name: Type.String(),
    email: Type.String(),
    phone: Type.String(),
    document: Type.String(),
    document_type: Nullable(literals(['cpf', 'cnpj'] as const)),
    ip: Nullable(Type.String()),
    address: BuyerAddressSchema,
  },
  strict,
);

const SplitItemSchema = Type.Object(
  {
    recipient_seller_id: Type.String({ pattern: '^seller_[A-Za-z0-9]+$' }),
    amount_cents: Type.Integer({ minimum: 1 }),
  },
  strict,
);

export const ChargeResource = Type.Object(
  {
    id: Type.String({ pattern: '^ch_[A-Za-z0-9]+$' }),
    object: Type.Literal('charge'),
    status: literals(CHARGE_STATUSES),
    amount_cents: Type.Integer({ minimum: 1 }),
    currency: Type.Literal('BRL'),
    payment_method: literals(PAYMENT_METHODS),
    capture_method: literals(['automatic', 'manual'] as const),
    captured: Type.Boolean(),
    installments: Nullable(Type.Integer({ minimum: 1, maximum: 24 })),
    buyer: BuyerSchema,
    acquirer_code: Nullable(Type.String()),
    acquirer_transaction_id: Nullable(Type.String()),
    authorization_code: Nullable(Type.String()),
    acquirer_return_code: Nullable(Type.String()),
    acquirer_return_message: Nullable(Type.String()),
    refused_reason: Nullable(Type.String()),
    metadata: Nullable(Type.Object({}, { additionalProperties: true })),
    split: Type.Optional(Type.Array(SplitItemSchema)),
    pix: Type.Optional(Type.Object({ qr_code: Type.String(), expires_at: DateTime }, strict)),
    boleto: Type.Optional(
      Type.Object(
        {
          barcode: Type.String(),
          digitable_line: Type.String(),
          due_date: Type.String({ format: 'date' }),
        },
        strict,
      ),
    ),
    paid_at: Nullable(DateTime),
    created_at: DateTime,
    updated_at: DateTime,
    request_id: RequestIdSchema,
  },
  strict,
);

/** A charge in a list: the resource without its own request_id (the list envelope carries one). */
export const ChargeItem = Type.Omit(ChargeResource, ['request_id'], strict);

export const RefundResource = Type.Object(
  {
    id: Type.String({ pattern: '^rf_[A-Za-z0-9]+$' }),
    object: Type.Literal('refund'),
    status: literals(['pending', 'processing', 'succeeded', 'failed', 'canceled'] as const),
    charge_id: Type.String({ pattern: '^ch_[A-Za-z0-9]+$' }),
    amount_cents: Type.Integer({ minimum: 1 }),
    currency: Type.Literal('BRL'),
    reason: Nullable(Type.String()),
    provider_reference: Nullable(Type.String()),
    succeeded_at: Nullable(DateTime),
    created_at: DateTime,
    updated_at: DateTime,
    request_id: RequestIdSchema,
  },
  strict,
);

/** A refund in a charge's list of refunds: the envelope carries the request id. */
export const RefundItem = Type.Omit(RefundResource, ['request_id'], strict);

/** One change of a charge, its refunds or chargebacks (GET /charges/{id}/events); `id` is its webhook event's. */
export const ChargeEventItem = Type.Object(
  {
    object: Type.Literal('charge_event'),
    id: Type.String({ pattern: '^evt_[A-Za-z0-9]+$' }),
    type: literals(CHARGE_EVENT_KINDS),
    charge_id: Type.String({ pattern: '^ch_[A-Za-z0-9]+$' }),
    charge_status: literals(CHARGE_STATUSES),
    refund_id: Nullable(Type.String({ pattern: '^rf_[A-Za-z0-9]+$' })),
    chargeback_id: Nullable(Type.String({ pattern: '^cb_[A-Za-z0-9]+$' })),
    amount_cents: Type.Integer({ minimum: 1 }),
    created_at: DateTime,
  },
  strict,
);

const chargebackFields = {
  object: Type.Literal('chargeback'),
  id: Type.String({ pattern: '^cb_[A-Za-z0-9]+$' }),
  charge_id: Type.String({ pattern: '^ch_[A-Za-z0-9]+$' }),
  amount_cents: Type.Integer({ minimum: 1 }),
  currency: Type.Literal('BRL'),
  status: literals(['open', 'under_review', 'won', 'lost', 'accepted'] as const),
  reason_code: Nullable(Type.String()),
  evidence_due_at: Nullable(DateTime),
  opened_at: DateTime,
  resolved_at: Nullable(DateTime),
  created_at: DateTime,
  updated_at: DateTime,
};

/** A chargeback inside the list envelope: no request_id of its own (api-v1 §2). */
export const ChargebackItem = Type.Object(chargebackFields, strict);
export const ChargebackResource = Type.Object(
  { ...chargebackFields, request_id: RequestIdSchema },
  strict,
);

export type ChargeBody = Omit<Static<typeof ChargeResource>, 'request_id'>;
export type RefundBody = Omit<Static<typeof RefundResource>, 'request_id'>;
export type ChargebackBody = Static<typeof ChargebackItem>;
export type ChargeEventBody = Static<typeof ChargeEventItem>;

export const readSplit = (row: Pick<ChargeRow, 'split_json'>): SplitAllocation[] =>
  JSON.parse(row.split_json) as SplitAllocation[];

/**
 * The charge as the API shows it. `split` is shown on retrieval (and in events) when the charge has one;
 * create and capture answers leave it out (api-v1 §2).
 */
export function chargeResource(row: ChargeRow, options: { withSplit: boolean }): ChargeBody {
  const split = readSplit(row);
  const body: ChargeBody = {
    id: row.id,
    object: 'charge',
    status: row.status,
    amount_cents: row.amount_cents,
    currency: 'BRL',
    payment_method: row.payment_method,
    capture_method: row.capture_method,
    captured: row.paid_at !== null,
    installments: row.installments,
    buyer: JSON.parse(row.buyer_json) as Buyer,
    acquirer_code: row.acquirer_code,
    acquirer_transaction_id: row.acquirer_transaction_id,
    authorization_code: row.authorization_code,
    acquirer_return_code: row.acquirer_return_code,
    acquirer_return_message: row.acquirer_return_message,
    refused_reason: row.refused_reason,
    metadata:
      row.metadata_json === null
        ? null
        : (JSON.parse(row.metadata_json) as Record<string, unknown>),
    paid_at: row.paid_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
  if (options.withSplit && split.length > 0) body.split = split;
  if (row.pix_qr_code !== null && row.pix_expires_at !== null)
    body.pix = { qr_code: row.pix_qr_code, expires_at: row.pix_expires_at.toISOString() };
  if (
    row.boleto_barcode !== null &&
    row.boleto_digitable_line !== null &&
    row.boleto_due_date !== null
  ) {
    body.boleto = {
      barcode: row.boleto_barcode,
      digitable_line: row.boleto_digitable_line,
      due_date: row.boleto_due_date,
    };
  }
  return body;
}

export function refundResource(row: RefundRow): RefundBody {
  return {
    id: row.id,
    object: 'refund',
    status: row.status,
    charge_id: row.charge_id,
    amount_cents: row.amount_cents,
    currency: 'BRL',
    reason: row.reason,
    provider_reference: row.provider_reference,
    succeeded_at: row.succeeded_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export function chargebackResource(row: ChargebackRow): ChargebackBody {
  return {
    object: 'chargeback',
    id: row.id,
    charge_id: row.charge_id,
    amount_cents: row.amount_cents,
    currency: 'BRL',
    status: row.status,
    reason_code: row.reason_code,
    evidence_due_at: row.evidence_due_at?.toISOString() ?? null,
    opened_at: row.opened_at.toISOString(),
    resolved_at: row.resolved_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export function chargeEventResource(row: ChargeEventRow): ChargeEventBody {
  return {
    object: 'charge_event',
    id: row.id,
    type: row.type,
    charge_id: row.charge_id,
    charge_status: row.charge_status,
    refund_id: row.refund_id,
    chargeback_id: row.chargeback_id,
    amount_cents: row.amount_cents,
    created_at: row.created_at.toISOString(),
  };
}
