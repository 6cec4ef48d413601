import { newEnvelope, type ChargeSnapshot, type SellerChanged } from '@pgw/contracts';

/** The integration specs' seller: approved, 1.99 %/month, 30 days to settle, 2.99 % MDR on credit. */
export function approvedSeller(tenantId: string, sellerId: string): SellerChanged {
  return {
    envelope: newEnvelope('gateway.seller-changed.v1', {
      producer: 'gateway',
      tenantId,
      livemode: null,
    }),
    seller_id: sellerId,
    tenant_id: tenantId,
    name: 'Loja',
    kyc_status: 'approved',
    anticipation_limit_cents: 0,
    fee_bps_per_month: 199,
    settlement_delay_days: 30,
    mdr_bps: { credit_card: 299 },
    pricing_plan_id: null,
    version: 1,
  };
}

/** A credit card charge captured at `paidAt` (Unix ms), as charges' events carry it. */
export function paidCardCharge(
  chargeId: string,
  sellerId: string,
  amountCents: number,
  installments: number,
  paidAt: number,
): ChargeSnapshot {
  return {
    charge_id: chargeId,
    seller_id: sellerId,
    status: 'paid',
    amount_cents: amountCents,
    currency: 'BRL',
    payment_method: 'credit_card',
    capture_method: 'automatic',
    installments,
    captured: true,
    paid_at: paidAt,
    refunded_cents: 0,
    chargeback_cents: 0,
    split: [],
    created_at: paidAt,
    updated_at: paidAt,
  };
}
