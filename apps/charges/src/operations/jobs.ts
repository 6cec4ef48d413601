// The jobs of contract §5 that charges owns, and the background recovery. Each works through its rows in
// bounded batches (passing those it cannot settle now), calls the provider between transactions (never
// inside one), and saves each outcome with a compare-and-set on the status it read, so a job that
// overlaps a request or another replica changes nothing twice.
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { Db, Tx } from '@pgw/platform-db';
import type { ChargeTrigger } from '../domain/charge';
import { authorizedBefore, chargesWithUnknownOutcome, findChargeById, pixExpiredBefore, type ChargePatch, type ChargeRow } from '../data/charge.repository';
import { inFlightCents, processingRefunds, type RefundRow } from '../data/refund.repository';
import { cents } from '../data/rows';
import type { Announcer } from './announce';
import { lookUpProvider, requestProvider, settleIntent } from './charge-outcome';
import { acquirerFor } from './acquirer-for';
import type { ChargesDeps } from './deps';
import { moveCharge } from './move-charge';
import { refundOutcomeOf, requestRefund, settleRefund } from './refund-outcome';

export const JOB_NAMES = ['authorization-expiry', 'pix-expiry', 'refund-reconciliation', 'pix-payments', 'boleto-exchange'] as const;
export type JobName = (typeof JOB_NAMES)[number];

/** An authorization not captured within this many days is canceled (contract §4). */
export const AUTHORIZATION_DAYS_MAX = 7;
const LEASE_MS = 5 * 60_000;
const DAY_MS = 86_400_000;

const announcer = (db: Db): Announcer => ({ db, requestId: null });

/**
 * The instant a job runs "as of": now when the date is today, else the end of that day (a past date
 * processes what was due by then; a future one, what will be due by then).
 */
export function asOfInstant(asOfDate: string, today: string, now: Date): Date {
  if (asOfDate === today) return now;
  return new Date(`${asOfDate}T23:59:59.999Z`);
}

/** Takes the job's lease; false when another run (here or on another replica) holds it. */
async function takeLease(db: Db, name: string, holder: string): Promise<boolean> {
  return db.tx(async (trx) => {
    const result = await trx.raw(
      `insert into job_leases (name, holder, expires_at) values (?, ?, now() + (? * interval '1 millisecond'))
       on conflict (name) do update set holder = excluded.holder, expires_at = excluded.expires_at
       where job_leases.expires_at < now() or job_leases.holder = excluded.holder
       returning holder`,
      [name, holder, LEASE_MS],
    );
    return (result.rows as unknown[]).length > 0;
  });
}

async function releaseLease(db: Db, name: string, holder: string): Promise<void> {
  await db.tx((trx) => trx('job_leases').where({ name, holder }).delete());
}

/**
 * Every row a job's query finds, a batch at a time (CHARGES_BATCH_SIZE_MAX), each batch after the last row
 * of the one before. A row the job cannot settle now (the provider has no answer for it) is passed, not
 * read again: a run reaches the rows behind any number of them, and the next run tries them again.
 */
async function* batches<T extends { id: string }>(deps: ChargesDeps, page: (q: Knex | Tx, after: string | null, limit: number) => Promise<T[]>): AsyncGenerator<T> {
  const limit = deps.config.batchSizeMax;
  let after: string | null = null;
  for (;;) {
    const cursor: string | null = after;
    const rows: T[] = await deps.db.read((q) => page(q, cursor, limit));
    yield* rows;
    const last: T | undefined = rows.at(-1);
    if (rows.length < limit || last === undefined) return;
    after = last.id;
  }
}

/** Runs `work` under the job's lease; a run that finds the lease taken does nothing and reports 0. */
export async function withLease(db: Db, name: string, work: () => Promise<number>): Promise<number> {
  const holder = randomUUID();
  if (!(await takeLease(db, name, holder))) return 0;
  try {
    return await work();
  } finally {
    await releaseLease(db, name, holder);
  }
}

/** An intent whose provider answer is unknown: look it up by reference, or send it again if it never arrived. */
export async function recoverCharge(deps: ChargesDeps, charge: ChargeRow): Promise<boolean> {
  const found = await lookUpProvider(deps, charge);
  // Not found: the request never reached the provider, so sending it again with the same reference is
  // safe (and the provider's idempotency makes a duplicate harmless anyway). No security code: it was
  // never stored.
  const outcome = found ?? (await requestProvider(deps, charge));
  // Recovery does not fail a charge because the provider is down now: it tries again next round.
  if (outcome.kind === 'unknown' || outcome.kind === 'unreachable') return false;
  await deps.db.tx((trx) => settleIntent(deps, trx, charge.id, outcome, announcer(deps.db), null));
  return true;
}

export async function recoverUnknownOutcomes(deps: ChargesDeps, minAgeMs: number): Promise<number> {
  const before = new Date(deps.clock.now().getTime() - minAgeMs);
  let settled = 0;
  for await (const charge of batches(deps, (q, after, limit) => chargesWithUnknownOutcome(q, before, after, limit))) if (await recoverCharge(deps, charge)) settled++;
  return settled;
}

