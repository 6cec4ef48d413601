// The receivables calendar's arithmetic, pure: the days of a month as weeks, and the sums of each due day.
import type { Receivable } from '@pgw/sdk';
import { addDays } from './format';

export type Item = Omit<Receivable, 'request_id'>;

export interface Day {
  day: string;
  items: Item[];
  gross: number;
  fee: number;
  net: number;
}

/** The receivables by due date, soonest first, with each day's gross, fee and net. */
export function byDueDate(items: readonly Item[]): Day[] {
  const days = new Map<string, Day>();
  for (const item of items) {
    const day = days.get(item.due_date) ?? {
      day: item.due_date,
      items: [],
      gross: 0,
      fee: 0,
      net: 0,
    };
    day.items.push(item);
    day.gross += item.gross_amount_cents;
    day.fee += item.fee_amount_cents;
    day.net += item.net_amount_cents;
    days.set(item.due_date, day);
  }
  return [...days.values()].sort((a, b) => a.day.localeCompare(b.day));
}

/** `YYYY-MM` plus `months`. */
export function addMonths(month: string, months: number): string {
  const date = new Date(`${month}-01T00:00:00Z`);
  date.setUTCMonth(date.getUTCMonth() + months);
  return date.toISOString().slice(0, 7);
}

/**
 * The weeks of `month` (YYYY-MM) as a calendar shows them, Sunday first (as Brazilian calendars do): each
 * week seven days, null where the day belongs to the month before or after.
 */
export function monthWeeks(month: string): Array<Array<string | null>> {
  const first = `${month}-01`;
  const offset = new Date(`${first}T00:00:00Z`).getUTCDay();
  const weeks: Array<Array<string | null>> = [];
  let week: Array<string | null> = Array.from({ length: offset }, () => null);
  for (let day = first; day.startsWith(month); day = addDays(day, 1)) {
    week.push(day);
    if (week.length === 7) {
      weeks.push(week);
      week = [];
    }
  }
  if (week.length > 0)
    weeks.push([...week, ...Array.from({ length: 7 - week.length }, () => null)]);
  return weeks;
}

/** The month to open on: the first with something due from today on, else the last with anything, else today's. */
export function initialMonth(days: readonly Day[], today: string): string {
  const next = days.find((d) => d.day >= today) ?? days[days.length - 1];
  return (next?.day ?? today).slice(0, 7);
}
