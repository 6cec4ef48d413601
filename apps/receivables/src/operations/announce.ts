import type { Receivable } from '../data/receivables.repository';
import type { Settlement } from '../data/settlements.repository';
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
export function announceReceivable(work: Work, r: Receivable, previousStatus: string | null, reason: ReceivableChangeReason): void {
  work.emit('receivables.receivable-changed.v1', r.tenantId, r.livemode, r.sellerId, {
    receivable: {
      receivable_id: r.id,
      seller_id: r.sellerId,
      charge_id: r.chargeId,
      payment_method: r.paymentMethod,
      installment: r.installment,
      installments: r.installments,
      gross_amount_cents: r.grossCents,
      fee_amount_cents: r.feeCents,
      net_amount_cents: r.netCents,
      mdr_bps: r.mdrBps,
      debited_gross_cents: r.debitedGrossCents,
      due_date: r.dueDate,
      original_due_date: r.originalDueDate,
      status: r.status,
      anticipation_id: r.anticipationId,
      settlement_id: r.settlementId,
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
      seller_id: s.sellerId,
      status: s.status,
      amount_cents: s.amountCents,
      receivables_net_cents: s.receivablesNetCents,
      debt_cents: s.debtCents,
      receivable_count: s.receivableCount,
      settlement_date: s.settlementDate,
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
