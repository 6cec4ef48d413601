// The API resources of contract §4a, built from rows. Routes and events (resource_json) share them.
import type { Static } from '@sinclair/typebox';
import { receivableFields, type Receivable } from './data/receivables.repository';
import { settlementFields, type Settlement } from './data/settlements.repository';
import type { ReceivableItem, SettlementItem } from './routes/schemas';

/**
 * A row as the API shows it: `object`, its id, its `fields` (under their column names), and when it was
 * made and last changed.
 */
function resourceOf<O extends string, F extends object>(
  object: O,
  row: { id: string; createdAt: Date; updatedAt: Date },
  fields: F,
) {
  return {
    object,
    id: row.id,
    ...fields,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** A receivable as the API shows it: its response schema's type. */
export type ReceivableResource = Static<typeof ReceivableItem>;

export function receivableResource(r: Receivable): ReceivableResource {
  return resourceOf('receivable', r, receivableFields(r));
}

/** A settlement as the API shows it: its response schema's type. */
export type SettlementResource = Static<typeof SettlementItem>;

export function settlementResource(s: Settlement): SettlementResource {
  const paidAt = s.paidAt === null ? null : s.paidAt.toISOString();
  return resourceOf('settlement', s, { ...settlementFields(s), paid_at: paidAt });
}
