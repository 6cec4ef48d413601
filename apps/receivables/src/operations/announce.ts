import { receivableFields, type Receivable } from '../data/receivables.repository';
import { settlementFields, type Settlement } from '../data/settlements.repository';
import { settlementResource } from '../resources';
import type { Work } from './context';

export type ReceivableChangeReason =
  | 'created'
  | 'released'
  | 'refunded'
  | 'charged_back'
  | 'chargeback_reversed'
  | 'settlement_reserved'
  | 'paid_out'
  | 'settlement_failed'
  | 'anticipated';

/** The receivable's whole state after the change, for the anticipation service's copy and others. */
export function announceReceivable(
  work: Work,
  r: Receivable,
  previousStatus: string | null,
  reason: ReceivableChangeReason,
): void {
  work.emit('receivables.receivable-changed.v1', r.tenantId, r.livemode, r.sellerId, {
    receivable: {
      receivable_id: r.id,
      ...receivableFields(r),
      mdr_bps: r.mdrBps,
      debited_gross_cents: r.debitedGrossCents,
      created_at: r.createdAt.getTime(),
      updated_at: r.updatedAt.getTime(),
      version: r.version,
    },
    previous_status: previousStatus,
    reason,
  });
}

export function announceSettlement(work: Work, s: Settlement, previousStatus: string | null): void {
  work.emit('receivables.settlement-changed.v1', s.tenantId, s.livemode, s.sellerId, {
    settlement: {
      settlement_id: s.id,
      ...settlementFields(s),
      receivables_net_cents: s.receivablesNetCents,
      debt_cents: s.debtCents,
      paid_at: s.paidAt === null ? null : s.paidAt.getTime(),
      created_at: s.createdAt.getTime(),
      updated_at: s.updatedAt.getTime(),
      version: s.version,
    },
    previous_status: previousStatus,
    resource_json: JSON.stringify(settlementResource(s)),
  });
}

/** The receivable after a change at `now`: one version more. */
export function changed(r: Receivable, now: Date, change: Partial<Receivable>): Receivable {
  return { ...r, ...change, version: r.version + 1, updatedAt: now };
}
