import { addDays, daysBetween } from '../dates/dates';

// Due-date factor (fator de vencimento), positions 6–9 of a boleto barcode: days since 1997-10-07. It hit
// 9999 on 2025-02-21 and FEBRABAN restarted it at 1000 on 2025-02-22, so it now cycles through 1000..9999
// every 9000 days (9999 again on 2049-10-13, 1000 on 2049-10-14). A factor alone no longer names one date: a reader has to
// pick the candidate that falls in a window around today.

const FACTOR_BASE_DATE = '1997-10-07';
const FACTOR_MIN = 1000;
const FACTOR_CYCLE_DAYS = 9000;
/** The 1000 of the first cycle: 2000-07-03. */
const FIRST_CYCLE_START = addDays(FACTOR_BASE_DATE, FACTOR_MIN);

/**
 * How far back from today dateFromFactor still reads a factor as a past date; the other 6000 days of the
 * cycle lie ahead. Our choice: overdue slips of more than about 8 years are not paid, while slips are
 * issued at most a few years ahead, so the window leans to the past less than to the future.
 */
export const BOLETO_FACTOR_PAST_WINDOW_DAYS = 3000;

/** The factor printed for a due date from 2000-07-03 on (the first date with a 4-digit factor). */
export function dueDateFactor(dueDate: string): number {
  const days = daysBetween(FIRST_CYCLE_START, dueDate);
  if (days < 0)
    throw new RangeError(`due date before ${FIRST_CYCLE_START} has no 4-digit factor: ${dueDate}`);
  return FACTOR_MIN + (days % FACTOR_CYCLE_DAYS);
}

/**
 * The due date a factor stands for, read relative to `today`: the only candidate in
 * [today − BOLETO_FACTOR_PAST_WINDOW_DAYS, today + 9000 − BOLETO_FACTOR_PAST_WINDOW_DAYS), or the first-cycle
 * date when the window starts before 2000-07-03 (no earlier date has that factor). Null for factors outside 1000..9999 (0000 means "no due date" on a slip).
 */
export function dateFromFactor(factor: number, today: string): string | null {
  if (!Number.isSafeInteger(factor) || factor < FACTOR_MIN || factor > 9999) return null;
  const windowStart = addDays(today, -BOLETO_FACTOR_PAST_WINDOW_DAYS);
  const firstCandidate = addDays(FIRST_CYCLE_START, factor - FACTOR_MIN);
  // Step whole cycles from the first candidate to the first one not before the window start.
  const cyclesAhead = Math.ceil(daysBetween(firstCandidate, windowStart) / FACTOR_CYCLE_DAYS);
  return addDays(firstCandidate, Math.max(0, cyclesAhead) * FACTOR_CYCLE_DAYS);
}
