// The jobs of contract §5 that charges owns, and the background recovery. Each works through its rows in
// bounded batches (passing those it cannot settle now), calls the provider between transactions (never
// inside one), and saves each outcome with a compare-and-set on the status it read, so a job that
// overlaps a request or another replica changes nothing twice.
import { assert } from '@pgw/domain';
import type { Knex } from 'knex';
import { withJobLease, type Db, type Tx } from '@pgw/platform-db';
import type { AcquirerRejectionCode, AcquirerResult } from '@pgw/acquirer';
import type { ChargeTrigger } from '@pgw/charges-domain/charge';
import {
  authorizedBefore,
  chargesWithUnknownOutcome,
  findChargeById,
  pixExpiredBefore,
  type ChargePatch,
  type ChargeRow,
} from '../data/charge.repository';
import type { JobPage } from '../data/page-after';
import { inFlightCents, processingRefunds, type RefundRow } from '../data/refund.repository';
import type { Announcer } from './announce';
import { lookUpProvider, requestProvider, settleIntent } from './charge-outcome';
import { acquirerFor } from './acquirer-for';
import type { ChargesDeps } from './deps';
import { moveCharge } from './move-charge';
import { refundOutcomeOf, requestRefund, settleRefund } from './refund-outcome';

export const JOB_NAMES = [
  'authorization-expiry',
  'pix-expiry',
  'refund-reconciliation',
  'pix-payments',
  'boleto-exchange',
] as const;
export type JobName = (typeof JOB_NAMES)[number];

/** An authorization not captured within this many days is canceled (contract §4). */
export const AUTHORIZATION_DAYS_MAX = 7;
// Renewed while a run goes on (withJobLease): this is how long a run that died keeps the next one out.
const LEASE_MS = 30_000;
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

/**
 * Every row a job's query finds, a batch at a time (CHARGES_BATCH_SIZE_MAX), each batch after the last row
 * of the one before. A row the job cannot settle now (the provider has no answer for it) is passed, not
 * read again: a run reaches the rows behind any number of them, and the next run tries them again.
 */
async function* batches<T extends { id: string }>(
  deps: ChargesDeps,
  page: (q: Knex | Tx, at: JobPage) => Promise<T[]>,
): AsyncGenerator<T> {
  const limit = deps.config.batchSizeMax;
  let after: string | null = null;
  for (;;) {
    const cursor: string | null = after;
    const rows: T[] = await deps.db.read((q) => page(q, { after: cursor, limit }));
    yield* rows;
    const last: T | undefined = rows.at(-1);
    if (rows.length < limit || last === undefined) return;
    after = last.id;
  }
}

/**
 * Runs `work` under the job's lease (the platform's job lock: the job calls the acquirer between transactions,
 * so it holds a lease row, not a connection); a run that finds the lease taken does nothing and reports 0.
 */
