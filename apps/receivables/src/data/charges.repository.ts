import type { Knex } from 'knex';
import type { Tx } from '@pgw/platform-db';
import { sendSalesNow } from './sales-at-commit';

type Row = Record<string, unknown>;

export type ChargeState = 'awaiting_pricing' | 'scheduled' | 'unassigned';

export interface Charge {
  chargeId: string;
  tenantId: string;
  livemode: boolean;
  sellerId: string | null;
  paymentMethod: string;
  amountCents: number;
  installments: number;
  paidAt: Date;
  split: Array<{ recipientSellerId: string; amountCents: number }>;
  state: ChargeState;
}

function toCharge(row: Row): Charge {
  return {
    chargeId: row.charge_id as string,
    tenantId: row.tenant_id as string,
    livemode: row.livemode === true,
    sellerId: row.seller_id as string | null,
    paymentMethod: row.payment_method as string,
    amountCents: row.amount_cents as number,
    installments: row.installments as number,
    paidAt: row.paid_at as Date,
    split: row.split as Array<{ recipientSellerId: string; amountCents: number }>,
    state: row.state as ChargeState,
  };
}

/**
 * The insert that records paid charges the first time any of their events shows them (later events change
 * nothing here); it returns the id of each charge it inserted.
 */
export function insertChargesIfNewSql(
  trx: Knex | Tx,
  charges: readonly Charge[],
  now: Date,
): Knex.Sql {
  return trx('charges')
    .insert(
      charges.map((charge) => ({
        charge_id: charge.chargeId,
        tenant_id: charge.tenantId,
        livemode: charge.livemode,
        seller_id: charge.sellerId,
        payment_method: charge.paymentMethod,
        amount_cents: charge.amountCents,
        installments: charge.installments,
        paid_at: charge.paidAt,
        split: JSON.stringify(charge.split),
        state: charge.state,
        created_at: now,
        updated_at: now,
      })),
    )
    .onConflict('charge_id')
    .ignore()
    .returning('charge_id')
    .toSQL();
}

export async function lockCharge(trx: Tx, chargeId: string): Promise<Charge | undefined> {
  await sendSalesNow(trx);
  const row = (await trx('charges').where({ charge_id: chargeId }).forUpdate().first()) as
    Row | undefined;
  return row === undefined ? undefined : toCharge(row);
}

/** The update that marks a charge scheduled at its pricing (scheduleCharge sends it with the receivables' insert). */
export function markScheduled(
  trx: Tx,
  chargeId: string,
  pricing: { pricingPlanId: string | null; mdrBps: number; settlementDelayDays: number },
  now: Date,
): Knex.Sql {
  return trx('charges')
    .where({ charge_id: chargeId })
    .update({
      state: 'scheduled',
      pricing_plan_id: pricing.pricingPlanId,
      mdr_bps: pricing.mdrBps,
      settlement_delay_days: pricing.settlementDelayDays,
      updated_at: now,
    })
    .toSQL();
}

export async function awaitingCharges(trx: Tx, tenantId: string, limit: number): Promise<string[]> {
  const rows = (await trx('charges')
    .where({ tenant_id: tenantId, state: 'awaiting_pricing' })
    .orderBy('paid_at')
    .limit(limit)
    .select('charge_id')) as Row[];
  return rows.map((r) => r.charge_id as string);
}

export type AdjustmentKind = 'refund' | 'chargeback_opened' | 'chargeback_won' | 'chargeback_lost';

export interface Adjustment {
  adjustmentId: string;
  chargeId: string;
  kind: AdjustmentKind;
  sourceId: string;
  amountCents: number;
}

export async function insertAdjustmentIfNew(
  trx: Tx,
  adjustment: Adjustment & { tenantId: string; livemode: boolean; occurredAt: Date },
): Promise<boolean> {
  const inserted = await trx('adjustments')
    .insert({
      adjustment_id: adjustment.adjustmentId,
      tenant_id: adjustment.tenantId,
      livemode: adjustment.livemode,
      charge_id: adjustment.chargeId,
      kind: adjustment.kind,
      source_id: adjustment.sourceId,
      amount_cents: adjustment.amountCents,
      occurred_at: adjustment.occurredAt,
    })
    .onConflict('adjustment_id')
    .ignore()
    .returning('adjustment_id');
  return inserted.length > 0;
}

export async function unappliedAdjustments(trx: Tx, chargeId: string): Promise<Adjustment[]> {
  const rows = (await trx('adjustments')
    .where({ charge_id: chargeId })
    .whereNull('applied_at')
    .orderBy('seq')) as Row[];
  return rows.map((row) => ({
    adjustmentId: row.adjustment_id as string,
    chargeId: row.charge_id as string,
    kind: row.kind as AdjustmentKind,
    sourceId: row.source_id as string,
    amountCents: row.amount_cents as number,
  }));
}

export async function isApplied(trx: Tx, adjustmentId: string): Promise<boolean> {
  const row = (await trx('adjustments')
    .where({ adjustment_id: adjustmentId })
    .whereNotNull('applied_at')
    .first()) as Row | undefined;
  return row !== undefined;
}

export async function markApplied(trx: Tx, adjustmentId: string, now: Date): Promise<void> {
  await trx('adjustments').where({ adjustment_id: adjustmentId }).update({ applied_at: now });
}

export interface Debit {
  receivableId: string;
  sellerId: string;
  grossCents: number;
  feeCents: number;
  netCents: number;
}

export async function insertDebits(
  trx: Tx,
  rows: Array<
    Debit & {
      tenantId: string;
      livemode: boolean;
      chargeId: string;
      adjustmentId: string;
      createdAt: Date;
    }
  >,
): Promise<void> {
  if (rows.length === 0) return;
  await trx('debits').insert(
    rows.map((d) => ({
      tenant_id: d.tenantId,
      livemode: d.livemode,
      seller_id: d.sellerId,
      charge_id: d.chargeId,
      receivable_id: d.receivableId,
      adjustment_id: d.adjustmentId,
      gross_cents: d.grossCents,
      fee_cents: d.feeCents,
      net_cents: d.netCents,
      created_at: d.createdAt,
    })),
  );
}

export async function debitsOf(trx: Tx, adjustmentId: string): Promise<Debit[]> {
  const rows = (await trx('debits').where({ adjustment_id: adjustmentId }).orderBy('seq')) as Row[];
  return rows.map((row) => ({
    receivableId: row.receivable_id as string,
    sellerId: row.seller_id as string,
    grossCents: row.gross_cents as number,
    feeCents: row.fee_cents as number,
    netCents: row.net_cents as number,
  }));
}
