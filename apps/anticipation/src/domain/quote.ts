// The arithmetic of contract §4, pure: the items of an anticipation, their totals, and the exposure and
// treasury blocks. Simulation and execution both call these, so what a seller is shown is what is done.
import { assert, anticipationFee, daysBetween } from '@pgw/domain';

/** An eligible receivable, as much of it as pricing needs. */
export interface Candidate {
  receivableId: string;
  /** The receivable's net amount: the gross of the anticipation item. */
  netCents: number;
  dueDate: string;
}

export interface QuoteItem {
  receivableId: string;
  dueDate: string;
  daysAnticipated: number;
  grossCents: number;
  feeCents: number;
  netCents: number;
}

export interface Totals {
  grossCents: number;
  feeCents: number;
  netCents: number;
}

/**
 * One item per receivable: days from today to its due date, and
 * fee = round_half_up(gross × bps × days / (10000 × 30)) with gross = the receivable's net.
 * The formula as written exceeds the gross only past 100 % for the period (bps × days > 300000, e.g. 500
 * bps a month over 600 days); the fee is then the whole gross, since a seller never pays to anticipate.
 */
export function priceItem(candidate: Candidate, feeBpsPerMonth: number, today: string): QuoteItem {
  return priced(candidate, feeBpsPerMonth, daysBetween(today, candidate.dueDate), today);
}

function priced(
  candidate: Candidate,
  feeBpsPerMonth: number,
  daysAnticipated: number,
  today: string,
): QuoteItem {
  // Eligibility (due after today) is checked before pricing: an item due today or earlier is a bug.
  assert(daysAnticipated >= 1, 'quote.priced-item-due-after-today', {
    receivable_id: candidate.receivableId,
    due_date: candidate.dueDate,
    today,
  });
  const grossCents = candidate.netCents;
  const feeCents = Math.min(
    grossCents,
    anticipationFee({ netCents: grossCents, feeBpsPerMonth, daysAnticipated }),
  );
  return {
    receivableId: candidate.receivableId,
    dueDate: candidate.dueDate,
    daysAnticipated,
    grossCents,
    feeCents,
    netCents: grossCents - feeCents,
  };
}

/** Every item; a seller's thousands of receivables share a few hundred due dates, so days are counted once per date. */
export function priceItems(
  candidates: readonly Candidate[],
  feeBpsPerMonth: number,
  today: string,
): QuoteItem[] {
  const daysByDate = new Map<string, number>();
  return candidates.map((c) => {
    let days = daysByDate.get(c.dueDate);
    if (days === undefined) {
      days = daysBetween(today, c.dueDate);
      daysByDate.set(c.dueDate, days);
    }
    return priced(c, feeBpsPerMonth, days, today);
  });
}

/** Totals are the sums of the items, never computed on their own. */
export function totalsOf(items: readonly QuoteItem[]): Totals {
  let grossCents = 0;
  let feeCents = 0;
  let netCents = 0;
  for (const item of items) {
    grossCents += item.grossCents;
    feeCents += item.feeCents;
    netCents += item.netCents;
  }
  if (!Number.isSafeInteger(grossCents))
    throw new RangeError('anticipation total exceeds a safe integer');
  return { grossCents, feeCents, netCents };
}

export interface ExposureBlock {
  limit_cents: number;
  outstanding_cents: number;
  projected_cents: number;
  available_cents: number;
  within_limit: boolean;
}

/** Contract §4: outstanding = gross of anticipated receivables whose original due date has not come. */
export function exposureBlock(input: {
  limitCents: number;
  outstandingCents: number;
  requestGrossCents: number;
}): ExposureBlock {
  const projected = input.outstandingCents + input.requestGrossCents;
  return {
    limit_cents: input.limitCents,
    outstanding_cents: input.outstandingCents,
    projected_cents: projected,
    available_cents: Math.max(0, input.limitCents - input.outstandingCents),
    within_limit: projected <= input.limitCents,
  };
}

export interface TreasuryBlock {
  available_cash_cents: number;
  requested_cash_out_cents: number;
  within_limit: boolean;
}

/**
 * Contract §4: the tenant's available cash against this request's net. The directory gives the cash the
 * tenant set aside; the executions of this environment have paid `cashOutCents` of it already.
 */
export function treasuryBlock(input: {
  treasuryCashCents: number;
  cashOutCents: number;
  requestNetCents: number;
}): TreasuryBlock {
  const available = Math.max(0, input.treasuryCashCents - input.cashOutCents);
  return {
    available_cash_cents: available,
    requested_cash_out_cents: input.requestNetCents,
    within_limit: input.requestNetCents <= available,
  };
}
