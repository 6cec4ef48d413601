// What receivables does with the charges service's events: schedule a paid charge, and take back what
// refunds and chargebacks take (receivable-states.md). Every function runs inside the consumer's
// transaction (Work) and changes a charge only with its row locked.
import { assert, toDateString, newId, mdrFeeCents } from '@pgw/domain';
import type { Tx } from '@pgw/platform-db';
import type { Knex } from 'knex';
import type { ChargeSnapshot } from '@pgw/contracts';
import {
  debitsOf,
  insertAdjustmentIfNew,
  insertChargesIfNewSql,
  insertDebits,
  isApplied,
  lockCharge,
  markApplied,
  markScheduled,
  unappliedAdjustments,
  type Adjustment,
  type AdjustmentKind,
  type Charge,
} from '../data/charges.repository';
import {
  findPricingTerms,
  lockTenantPricing,
  sellerKey,
  writeThenFindPricingTerms,
  type PricingTerms,
} from '../data/directory.repository';
import {
  chargeReceivables,
  insertReceivablesSql,
  saveReceivable,
  type Receivable,
} from '../data/receivables.repository';
import { isPaymentMethod, resolvePricing } from '@pgw/receivables-domain/pricing';
import { buildSchedule } from '@pgw/receivables-domain/schedule';
import { allocateProportionally, liveGross, planTake } from '@pgw/receivables-domain/take';
import { announceReceivable, changed } from './announce';
import type { Work } from './context';
import { MoneyOperation } from './money-operation';

export interface Environment {
  tenantId: string;
  livemode: boolean;
}

/** A charge this transaction just inserted (nothing applied to it yet), and its seller's pricing terms then. */
export interface InsertedCharge {
  charge: Charge;
  terms: PricingTerms | undefined;
}

/** A paid charge event's snapshot, with the tenant and environment of its envelope. */
export interface PaidSnapshot {
  env: Environment;
  charge: ChargeSnapshot;
}

/** The charge as a snapshot shows it paid, awaiting its pricing (or unassigned); null when it is not paid. */
function paidCharge({ env, charge: snapshot }: PaidSnapshot): Charge | null {
  if (snapshot.paid_at === null) return null;
  return {
    chargeId: snapshot.charge_id,
    tenantId: env.tenantId,
    livemode: env.livemode,
    sellerId: snapshot.seller_id,
    paymentMethod: snapshot.payment_method,
    amountCents: snapshot.amount_cents,
    installments: snapshot.installments,
    paidAt: new Date(snapshot.paid_at),
    split: snapshot.split.map((s) => ({
      recipientSellerId: s.recipient_seller_id,
      amountCents: s.amount_cents,
    })),
    // A charge with no seller has no one to pay: its money is not scheduled (it stays with the tenant).
    state: snapshot.seller_id === null ? 'unassigned' : 'awaiting_pricing',
  };
}

/**
 * Records each charge as it was paid, from the first of `snapshots` that shows it paid; a charge known already
 * changes nothing. One statement for them all, which also reads the pricing terms of each of their sellers.
 * Answers, by charge id, the charge when this call inserted it (a row this transaction holds) with its
 * seller's terms then, else null; a charge no snapshot shows paid is not in the map.
 */
export async function recordPaidCharges(
  trx: Knex | Tx,
  now: Date,
  snapshots: readonly PaidSnapshot[],
): Promise<Map<string, InsertedCharge | null>> {
  const charges = new Map<string, Charge>();
  for (const paid of snapshots) {
    const charge = paidCharge(paid);
    if (charge !== null && !charges.has(charge.chargeId)) charges.set(charge.chargeId, charge);
  }
  if (charges.size === 0) return new Map();
  const sellers = new Map<string, { tenantId: string; sellerId: string }>();
  for (const { tenantId, sellerId } of charges.values())
    if (sellerId !== null) sellers.set(sellerKey(tenantId, sellerId), { tenantId, sellerId });
  const { written, terms } = await writeThenFindPricingTerms(
    trx,
    insertChargesIfNewSql(trx, [...charges.values()], now),
    [...sellers.values()],
  );
  return new Map(
    [...charges.values()].map((charge) => [
      charge.chargeId,
      written.has(charge.chargeId)
        ? {
            charge,
            terms:
              charge.sellerId === null
                ? undefined
                : terms.get(sellerKey(charge.tenantId, charge.sellerId)),
          }
        : null,
    ]),
  );
}

