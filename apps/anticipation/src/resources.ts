// The API resources (api-v1 "Anticipation simulation", contract §4a "Anticipation"), their response
// schemas, and the builders that routes and the event's resource_json share. Response schemas are also
// allowlists: a field not named here never leaves the service.
import { Type, type Static } from '@sinclair/typebox';
import { Nullable, RequestIdSchema } from '@pgw/platform-http';
import {
  anticipationFields,
  pricedFields,
  type Anticipation,
} from './data/anticipations.repository';
import type { AnticipationPricing } from '@pgw/anticipation-domain/pricing';
import type {
  ExposureBlock,
  QuoteItem,
  Totals,
  TreasuryBlock,
} from '@pgw/anticipation-domain/quote';

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
const AnticipationItemLineSchema = Type.Object(
  { receivable_id: Type.String({ pattern: '^recv_[A-Za-z0-9]+$' }), ...itemFields },
  closed,
);

const ExposureSchema = Type.Object(
  {
    outstanding_cents: Cents,
    projected_cents: Cents,
    limit_cents: Cents,
    available_cents: Cents,
    within_limit: Type.Boolean(),
  },
  closed,
);
const TreasurySchema = Type.Object(
  { available_cash_cents: Cents, requested_cash_out_cents: Cents, within_limit: Type.Boolean() },
  closed,
);

/** A price: the totals and the terms that made them (pricedFields). */
const priced = {
  gross_amount_cents: Cents,
  fee_amount_cents: Cents,
  net_amount_cents: Cents,
  fee_bps_per_month: Cents,
  settlement_delay_days: Cents,
  pricing_plan_id: Nullable(Type.String()),
};

export const SimulationBody = Type.Object(
  {
    object: Type.Literal('anticipation_simulation'),
    eligible_receivable_count: Cents,
    ...priced,
    items: Type.Array(SimulationItemSchema),
    exposure: ExposureSchema,
    treasury: TreasurySchema,
    request_id: RequestIdSchema,
  },
  closed,
);

const anticipationProperties = {
  object: Type.Literal('anticipation'),
  id: Type.String({ pattern: '^ant_[A-Za-z0-9]+$' }),
  status: Type.Literal('succeeded'),
  seller_id: Type.String(),
  ...priced,
  receivable_ids: Type.Array(Type.String({ pattern: '^recv_[A-Za-z0-9]+$' })),
  items: Type.Array(AnticipationItemLineSchema),
  created_at: Type.String({ format: 'date-time' }),
};

export const AnticipationItemSchema = Type.Object(anticipationProperties, closed);
export const AnticipationBody = Type.Object(
  { ...anticipationProperties, request_id: RequestIdSchema },
  closed,
);

export type SimulationItemResource = Static<typeof SimulationItemSchema>;
export type AnticipationItemResource = Static<typeof AnticipationItemLineSchema>;
export type SimulationResource = Omit<Static<typeof SimulationBody>, 'request_id'>;
export type AnticipationResource = Static<typeof AnticipationItemSchema>;

export function simulationItemResource(item: QuoteItem): SimulationItemResource {
  return {
    days_anticipated: item.daysAnticipated,
    gross_amount_cents: item.grossCents,
    fee_amount_cents: item.feeCents,
    net_amount_cents: item.netCents,
  };
}

export function anticipationItemResource(item: QuoteItem): AnticipationItemResource {
  return { receivable_id: item.receivableId, ...simulationItemResource(item) };
}

export function simulationResource(input: {
  items: QuoteItem[];
  totals: Totals;
  pricing: AnticipationPricing;
  exposure: ExposureBlock;
  treasury: TreasuryBlock;
}): SimulationResource {
  return {
    object: 'anticipation_simulation',
    eligible_receivable_count: input.items.length,
    ...pricedFields(input.totals, input.pricing),
    items: input.items.map(simulationItemResource),
    exposure: input.exposure,
    treasury: input.treasury,
  };
}

export function anticipationResource(a: Anticipation): AnticipationResource {
  return {
    object: 'anticipation',
    id: a.id,
    ...anticipationFields(a),
    receivable_ids: a.items.map((i) => i.receivableId),
    items: a.items.map(anticipationItemResource),
    created_at: a.createdAt.toISOString(),
  };
}
