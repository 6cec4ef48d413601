// The jobs of contract §5 that receivables owns. Each seller's work commits in a transaction of its own
// (issue 16 item 6): one long transaction kept every balance row locked and, since relays publish only rows
// older than the oldest open transaction, stalled event delivery of every service for the job's length.
// Each unit holds the job's transaction-scoped advisory lock, so two runs (two replicas, a CronJob and an
// operator) never work at the same time; both are idempotent per date and resumable because they act on
// state, not on a log of runs: a receivable released or settled is no longer a candidate, and a run killed
// midway leaves what it committed done and the rest to the next run.
import { assert, newId } from '@pgw/domain';
import { lockJobInTransaction, type Db } from '@pgw/platform-db';
import type { Clock } from '@pgw/platform-service';
import { nettedDebt } from '@pgw/receivables-domain/books';
import {
  afterSeller,
  sellersToSettle,
  sellersWithDueReceivables,
  type SellerKey,
} from '../data/books.repository';
import {
  dueReceivables,
  freeAvailableReceivables,
  saveReceivable,
  settlementReceivables,
} from '../data/receivables.repository';
import {
  getSettlement,
  inFlightSettlements,
  insertSettlement,
  saveSettlement,
  type Settlement,
} from '../data/settlements.repository';
import { announceReceivable, announceSettlement, changed } from './announce';
import type { Bank, BankOutcome } from './bank';
import { Work } from './context';
import { MoneyOperation } from './money-operation';

export type JobName = 'receivables-release' | 'settlement-run';

const SELLERS_PER_ROUND = 500;
/** A bound on one run: far above any real day, low enough that a bug cannot spin forever. */
const ROUNDS_MAX = 10_000;

export interface JobContext {
  db: Db;
  clock: Clock;
  bank: Bank;
  requestId: string | null;
  /** Sellers read per round (SELLERS_PER_ROUND unless a test pages smaller). */
  sellersPerRound?: number;
}

export async function runJob(ctx: JobContext, job: JobName, asOfDate: string): Promise<number> {
  return job === 'receivables-release' ? release(ctx, asOfDate) : settle(ctx, asOfDate);
}

/** One unit of a job (a seller's work, a candidate list) in a transaction of its own, under the job's lock. */
async function unit<T>(ctx: JobContext, job: JobName, fn: (work: Work) => Promise<T>): Promise<T> {
  return ctx.db.tx(async (trx) => {
    await lockJobInTransaction(ctx.db, trx, job);
    const work = new Work(ctx.db, trx, ctx.clock, ctx.requestId);
    const result = await fn(work);
    await work.flush();
    return result;
  });
}

/** Moves pending receivables due on or before the date to available, a seller per commit. Returns how many moved. */
async function release(ctx: JobContext, asOfDate: string): Promise<number> {
  const job = 'receivables-release';
  let released = 0;
  for (let round = 0; ; round++) {
    assert(round < ROUNDS_MAX, 'receivables-release.rounds-bounded', { rounds_max: ROUNDS_MAX });
    const sellers = await unit(ctx, job, (work) =>
      sellersWithDueReceivables(work.trx, asOfDate, SELLERS_PER_ROUND),
    );
    if (sellers.length === 0) return released;
    for (const seller of sellers)
      released += await unit(ctx, job, (work) => releaseSeller(work, seller, asOfDate));
  }
}

async function releaseSeller(work: Work, key: SellerKey, asOfDate: string): Promise<number> {
  const op = new MoneyOperation(work, key.tenantId, key.livemode, 'receivable.released', {});
  await op.lock([key.sellerId]);
  const due = await dueReceivables(work.trx, key, asOfDate);
  for (const r of due) {
    const next = changed(r, work.now, { status: 'available' });
    await saveReceivable(work.trx, next);
    announceReceivable(work, next, r.status, 'released');
    op.change(key.sellerId, { pendingCents: -r.netCents, receivablesAvailableCents: r.netCents });
  }
  await op.finish();
  return due.length;
}

/**
 * Completes the payouts a bank left in flight, then pays each seller's available balance, a settlement per
 * commit. Returns the settlements created.
 */
async function settle(ctx: JobContext, asOfDate: string): Promise<number> {
  const job = 'settlement-run';
  const { bank } = ctx;
  const seen = new Set<string>();
  const inFlight = await unit(ctx, job, (work) => inFlightSettlements(work.trx, SELLERS_PER_ROUND));
  for (const candidate of inFlight) {
    if (candidate.status !== 'processing') continue;
    const outcome = await unit(ctx, job, async (work) => {
      // Read again under the lock: another run may have completed it since the list was taken.
      const settlement = await getSettlement(
        work.trx,
        {
          tenantId: candidate.tenantId,
          livemode: candidate.livemode,
          sellerId: candidate.sellerId,
        },
        candidate.id,
      );
      if (settlement?.status !== 'processing') return null;
      const answer = await bank.status(settlement);
      await complete(work, settlement, answer);
      return answer;
    });
    // A payout the bank refused is not tried again in the same run.
    if (outcome === 'failed')
      seen.add(`${candidate.tenantId}|${candidate.livemode}|${candidate.sellerId}`);
  }
  let created = 0;
  // Each list pages on from its last seller (keyset), so sellers this run leaves as they are (a payout the
  // bank refused) never hide the ones behind them, however many they are.
  const perRound = ctx.sellersPerRound ?? SELLERS_PER_ROUND;
  let afterToSettle: SellerKey | null = null;
  let afterFree: SellerKey | null = null;
  for (let round = 0; ; round++) {
    assert(round < ROUNDS_MAX, 'settlement-run.rounds-bounded', { rounds_max: ROUNDS_MAX });
    const [toSettle, free] = await unit(ctx, job, async (work) => [
      await sellersToSettle(work.trx, perRound, afterToSettle),
      await sellersWithFreeReceivables(work, perRound, afterFree),
    ]);
    if (toSettle.length === 0 && free.length === 0) return created;
    afterToSettle = toSettle.at(-1) ?? afterToSettle;
    afterFree = free.at(-1) ?? afterFree;
    for (const key of toSettle.concat(free)) {
      // At most one settlement per seller and run: a payout the bank refused waits for the next run.
      const id = `${key.tenantId}|${key.livemode}|${key.sellerId}`;
      if (seen.has(id)) continue;
      seen.add(id);
      if (await unit(ctx, job, (work) => settleSeller(work, bank, key, asOfDate))) created++;
    }
  }
}

