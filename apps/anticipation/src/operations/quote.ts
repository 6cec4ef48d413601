// Loads what prices an anticipation (the seller's terms, the plans, the eligible receivables, the
// exposure and the treasury) and prices it. The simulation reads; the execution reads the same things
// under its locks, so both answer the same for the same state.
import type { Knex } from 'knex';
import { ApiError } from '@pgw/platform-http';
import type { Tx } from '@pgw/platform-db';
import { limitsOf, lockTreasury } from '../data/anticipations.repository';
import { lockSeller, pricingTermsOf } from '../data/directory.repository';
import {
  eligibleReceivables,
  isEligible,
  lockEligibleReceivables,
  receivablesByIds,
  type LockedCandidate,
  type SellerScope,
} from '../data/receivables.repository';
import { resolvePricing, type AnticipationPricing } from '@pgw/anticipation-domain/pricing';
import {
  exposureBlock,
  priceItems,
  totalsOf,
  treasuryBlock,
  type Candidate,
  type ExposureBlock,
  type QuoteItem,
  type Totals,
  type TreasuryBlock,
} from '@pgw/anticipation-domain/quote';

/** receivable_ids of api-v1: 1 to 100 items. */
export const RECEIVABLE_IDS_MAX = 100;
/**
 * Bounds on "all eligible" (receivable_ids omitted). A simulation is a read: 10,000 items price in about
 * 40 ms here (docs/benchmarks.md), and ten times that was a 100,000-row read and ~0.5 s of CPU that any
 * caller could ask for in a loop (issue 16 item 9). An execution is one transaction and one event (Kafka's
 * default message limit is 1 MB), so it takes at most 1,000. Beyond either, the caller names receivables.
 */
export const SIMULATION_RECEIVABLES_MAX = 10_000;
export const EXECUTION_RECEIVABLES_MAX = 1_000;

export interface Quote {
  pricing: AnticipationPricing;
  items: QuoteItem[];
  totals: Totals;
  exposure: ExposureBlock;
  treasury: TreasuryBlock;
  /** Of each item's original, what the executed event tells receivables: filled when locked (execution). */
  originals: ReadonlyMap<string, { chargeId: string; version: number }>;
}

export interface QuoteRequest {
  scope: SellerScope;
  /** Undefined: every eligible receivable of the seller. */
  receivableIds: readonly string[] | undefined;
  today: string;
}

/** How the quote reads: plainly (simulation), or under the execution's locks in its transaction. */
export type QuoteMode = { kind: 'read'; q: Knex | Tx } | { kind: 'lock'; trx: Tx };

export async function buildQuote(mode: QuoteMode, request: QuoteRequest): Promise<Quote> {
  const { scope, today } = request;
  const q = mode.kind === 'lock' ? mode.trx : mode.q;
  // Lock order of an execution: the tenant's treasury row, the seller's row, then the receivables.
  if (mode.kind === 'lock') {
    await lockTreasury(mode.trx, scope.tenantId, scope.livemode);
    await lockSeller(mode.trx, scope.tenantId, scope.sellerId);
  }
  const terms = await pricingTermsOf(q, scope.tenantId, scope.sellerId);
  const { seller } = terms;
  const resolution = resolvePricing(terms);
  if (!resolution.ok || seller === undefined) {
    // The directory's event has not reached this service yet (typically milliseconds): a retry succeeds.
    const what =
      resolution.ok || resolution.reason === 'seller_unknown' ? 'seller' : "seller's pricing plan";
    throw new ApiError(
      'service_unavailable',
      `The ${what} is not known to the anticipation service yet; retry shortly.`,
      null,
      { 'retry-after': '1' },
    );
  }
  const candidates = await loadCandidates(mode, request);
  const items = priceItems(candidates, resolution.pricing.feeBpsPerMonth, today);
  const originals = new Map<string, { chargeId: string; version: number }>();
  for (const c of candidates)
    if ('chargeId' in c)
      originals.set(c.receivableId, { chargeId: c.chargeId, version: c.version });
  const totals = totalsOf(items);
  const limits = await limitsOf(q, scope, today);
  return {
    pricing: resolution.pricing,
    items,
    totals,
    exposure: exposureBlock({
      limitCents: seller.anticipationLimitCents,
      outstandingCents: limits.outstandingCents,
      requestGrossCents: totals.grossCents,
    }),
    treasury: treasuryBlock({
      treasuryCashCents: limits.treasuryCashCents,
      cashOutCents: limits.cashOutCents,
      requestNetCents: totals.netCents,
    }),
    originals,
  };
}

async function loadCandidates(
  mode: QuoteMode,
  request: QuoteRequest,
): Promise<Array<Candidate | LockedCandidate>> {
  const { scope, today, receivableIds } = request;
  const lock = mode.kind === 'lock';
  const q = mode.kind === 'lock' ? mode.trx : mode.q;
  if (receivableIds === undefined) {
    const max = lock ? EXECUTION_RECEIVABLES_MAX : SIMULATION_RECEIVABLES_MAX;
    const all =
      mode.kind === 'lock'
        ? await lockEligibleReceivables(mode.trx, scope, today, max + 1)
        : await eligibleReceivables(mode.q, scope, today, max + 1);
    if (all.length > max) {
      throw new ApiError(
        'parameter_invalid',
        `receivable_ids: the seller has more than ${max} eligible receivables; name up to ${RECEIVABLE_IDS_MAX} of them`,
        'receivable_ids',
      );
    }
    return all;
  }
  const seen = new Map<string, number>();
  for (const [index, id] of receivableIds.entries()) {
    if (seen.has(id))
      throw new ApiError(
        'parameter_invalid',
        `receivable_ids.${index}: repeats receivable_ids.${seen.get(id)}`,
        `receivable_ids.${index}`,
      );
    seen.set(id, index);
  }
  const found = await receivablesByIds(q, scope, receivableIds, { lock });
  // In the order the request named them; the first one that cannot be anticipated is the error. Another
  // seller's, tenant's or environment's receivable is not found here, so it answers the same.
  return receivableIds.map((id, index) => {
    const r = found.get(id);
    if (r === undefined || !isEligible(r, today)) {
      throw new ApiError(
        'receivable_not_eligible',
        `receivable_ids.${index}: ${id} is not an eligible receivable (pending, not anticipated, due after ${today})`,
        `receivable_ids.${index}`,
      );
    }
    return r;
  });
}
