// The API resources of contract §4a, built from rows. Routes and events (resource_json) share them.
import type { Receivable } from './data/receivables.repository';
import type { Settlement } from './data/settlements.repository';

export interface ReceivableResource {
  object: 'receivable';
  id: string;
  status: string;
  charge_id: string;
  seller_id: string;
  payment_method: string;
  installment: number;
  installments: number;
  gross_amount_cents: number;
  fee_amount_cents: number;
  net_amount_cents: number;
  due_date: string;
  original_due_date: string;
  anticipation_id: string | null;
  settlement_id: string | null;
  created_at: string;
  updated_at: string;
}

export function receivableResource(r: Receivable): ReceivableResource {
  return {
    object: 'receivable',
    id: r.id,
    status: r.status,
    charge_id: r.chargeId,
    seller_id: r.sellerId,
    payment_method: r.paymentMethod,
    installment: r.installment,
    installments: r.installments,
    gross_amount_cents: r.grossCents,
    fee_amount_cents: r.feeCents,
    net_amount_cents: r.netCents,
    due_date: r.dueDate,
    original_due_date: r.originalDueDate,
    anticipation_id: r.anticipationId,
    settlement_id: r.settlementId,
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
  };
}

export interface SettlementResource {
  object: 'settlement';
  id: string;
  status: string;
  seller_id: string;
  amount_cents: number;
  receivable_count: number;
  settlement_date: string;
  paid_at: string | null;
  created_at: string;
  updated_at: string;
}

export function settlementResource(s: Settlement): SettlementResource {
  return {
    object: 'settlement',
    id: s.id,
    status: s.status,
    seller_id: s.sellerId,
    amount_cents: s.amountCents,
    receivable_count: s.receivableCount,
    settlement_date: s.settlementDate,
    paid_at: s.paidAt === null ? null : s.paidAt.toISOString(),
    created_at: s.createdAt.toISOString(),
    updated_at: s.updatedAt.toISOString(),
  };
}