export async function recordAdjustment(
  work: Work,
  env: Environment,
  chargeId: string,
  kind: AdjustmentKind,
  sourceId: string,
  amountCents: number,
  occurredAtMs: number,
): Promise<void> {
  const charge = await lockCharge(work.trx, chargeId);
  // Charge ids are unique across tenants: an event that places a known charge elsewhere is a producer bug.
  if (
    charge !== undefined &&
    (charge.tenantId !== env.tenantId || charge.livemode !== env.livemode)
  ) {
    throw new Error(
      `event for charge ${chargeId} names another tenant or environment than the charge`,
    );
  }
  const adjustmentId =
    kind === 'refund'
      ? `refund:${sourceId}`
      : `chargeback:${sourceId}:${kind.slice('chargeback_'.length)}`;
  await insertAdjustmentIfNew(work.trx, {
    adjustmentId,
    chargeId,
    kind,
    sourceId,
    amountCents,
    tenantId: env.tenantId,
    livemode: env.livemode,
    occurredAt: new Date(occurredAtMs),
  });
}

/**
 * Builds the schedule when the local directory can price the charge; else the charge waits for it.
 * `inserted` is the charge as this transaction just inserted it (recordPaidCharges): no need to lock it again,
 * nor to read the terms it was inserted with again.
 */
export async function scheduleCharge(
  work: Work,
  chargeId: string,
  inserted: InsertedCharge | null = null,
): Promise<Charge['state'] | 'unknown'> {
  const { trx } = work;
  const charge = inserted?.charge ?? (await lockCharge(trx, chargeId));
  if (charge === undefined) return 'unknown';
  if (charge.state !== 'awaiting_pricing' || charge.sellerId === null) return charge.state;
  const method = charge.paymentMethod;
  assert(isPaymentMethod(method), 'charge.payment-method-known', { charge_id: chargeId, method });
  const pricing = async (terms?: PricingTerms) =>
    resolvePricing({
      method,
      ...(terms ?? (await findPricingTerms(trx, charge.tenantId, charge.sellerId as string))),
    });
  let resolution = await pricing(inserted?.terms);
  if (!resolution.ok) {
    // The directory event that prices it may be committing now, its scan for waiting charges blind to this one
    // (not committed yet): it would wait until the tenant's next directory event. Both take the tenant's
    // pricing lock, so either this second read sees that event's rows, or its scan, after this commits, sees
    // this charge.
    await lockTenantPricing(trx, charge.tenantId);
    resolution = await pricing();
    if (!resolution.ok) return 'awaiting_pricing';
  }

  const drafts = buildSchedule(
    {
      chargeId,
      sellerId: charge.sellerId,
      paymentMethod: method,
      amountCents: charge.amountCents,
      installments: charge.installments,
      paidDate: toDateString(charge.paidAt),
      split: charge.split,
    },
    resolution.pricing,
  );
  const grossTotal = drafts.reduce((sum, d) => sum + d.grossCents, 0);
  assert(grossTotal === charge.amountCents, 'schedule.allocates-whole-amount', {
    charge_id: chargeId,
    allocated_cents: grossTotal,
    amount_cents: charge.amountCents,
  });

  // A sale only adds to its sellers' counters: no lock before (op.add), one upsert at finish.
  const op = new MoneyOperation(work, charge.tenantId, charge.livemode, 'charge.sale', {
    chargeId,
  });
  const receivables: Receivable[] = drafts.map((d) => ({
    id: newId('recv_'),
    tenantId: charge.tenantId,
    livemode: charge.livemode,
    chargeId,
    sellerId: d.sellerId,
    paymentMethod: method,
    installment: d.installment,
    installments: d.installments,
    grossCents: d.grossCents,
    feeCents: d.feeCents,
    netCents: d.netCents,
    mdrBps: d.mdrBps,
    debitedGrossCents: 0,
    dueDate: d.dueDate,
    originalDueDate: d.dueDate,
    status: d.availableAtOnce ? 'available' : 'pending',
    anticipationId: null,
    settlementId: null,
    version: 1,
    createdAt: work.now,
    updatedAt: work.now,
  }));
  for (const r of receivables) {
    op.add(r.sellerId, {
      ...(r.status === 'available'
        ? { receivablesAvailableCents: r.netCents }
        : { pendingCents: r.netCents }),
      feeDeltaCents: r.feeCents,
      grossDeltaCents: r.grossCents,
    });
    announceReceivable(work, r, null, 'created');
  }
  // The receivables, the charge's new state and the books in one statement.
  await op.finish([
    insertReceivablesSql(trx, receivables),
    markScheduled(trx, chargeId, resolution.pricing, work.now),
  ]);
  return 'scheduled';
}

