import { Type } from '@sinclair/typebox';
import { Nullable, PagingQuery, RequestIdSchema } from '@pgw/platform-http';
import { RECEIVABLE_STATUSES } from '../data/receivables.repository';
import { SETTLEMENT_STATUSES } from '../data/settlements.repository';

const Date = Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' });
const Instant = Type.String({ format: 'date-time' });

/** The status filter of a list: anything but these values is a 422 on param `status`. */
const ReceivableStatusFilter = Type.Union(RECEIVABLE_STATUSES.map((s) => Type.Literal(s)));
const SettlementStatusFilter = Type.Union(SETTLEMENT_STATUSES.map((s) => Type.Literal(s)));

const receivableFields = {
  object: Type.Literal('receivable'),
  id: Type.String({ pattern: '^recv_[A-Za-z0-9]+$' }),
  status: Type.String(),
  charge_id: Type.String(),
  seller_id: Type.String(),
  payment_method: Type.String(),
  installment: Type.Integer({ minimum: 1 }),
  installments: Type.Integer({ minimum: 1 }),
  gross_amount_cents: Type.Integer({ minimum: 0 }),
  fee_amount_cents: Type.Integer({ minimum: 0 }),
  net_amount_cents: Type.Integer({ minimum: 0 }),
  due_date: Date,
  original_due_date: Date,
  anticipation_id: Nullable(Type.String()),
  settlement_id: Nullable(Type.String()),
  created_at: Instant,
  updated_at: Instant,
};

const settlementFields = {
  object: Type.Literal('settlement'),
  id: Type.String({ pattern: '^set_[A-Za-z0-9]+$' }),
  status: Type.String(),
  seller_id: Type.String(),
  amount_cents: Type.Integer({ minimum: 0 }),
  receivable_count: Type.Integer({ minimum: 0 }),
  settlement_date: Date,
  paid_at: Nullable(Instant),
  created_at: Instant,
  updated_at: Instant,
};

// Response schemas are also allowlists: a field not named here never leaves the service.
export const ReceivableItem = Type.Object(receivableFields, { additionalProperties: false });
export const ReceivableBody = Type.Object(
  { ...receivableFields, request_id: RequestIdSchema },
  { additionalProperties: false },
);
export const SettlementItem = Type.Object(settlementFields, { additionalProperties: false });
export const SettlementBody = Type.Object(
  { ...settlementFields, request_id: RequestIdSchema },
  { additionalProperties: false },
);

export const ReceivablesQuery = Type.Object({
  ...PagingQuery,
  status: Type.Optional(ReceivableStatusFilter),
  // Beyond api-v1 §4 (issue 22): one charge's receivables, as the dashboard's charge page shows them.
  charge_id: Type.Optional(Type.String({ pattern: '^ch_[A-Za-z0-9]+$' })),
});
export const SettlementsQuery = Type.Object({
  ...PagingQuery,
  status: Type.Optional(SettlementStatusFilter),
});

export const IdParams = Type.Object({ id: Type.String() });