/** A refund whose answer was lost: its outcome by reference, or the same refund sent again if it never arrived. */
export async function reconcileRefund(deps: ChargesDeps, refund: RefundRow): Promise<boolean> {
  const charge = await deps.db.read((q) => findChargeById(q, refund.charge_id));
  if (charge === undefined) throw new Error(`refund ${refund.id} without its charge`);
  if (charge.acquirer_transaction_id === null) throw new Error(`refund ${refund.id} of a charge without a transaction`);
  const acquirer = await acquirerFor(deps, charge);
  // The settled sum is given only when this refund is the charge's one in flight: then an acquirer that
  // keeps refunds as a sum on the sale (Cielo) can tell whether this one was applied.
  const inFlight = await deps.db.tx((trx) => inFlightCents(trx, charge.id));
  const amountCents = cents(refund.amount_cents);
  const lookup = await acquirer.getRefund(refund.id, {
    transactionId: charge.acquirer_transaction_id,
    chargeReference: charge.id,
    ...(inFlight === amountCents ? { amountCents, settledRefundedCents: cents(charge.refunded_cents) } : {}),
  });
  // Not found: the refund never reached the acquirer; sending it again with the same reference is safe.
  const outcome = !lookup.ok && lookup.kind === 'not_found' ? await requestRefund(deps, charge, refund) : refundOutcomeOf(lookup);
  if (outcome.kind === 'unknown' || outcome.kind === 'unreachable') return false;
  const final = outcome;
  await deps.db.tx((trx) => settleRefund(deps, trx, refund.id, final, announcer(deps.db), null));
  return true;
}

export async function reconcileRefunds(deps: ChargesDeps, minAgeMs: number): Promise<number> {
  const before = new Date(deps.clock.now().getTime() - minAgeMs);
  let settled = 0;
  for await (const refund of batches(deps, (q, after, limit) => processingRefunds(q, before, after, limit))) if (await reconcileRefund(deps, refund)) settled++;
  return settled;
}

/** Job authorization-expiry: authorized charges older than 7 days are voided at the acquirer and canceled. */
export async function expireAuthorizations(deps: ChargesDeps, asOf: Date): Promise<number> {
  const cutoff = new Date(asOf.getTime() - AUTHORIZATION_DAYS_MAX * DAY_MS);
  let processed = 0;
  for await (const charge of batches(deps, (q, after, limit) => authorizedBefore(q, cutoff, after, limit))) {
    if (charge.acquirer_transaction_id === null) throw new Error(`authorized charge ${charge.id} without a transaction`);
    const acquirer = await acquirerFor(deps, charge);
    const canceled = await acquirer.cancel({ transactionId: charge.acquirer_transaction_id });
    let trigger: ChargeTrigger | null = null;
    let patch: ChargePatch = {};
    if (canceled.ok && canceled.value.status === 'canceled') {
      trigger = 'authorization_expired';
      patch = { canceled_at: deps.clock.now() };
    } else if ((canceled.ok && canceled.value.status === 'captured') || (!canceled.ok && canceled.kind === 'rejected' && canceled.code === 'not_cancelable')) {
      // The acquirer will not void it because it was captured after all (a capture whose answer was
      // lost): the charge is paid, not canceled.
      const auth = await acquirer.getAuthorization(charge.id);
      if (auth.ok && auth.value.status === 'captured') {
        trigger = 'capture';
        patch = { paid_at: auth.value.capturedAt === null ? deps.clock.now() : new Date(auth.value.capturedAt) };
      }
    }
    if (trigger === null) continue; // unreachable or undecided now: the next run tries again
    const move = { trigger, patch };
    const { moved } = await deps.db.tx((trx) => moveCharge(trx, charge, move.trigger, move.patch, deps.clock.now(), announcer(deps.db)));
    if (moved) processed++;
  }
  return processed;
}

/** Job pix-expiry: pending Pix charges past their expiry are ended at the PSP and canceled. */
export async function expirePixCharges(deps: ChargesDeps, asOf: Date): Promise<number> {
  let processed = 0;
  for await (const charge of batches(deps, (q, after, limit) => pixExpiredBefore(q, asOf, after, limit))) {
    const acquirer = await acquirerFor(deps, charge);
    const expired = await acquirer.expirePix(charge.id);
    let trigger: ChargeTrigger | null = null;
    let patch: ChargePatch = {};
    if (expired.ok && expired.value.status === 'expired') {
      trigger = 'pix_expired';
      patch = { canceled_at: deps.clock.now() };
    } else if ((expired.ok && expired.value.status === 'paid') || (!expired.ok && expired.kind === 'rejected' && expired.code === 'pix_not_expirable')) {
      // Paid just before it expired: the PSP confirms the payment instead.
      const pix = await acquirer.getPixCharge(charge.id);
      if (pix.ok && pix.value.status === 'paid') {
        trigger = 'payment_confirmed';
        patch = { paid_at: pix.value.paidAt === null ? deps.clock.now() : new Date(pix.value.paidAt) };
      }
    }
    if (trigger === null) continue;
    const move = { trigger, patch };
    const { moved } = await deps.db.tx((trx) => moveCharge(trx, charge, move.trigger, move.patch, deps.clock.now(), announcer(deps.db)));
    if (moved) processed++;
  }
  return processed;
}

/**
 * Job refund-reconciliation: refunds whose outcome is unknown, and charge intents whose provider answer
 * is unknown, older than the acquirer's deadline (so no request still waiting for its answer is raced).
 */
export async function reconcile(deps: ChargesDeps): Promise<number> {
  const refunds = await reconcileRefunds(deps, deps.config.jobMinAgeMs);
  const charges = await recoverUnknownOutcomes(deps, deps.config.jobMinAgeMs);
  return refunds + charges;
}
