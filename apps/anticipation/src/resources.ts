// The API resources (api-v1 "Anticipation simulation", contract §4a "Anticipation"), their response
// schemas, and the builders that routes and the event's resource_json share. Response schemas are also
// allowlists: a field not named here never leaves the service.
import { Type } from '@sinclair/typebox';
import { Nullable, RequestIdSchema } from '@pgw/platform-http';
import type { Anticipation } from './data/anticipations.repository';
import type { AnticipationPricing } from './domain/pricing';
import type { ExposureBlock, QuoteItem, Totals, TreasuryBlock } from './domain/quote';

const Cents = Type.Integer({ minimum: 0 });
const closed = { additionalProperties: false } as const;

// A simulation item is api-v1's four fields, no more: a simulation of all eligible receivables can hold
// tens of thousands, and its size is its latency. Items come in the order of receivable_ids when named,
// else earliest due first. An executed anticipation's items (at most a thousand) also name their receivable.
const itemFields = {
  days_anticipated: Cents,
  gross_amount_cents: Cents,
  fee_amount_cents: Cents,
  net_amount_cents: Cents,
};
const SimulationItemSchema = Type.Object(itemFields, closed);
const AnticipationItemLineSchema = Type.Object({ receivable_id: Type.String({ pattern: '^recv_[A-Za-z0-9]+$' }), ...itemFields }, closed);

const ExposureSchema = Type.Object(
  { outstanding_cents: Cents, projected_cents: Cents, limit_cents: Cents, available_cents: Cents, within_limit: Type.Boolean() },
  closed,
);
const TreasurySchema = Type.Object({ available_cash_cents: Cents, requested_cash_out_cents: Cents, within_limit: Type.Boolean() }, closed);

export const SimulationBody = Type.Object(
  {
    object: Type.Literal('anticipation_simulation'),
    eligible_receivable_count: Cents,
    gross_amount_cents: Cents,
    fee_amount_cents: Cents,
    net_amount_cents: Cents,
    fee_bps_per_month: Cents,
    settlement_delay_days: Cents,
    pricing_plan_id: Nullable(Type.String()),
    items: Type.Array(SimulationItemSchema),
    exposure: ExposureSchema,
    treasury: TreasurySchema,
    request_id: RequestIdSchema,
  },
  closed,
);

const anticipationFields = {
  object: Type.Literal('anticipation'),
  id: Type.String({ pattern: '^ant_[A-Za-z0-9]+$' }),
  status: Type.Literal('succeeded'),
  seller_id: Type.String(),
  gross_amount_cents: Cents,
  fee_amount_cents: Cents,
  net_amount_cents: Cents,
  fee_bps_per_month: Cents,
  settlement_delay_days: Cents,
  pricing_plan_id: Nullable(Type.String()),
  receivable_ids: Type.Array(Type.String({ pattern: '^recv_[A-Za-z0-9]+$' })),
  items: Type.Array(AnticipationItemLineSchema),
  created_at: Type.String({ format: 'date-time' }),
};

export const AnticipationItemSchema = Type.Object(anticipationFields, closed);
export const AnticipationBody = Type.Object({ ...anticipationFields, request_id: RequestIdSchema }, closed);

export interface SimulationItemResource {
  days_anticipated: number;
  gross_amount_cents: number;
  fee_amount_cents: number;
  net_amount_cents: number;
}

export interface SimulationResource {
  object: 'anticipation_simulation';
  eligible_receivable_count: number;
  gross_amount_cents: number;
  fee_amount_cents: number;
  net_amount_cents: number;
  fee_bps_per_month: number;
  settlement_delay_days: number;
  pricing_plan_id: string | null;
  items: SimulationItemResource[];
  exposure: ExposureBlock;
  treasury: TreasuryBlock;
}

export interface AnticipationResource {
  object: 'anticipation';
  id: string;
  status: 'succeeded';
  seller_id: string;
  gross_amount_cents: number;
  fee_amount_cents: number;
  net_amount_cents: number;
  fee_bps_per_month: number;
  settlement_delay_days: number;
  pricing_plan_id: string | null;
  receivable_ids: string[];
  items: AnticipationItemResource[];
  created_at: string;
}

export interface AnticipationItemResource extends SimulationItemResource {
  receivable_id: string;
}

export function simulationItemResource(item: QuoteItem): SimulationItemResource {
  return { days_anticipated: item.daysAnticipated, gross_amount_cents: item.grossCents, fee_amount_cents: item.feeCents, net_amount_cents: item.netCents };
}

export function anticipationItemResource(item: QuoteItem): AnticipationItemResource {
  return { receivable_id: item.receivableId, ...simulationItemResource(item) };
}

export function simulationResource(input: { items: QuoteItem[]; totals: Totals; pricing: AnticipationPricing; exposure: ExposureBlock; treasury: TreasuryBlock }): SimulationResource {
  return {
    object: 'anticipation_simulation',
    eligible_receivable_count: input.items.length,
    gross_amount_cents: input.totals.grossCents,
    fee_amount_cents: input.totals.feeCents,
    net_amount_cents: input.totals.netCents,
    fee_bps_per_month: input.pricing.feeBpsPerMonth,
    settlement_delay_days: input.pricing.settlementDelayDays,
    pricing_plan_id: input.pricing.pricingPlanId,
    items: input.items.map(simulationItemResource),
    exposure: input.exposure,
    treasury: input.treasury,
  };
}

export function anticipationResource(a: Anticipation): AnticipationResource {
  return {
    object: 'anticipation',
    id: a.id,
    status: a.status,
    seller_id: a.sellerId,
    gross_amount_cents: a.grossCents,
    fee_amount_cents: a.feeCents,
    net_amount_cents: a.netCents,
    fee_bps_per_month: a.feeBpsPerMonth,
    settlement_delay_days: a.settlementDelayDays,
    pricing_plan_id: a.pricingPlanId,
    receivable_ids: a.items.map((i) => i.receivableId),
    items: a.items.map(anticipationItemResource),
    created_at: a.createdAt.toISOString(),
  };
}