/** Applies the charge's refunds and chargeback steps not applied yet, in the order they arrived. */
export async function applyAdjustments(work: Work, chargeId: string): Promise<number> {
  const charge = await lockCharge(work.trx, chargeId);
  if (charge === undefined || charge.state !== 'scheduled') return 0;
  const adjustments = await unappliedAdjustments(work.trx, chargeId);
  for (const adjustment of adjustments) {
    switch (adjustment.kind) {
      case 'refund':
        await take(work, charge, adjustment, 'refund');
        break;
      case 'chargeback_opened':
        // A chargeback already won (its events crossed) leaves nothing to debit.
        if (!(await isApplied(work.trx, `chargeback:${adjustment.sourceId}:won`)))
          await take(work, charge, adjustment, 'chargeback');
        break;
      case 'chargeback_won':
        await giveBack(work, charge, adjustment);
        break;
      case 'chargeback_lost':
        break; // the debit of the opening stays: nothing moves
    }
    await markApplied(work.trx, adjustment.adjustmentId, work.now);
  }
  return adjustments.length;
}

function bySeller(receivables: Receivable[]): Map<string, Receivable[]> {
  const out = new Map<string, Receivable[]>();
  for (const r of receivables) out.set(r.sellerId, [...(out.get(r.sellerId) ?? []), r]);
  return out;
}

/**
 * A refund or a chargeback takes its amount from the recipients of the charge in proportion to what is
 * still theirs, and from each recipient's receivables latest installment first (domain/take.ts).
 */