// Receivables whose net is zero (a fee as large as the gross) move no money, yet still have to be closed.
async function sellersWithFreeReceivables(
  work: Work,
  limit: number,
  after: SellerKey | null,
): Promise<SellerKey[]> {
  const rows = (await afterSeller(work.trx('receivables').where({ status: 'available' }), after)
    .whereNull('settlement_id')
    .distinct('tenant_id', 'livemode', 'seller_id')
    .orderBy(['tenant_id', 'livemode', 'seller_id'])
    .limit(limit)) as Array<Record<string, unknown>>;
  return rows.map((r) => ({
    tenantId: r.tenant_id as string,
    livemode: r.livemode === true,
    sellerId: r.seller_id as string,
  }));
}

async function settleSeller(
  work: Work,
  bank: Bank,
  key: SellerKey,
  asOfDate: string,
): Promise<boolean> {
  const settlementId = newId('set_');
  const op = new MoneyOperation(work, key.tenantId, key.livemode, 'payout.reserved', {
    settlementId,
  });
  await op.lock([key.sellerId]);
  const counters = op.counters(key.sellerId);
  const receivables = await freeAvailableReceivables(work.trx, key);
  const receivablesNetCents = receivables.reduce((sum, r) => sum + r.netCents, 0);
  if (receivablesNetCents !== counters.receivablesAvailableCents) {
    assert(false, 'books.available-matches-receivables', {
      seller_id: key.sellerId,
      books_available_cents: counters.receivablesAvailableCents,
      receivables_net_cents: receivablesNetCents,
    });
  }
  // The payout nets the seller's debt against what is available (domain/books.ts).
  const debtCents = nettedDebt(counters);
  const amountCents = receivablesNetCents - debtCents;
  if (receivables.length === 0 && amountCents <= 0) return false;

  let settlement: Settlement = {
    id: settlementId,
    tenantId: key.tenantId,
    livemode: key.livemode,
    sellerId: key.sellerId,
    status: 'pending',
    amountCents,
    receivablesNetCents,
    debtCents,
    receivableCount: receivables.length,
    settlementDate: asOfDate,
    paidAt: null,
    version: 1,
    createdAt: work.now,
    updatedAt: work.now,
  };
  await insertSettlement(work.trx, settlement);
  announceSettlement(work, settlement, null);
  for (const r of receivables) {
    const next = changed(r, work.now, { settlementId });
    await saveReceivable(work.trx, next);
    announceReceivable(work, next, r.status, 'settlement_reserved');
  }
  op.change(key.sellerId, {
    receivablesAvailableCents: -receivablesNetCents,
    debtCents: -debtCents,
    reservedCents: amountCents,
  });
  await op.finish();

  const processing: Settlement = {
    ...settlement,
    status: 'processing',
    version: settlement.version + 1,
    updatedAt: work.now,
  };
  await saveSettlement(work.trx, processing);
  announceSettlement(work, processing, settlement.status);
  settlement = processing;
  // Nothing to transfer when the debt took it all: the receivables are paid by settling the debt.
  await complete(work, settlement, amountCents === 0 ? 'paid' : await bank.transfer(settlement));
  return true;
}

async function complete(work: Work, settlement: Settlement, outcome: BankOutcome): Promise<void> {
  if (outcome === 'processing') return;
  const paid = outcome === 'paid';
  const op = new MoneyOperation(
    work,
    settlement.tenantId,
    settlement.livemode,
    paid ? 'payout.paid' : 'payout.failed',
    { settlementId: settlement.id },
  );
  await op.lock([settlement.sellerId]);
  const receivables = await settlementReceivables(work.trx, settlement);
  for (const r of receivables) {
    const next = paid
      ? changed(r, work.now, { status: 'paid' })
      : changed(r, work.now, { settlementId: null });
    await saveReceivable(work.trx, next);
    announceReceivable(work, next, r.status, paid ? 'paid_out' : 'settlement_failed');
  }
  if (paid) {
    op.change(settlement.sellerId, {
      reservedCents: -settlement.amountCents,
      paidOutCents: settlement.amountCents,
    });
  } else {
    // The money never left: the receivables are available again and the debt is owed again.
    op.change(settlement.sellerId, {
      reservedCents: -settlement.amountCents,
      receivablesAvailableCents: settlement.receivablesNetCents,
      debtCents: settlement.debtCents,
    });
  }
  const next: Settlement = {
    ...settlement,
    status: paid ? 'paid' : 'failed',
    paidAt: paid ? work.now : null,
    version: settlement.version + 1,
    updatedAt: work.now,
  };
  await saveSettlement(work.trx, next);
  announceSettlement(work, next, settlement.status);
  await op.finish();
}