export async function withLease(
  db: Db,
  name: string,
  work: () => Promise<number>,
): Promise<number> {
  return (await withJobLease(db, name, work, { leaseMs: LEASE_MS })) ?? 0;
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

/**
 * Settles every row `unsettled` finds older than `minAgeMs`, as far as `settle` can now (false: the
 * provider has no answer yet). Counts the rows settled.
 */
async function settleEach<T extends { id: string }>(
  deps: ChargesDeps,
  minAgeMs: number,
  unsettled: (q: Knex | Tx, before: Date, at: JobPage) => Promise<T[]>,
  settle: (deps: ChargesDeps, row: T) => Promise<boolean>,
): Promise<number> {
  const before = new Date(deps.clock.now().getTime() - minAgeMs);
  let settled = 0;
  for await (const row of batches(deps, (q, page) => unsettled(q, before, page)))
    if (await settle(deps, row)) settled++;
  return settled;
}

export const recoverUnknownOutcomes = (deps: ChargesDeps, minAgeMs: number): Promise<number> =>
  settleEach(deps, minAgeMs, chargesWithUnknownOutcome, recoverCharge);

/** A refund whose answer was lost: its outcome by reference, or the same refund sent again if it never arrived. */
export async function reconcileRefund(deps: ChargesDeps, refund: RefundRow): Promise<boolean> {
  const charge = await deps.db.read((q) => findChargeById(q, refund.charge_id));
  assert(charge !== undefined, 'refund.has-its-charge', { refund_id: refund.id });
  const ids = { refund_id: refund.id, charge_id: charge.id };
  assert(charge.acquirer_transaction_id !== null, 'charge.refunded-card-has-transaction', ids);
  const acquirer = await acquirerFor(deps, charge);
  // The settled sum is given only when this refund is the charge's one in flight: then an acquirer that
  // keeps refunds as a sum on the sale (Cielo) can tell whether this one was applied.
  const inFlight = await deps.db.tx((trx) => inFlightCents(trx, charge.id));
  const amountCents = refund.amount_cents;
  const lookup = await acquirer.getRefund(refund.id, {
    transactionId: charge.acquirer_transaction_id,
    chargeReference: charge.id,
    ...(inFlight === amountCents
      ? { amountCents, settledRefundedCents: charge.refunded_cents }
      : {}),
  });
  // Not found: the refund never reached the acquirer; sending it again with the same reference is safe.
  const outcome =
    !lookup.ok && lookup.kind === 'not_found'
      ? await requestRefund(deps, charge, refund)
      : refundOutcomeOf(lookup);
  if (outcome.kind === 'unknown' || outcome.kind === 'unreachable') return false;
  const final = outcome;
  await deps.db.tx((trx) => settleRefund(deps, trx, refund.id, final, announcer(deps.db), null));
  return true;
}

export const reconcileRefunds = (deps: ChargesDeps, minAgeMs: number): Promise<number> =>
  settleEach(deps, minAgeMs, processingRefunds, reconcileRefund);

/** A move a job decided on for a charge; null when the provider's answer decides nothing now. */
type Move = { trigger: ChargeTrigger; patch: ChargePatch } | null;

/**
 * Moves every charge `page` finds as `decide` says (asking the provider, between transactions); a charge
 * it decides nothing for is left for the next run. Counts the charges moved.
 */
async function moveEach(
  deps: ChargesDeps,
  page: (q: Knex | Tx, at: JobPage) => Promise<ChargeRow[]>,
  decide: (charge: ChargeRow) => Promise<Move>,
): Promise<number> {
  let processed = 0;
  for await (const charge of batches(deps, page)) {
    const move = await decide(charge);
    if (move === null) continue; // unreachable or undecided now: the next run tries again
    const { moved } = await deps.db.tx((trx) =>
      moveCharge(trx, charge, move.trigger, move.patch, deps.clock.now(), announcer(deps.db)),
    );
    if (moved) processed++;
  }
  return processed;
}

/**
 * How a job ends a charge at its provider: `end` asks for it, which answers status `ended` when it did. A
 * provider that answers status `paid` instead, or refuses with `refusedCode`, was paid meanwhile (an answer
 * that was lost, a payment just in time): `find` looks the payment up and `paidAt` reads when it was.
 */
interface Ending<T extends { status: string }> {
  end: () => Promise<AcquirerResult<T>>;
  find: () => Promise<AcquirerResult<T>>;
  status: { ended: T['status']; paid: T['status'] };
  refusedCode: AcquirerRejectionCode;
  paidAt: (found: T) => string | null;
  trigger: { ended: ChargeTrigger; paid: ChargeTrigger };
}

/** The move that what the provider says of `ending` decides: ended, paid after all, or nothing yet. */
async function endOrConfirmPaid<T extends { status: string }>(
  deps: ChargesDeps,
  ending: Ending<T>,
): Promise<Move> {
  const answer = await ending.end();
  if (answer.ok && answer.value.status === ending.status.ended)
    return { trigger: ending.trigger.ended, patch: { canceled_at: deps.clock.now() } };
  const paidMeanwhile = answer.ok
    ? answer.value.status === ending.status.paid
    : answer.kind === 'rejected' && answer.code === ending.refusedCode;
  if (!paidMeanwhile) return null;
  const found = await ending.find();
  if (!found.ok || found.value.status !== ending.status.paid) return null;
  const at = ending.paidAt(found.value);
  return {
    trigger: ending.trigger.paid,
    patch: { paid_at: at === null ? deps.clock.now() : new Date(at) },
  };
}

/**
 * Job authorization-expiry: authorized charges older than 7 days are voided at the acquirer and canceled.
 * One the acquirer will not void because it was captured after all (a capture whose answer was lost) is
 * paid, not canceled.
 */
export async function expireAuthorizations(deps: ChargesDeps, asOf: Date): Promise<number> {
  const cutoff = new Date(asOf.getTime() - AUTHORIZATION_DAYS_MAX * DAY_MS);
  return moveEach(
    deps,
    (q, page) => authorizedBefore(q, cutoff, page),
    async (charge) => {
      const transactionId = charge.acquirer_transaction_id;
      assert(transactionId !== null, 'charge.authorized-has-transaction', { charge_id: charge.id });
      const acquirer = await acquirerFor(deps, charge);
      return endOrConfirmPaid(deps, {
        end: () => acquirer.cancel({ transactionId }),
        find: () => acquirer.getAuthorization(charge.id),
        status: { ended: 'canceled', paid: 'captured' },
        refusedCode: 'not_cancelable',
        paidAt: (authorization) => authorization.capturedAt,
        trigger: { ended: 'authorization_expired', paid: 'capture' },
      });
    },
  );
}

/**
 * Job pix-expiry: pending Pix charges past their expiry are ended at the PSP and canceled. One paid just
 * before it expired is paid: the PSP confirms the payment instead.
 */
export async function expirePixCharges(deps: ChargesDeps, asOf: Date): Promise<number> {
  return moveEach(
    deps,
    (q, page) => pixExpiredBefore(q, asOf, page),
    async (charge) => {
      const acquirer = await acquirerFor(deps, charge);
      return endOrConfirmPaid(deps, {
        end: () => acquirer.expirePix(charge.id),
        find: () => acquirer.getPixCharge(charge.id),
        status: { ended: 'expired', paid: 'paid' },
        refusedCode: 'pix_not_expirable',
        paidAt: (pix) => pix.paidAt,
        trigger: { ended: 'pix_expired', paid: 'payment_confirmed' },
      });
    },
  );
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