async function take(
  work: Work,
  charge: Charge,
  adjustment: Adjustment,
  mode: 'refund' | 'chargeback',
): Promise<void> {
  const receivables = await chargeReceivables(work.trx, charge);
  const groups = [...bySeller(receivables)];
  const parts = allocateProportionally(
    adjustment.amountCents,
    groups.map(([, rs]) => rs.reduce((sum, r) => sum + liveGross(r), 0)),
  );
  const op = new MoneyOperation(
    work,
    charge.tenantId,
    charge.livemode,
    mode === 'refund' ? 'refund.succeeded' : 'chargeback.opened',
    { chargeId: charge.chargeId },
  );
  await op.lock(groups.filter((_, i) => (parts[i] ?? 0) > 0).map(([sellerId]) => sellerId));
  const debits: Parameters<typeof insertDebits>[1] = [];
  const reason = mode === 'refund' ? 'refunded' : 'charged_back';
  for (const [index, [sellerId, rs]] of groups.entries()) {
    const part = parts[index] ?? 0;
    if (part === 0) continue;
    const byId = new Map(rs.map((r) => [r.id, r]));
    for (const step of planTake(
      mode,
      part,
      rs.map((r) => ({ ...r })),
    )) {
      const r = byId.get(step.id);
      assert(r !== undefined, 'take.planned-on-known-receivable', { receivable_id: step.id });
      if (step.kind === 'reduce') {
        const bucket = r.status === 'pending' ? 'pendingCents' : 'receivablesAvailableCents';
        op.change(sellerId, {
          [bucket]: step.netDeltaCents,
          feeDeltaCents: step.feeDeltaCents,
          grossDeltaCents: -step.takeCents,
        });
        const next = step.canceled
          ? changed(r, work.now, { status: 'canceled' })
          : changed(r, work.now, {
              grossCents: step.grossCents,
              feeCents: step.feeCents,
              netCents: step.netCents,
            });
        await saveReceivable(work.trx, next);
        announceReceivable(work, next, r.status, reason);
      } else {
        op.change(sellerId, {
          debtCents: step.netCents,
          feeDeltaCents: -step.feeCents,
          grossDeltaCents: -step.takeCents,
        });
        const next = changed(r, work.now, {
          debitedGrossCents: r.debitedGrossCents + step.takeCents,
        });
        await saveReceivable(work.trx, next);
        announceReceivable(work, next, r.status, reason);
        debits.push({
          tenantId: charge.tenantId,
          livemode: charge.livemode,
          sellerId,
          chargeId: charge.chargeId,
          receivableId: r.id,
          adjustmentId: adjustment.adjustmentId,
          grossCents: step.takeCents,
          feeCents: step.feeCents,
          netCents: step.netCents,
          createdAt: work.now,
        });
      }
    }
  }
  await insertDebits(work.trx, debits);
  await op.finish();
}

/** A chargeback won gives back, receivable by receivable, exactly the gross its opening debited. */
async function giveBack(work: Work, charge: Charge, won: Adjustment): Promise<void> {
  const openedId = `chargeback:${won.sourceId}:opened`;
  if (!(await isApplied(work.trx, openedId))) return; // nothing was debited (or it crossed with this event)
  const opened = await debitsOf(work.trx, openedId);
  const byId = new Map((await chargeReceivables(work.trx, charge)).map((r) => [r.id, r]));
  const op = new MoneyOperation(work, charge.tenantId, charge.livemode, 'chargeback.won', {
    chargeId: charge.chargeId,
  });
  await op.lock(opened.map((d) => d.sellerId));
  const debits: Parameters<typeof insertDebits>[1] = [];
  for (const debit of opened) {
    const r = byId.get(debit.receivableId);
    assert(r !== undefined, 'debit.on-known-receivable', { receivable_id: debit.receivableId });
    const live = liveGross(r);
    const feeCents = mdrFeeCents(live + debit.grossCents, r.mdrBps) - mdrFeeCents(live, r.mdrBps);
    const netCents = debit.grossCents - feeCents;
    op.change(r.sellerId, {
      debtCents: -netCents,
      feeDeltaCents: feeCents,
      grossDeltaCents: debit.grossCents,
    });
    const next = changed(r, work.now, {
      debitedGrossCents: r.debitedGrossCents - debit.grossCents,
    });
    await saveReceivable(work.trx, next);
    byId.set(next.id, next);
    announceReceivable(work, next, r.status, 'chargeback_reversed');
    debits.push({
      tenantId: charge.tenantId,
      livemode: charge.livemode,
      sellerId: r.sellerId,
      chargeId: charge.chargeId,
      receivableId: r.id,
      adjustmentId: won.adjustmentId,
      grossCents: -debit.grossCents,
      feeCents: -feeCents,
      netCents: -netCents,
      createdAt: work.now,
    });
  }
  await insertDebits(work.trx, debits);
  await op.finish();
}
