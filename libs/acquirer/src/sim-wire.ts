import { Type, type Static } from '@sinclair/typebox';
import { REFERENCE_PATTERN } from './port';

// The simulator's HTTP API: one definition for both sides, so that the simulator's routes (which validate
// requests and allowlist responses with these schemas) and the adapter (which checks every answer against
// them) cannot drift apart. JSON is snake_case, like every API of ours. A real acquirer has its own wire
// format; its adapter would carry its own schemas.

/** `snake_case` as `camelCase`, the port's spelling of a wire field (`amount_cents` is `amountCents`). */
export type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}`
  ? `${Head}${Capitalize<CamelCase<Tail>>}`
  : S;

/** A wire body's fields under the port's names, values as they are. */
export type CamelKeys<T> = { [K in keyof T as K extends string ? CamelCase<K> : K]: T[K] };

/**
 * The port's value of a wire body whose fields are the port's, spelled in snake_case (the adapter's checked
 * answers: the schema dropped any field it does not name). The port's interface names each field; the
 * compiler proves the body has them all, of their types.
 */
export function camelKeys<T extends object>(wire: T): CamelKeys<T> {
  return Object.fromEntries(
    Object.entries(wire).map(([name, value]) => [
      name.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase()),
      value,
    ]),
  ) as CamelKeys<T>;
}

/** Header of the simulator's optional shared key (`ACQUIRER_SIM_KEY`). */
export const SIM_KEY_HEADER = 'x-acquirer-key';

export const SIM_PATHS = {
  cards: '/acquirer/v1/cards',
  authorizations: '/acquirer/v1/authorizations',
  authorization: '/acquirer/v1/authorizations/:reference',
  capture: '/acquirer/v1/transactions/:transaction_id/capture',
  cancel: '/acquirer/v1/transactions/:transaction_id/cancel',
  refunds: '/acquirer/v1/refunds',
  refund: '/acquirer/v1/refunds/:reference',
  pixCharges: '/acquirer/v1/pix/charges',
  pixCharge: '/acquirer/v1/pix/charges/:reference',
  pixPay: '/acquirer/v1/pix/charges/:reference/pay',
  pixExpire: '/acquirer/v1/pix/charges/:reference/expire',
  boletos: '/acquirer/v1/boletos',
  boleto: '/acquirer/v1/boletos/:reference',
  boletoPay: '/acquirer/v1/boletos/:reference/pay',
} as const;

/** Fills a SIM_PATHS pattern; every value is URI-encoded. */
export function simPath(pattern: string, params: Record<string, string> = {}): string {
  return pattern.replace(/:([a-z_]+)/g, (_m, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`simPath: missing ${name}`);
    return encodeURIComponent(value);
  });
}

const Reference = Type.String({ pattern: REFERENCE_PATTERN });
const Cents = Type.Integer({ minimum: 1, maximum: 9_999_999_999 });
const Timestamp = Type.String({ format: 'date-time' });
const NullableString = Type.Union([Type.String(), Type.Null()]);
const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);
const strict = { additionalProperties: false } as const;

export const ReferenceParams = Type.Object({ reference: Reference }, strict);
export const TransactionParams = Type.Object(
  { transaction_id: Type.String({ pattern: '^txn_[A-Za-z0-9]+$' }) },
  strict,
);

export const StoreCardRequest = Type.Object(
  {
    reference: Reference,
    number: Type.String({ pattern: '^[0-9]{12,19}$' }),
    exp_month: Type.Integer({ minimum: 1, maximum: 12 }),
    exp_year: Type.Integer({ minimum: 2000, maximum: 2100 }),
    holder_name: Type.String({ minLength: 1, maxLength: 120 }),
  },
  strict,
);
export const WireCard = Type.Object(
  {
    reference: Reference,
    card_ref: Type.String({ pattern: '^card_[A-Za-z0-9]+$' }),
    brand: Type.String(),
    last4: Type.String({ pattern: '^[0-9]{4}$' }),
  },
  strict,
);

export const AuthorizeRequest = Type.Object(
  {
    reference: Reference,
    card_ref: Type.String({ pattern: '^card_[A-Za-z0-9]+$' }),
    amount_cents: Cents,
    installments: Type.Integer({ minimum: 1, maximum: 24 }),
    capture: Type.Boolean(),
    security_code: Type.Optional(Type.String({ pattern: '^[0-9]{3,4}$' })),
  },
  strict,
);
export const WireAuthorization = Type.Object(
  {
    reference: Reference,
    transaction_id: Type.String({ pattern: '^txn_[A-Za-z0-9]+$' }),
    status: Type.Union([
      Type.Literal('authorized'),
      Type.Literal('captured'),
      Type.Literal('canceled'),
      Type.Literal('refused'),
      Type.Literal('failed'),
    ]),
    amount_cents: Cents,
    installments: Type.Integer({ minimum: 1, maximum: 24 }),
    captured_amount_cents: Type.Integer({ minimum: 0 }),
    refunded_amount_cents: Type.Integer({ minimum: 0 }),
    authorization_code: NullableString,
    return_code: NullableString,
    return_message: NullableString,
    refused_reason: Type.Union([
      Type.Literal('card_declined'),
      Type.Literal('insufficient_funds'),
      Type.Literal('expired_card'),
      Type.Literal('processing_error'),
      Type.Null(),
    ]),
    created_at: Timestamp,
    captured_at: NullableTimestamp,
    canceled_at: NullableTimestamp,
  },
  strict,
);

export const RefundRequest = Type.Object(
  {
    reference: Reference,
    transaction_id: Type.String({ pattern: '^txn_[A-Za-z0-9]+$' }),
    amount_cents: Cents,
  },
  strict,
);
export const WireRefund = Type.Object(
  {
    reference: Reference,
    refund_id: Type.String({ pattern: '^rfd_[A-Za-z0-9]+$' }),
    transaction_id: Type.String(),
    status: Type.Union([Type.Literal('succeeded'), Type.Literal('failed')]),
    amount_cents: Cents,
    failure_reason: NullableString,
    created_at: Timestamp,
  },
  strict,
);

export const CreatePixChargeRequest = Type.Object(
  {
    reference: Reference,
    amount_cents: Cents,
    expires_in: Type.Integer({ minimum: 60, maximum: 86_400 }),
  },
  strict,
);
export const WirePixCharge = Type.Object(
  {
    reference: Reference,
    txid: Type.String({ pattern: '^[A-Za-z0-9]{26,35}$' }),
    status: Type.Union([Type.Literal('active'), Type.Literal('paid'), Type.Literal('expired')]),
    amount_cents: Cents,
    qr_code: Type.String({ minLength: 1 }),
    expires_at: Timestamp,
    paid_at: NullableTimestamp,
  },
  strict,
);

export const RegisterBoletoRequest = Type.Object(
  { reference: Reference, amount_cents: Cents, due_date: Type.String({ format: 'date' }) },
  strict,
);
export const WireBoleto = Type.Object(
  {
    reference: Reference,
    status: Type.Union([Type.Literal('registered'), Type.Literal('paid')]),
    amount_cents: Cents,
    barcode: Type.String({ pattern: '^[0-9]{44}$' }),
    digitable_line: Type.String({ pattern: '^[0-9]{47}$' }),
    due_date: Type.String({ format: 'date' }),
    paid_at: NullableTimestamp,
  },
  strict,
);

export const ProviderModeBody = Type.Object(
  {
    mode: Type.Union([
      Type.Literal('normal'),
      Type.Literal('unavailable'),
      Type.Literal('timeout'),
    ]),
  },
  strict,
);
export type ProviderMode = Static<typeof ProviderModeBody>['mode'];

export type StoreCardRequestBody = Static<typeof StoreCardRequest>;
export type WireCardBody = Static<typeof WireCard>;
export type AuthorizeRequestBody = Static<typeof AuthorizeRequest>;
export type WireAuthorizationBody = Static<typeof WireAuthorization>;
export type RefundRequestBody = Static<typeof RefundRequest>;
export type WireRefundBody = Static<typeof WireRefund>;
export type CreatePixChargeRequestBody = Static<typeof CreatePixChargeRequest>;
export type WirePixChargeBody = Static<typeof WirePixCharge>;
export type RegisterBoletoRequestBody = Static<typeof RegisterBoletoRequest>;
export type WireBoletoBody = Static<typeof WireBoleto>;
