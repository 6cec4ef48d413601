// Money and time as a Brazilian seller reads them: integer cents shown as BRL in pt-BR (`R$ 1.234,56`)
// whatever the interface's language, and instants shown in America/Sao_Paulo, the calendar the
// receivables' due dates and the anticipation's days are counted in.

export const TIME_ZONE = 'America/Sao_Paulo';

const BRL = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' });

/** `R$ 1.234,56` (Intl writes a no-break space after R$; a plain space reads and copies better). */
export function brl(cents: number): string {
  return BRL.format(cents / 100).replace(/\u00a0/g, ' ');
}

/**
 * Reais as a Brazilian types them (`1.234,56`, `50,00`, `50`) in cents: null when nothing is typed, NaN
 * when what is typed is not a positive amount.
 */
export function centsFromReais(text: string): number | null {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  const cents = Math.round(Number(trimmed.replace(/\./g, '').replace(',', '.')) * 100);
  return Number.isInteger(cents) && cents > 0 ? cents : Number.NaN;
}

export type Locale = 'pt-BR' | 'en';

/** An instant as a date and time in São Paulo, in the interface's language. */
export function dateTime(iso: string, locale: Locale): string {
  return new Intl.DateTimeFormat(locale, {
    timeZone: TIME_ZONE,
    dateStyle: 'short',
    timeStyle: 'short',
  }).format(new Date(iso));
}

/** A calendar date (YYYY-MM-DD, already São Paulo's) in the interface's language, without shifting it. */
export function calendarDate(day: string, locale: Locale): string {
  return new Intl.DateTimeFormat(locale, { timeZone: 'UTC', dateStyle: 'short' }).format(
    new Date(`${day}T00:00:00Z`),
  );
}

/** The São Paulo calendar date (YYYY-MM-DD) of an instant. */
export function saoPauloDay(instant: Date | string): string {
  // en-CA writes dates as YYYY-MM-DD.
  return new Intl.DateTimeFormat('en-CA', {
    timeZone: TIME_ZONE,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(new Date(instant));
}

/** YYYY-MM-DD plus `days` (calendar arithmetic, no time zone involved). */
export function addDays(day: string, days: number): string {
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
}

/** The instant São Paulo's day `day` begins (São Paulo has kept UTC−3 all year since 2019). */
export function startOfSaoPauloDay(day: string): string {
  return new Date(`${day}T03:00:00.000Z`).toISOString();
}

/** Sums of `amount` by São Paulo day over the `days` days ending on `lastDay`, oldest first, zero where nothing happened. */
export function dailyTotals<T>(
  items: readonly T[],
  lastDay: string,
  days: number,
  dayOf: (item: T) => string,
  amount: (item: T) => number,
): Array<{ day: string; cents: number }> {
  const totals = new Map<string, number>();
  for (let i = days - 1; i >= 0; i -= 1) totals.set(addDays(lastDay, -i), 0);
  for (const item of items) {
    const day = dayOf(item);
    const sum = totals.get(day);
    if (sum !== undefined) totals.set(day, sum + amount(item));
  }
  return [...totals].map(([day, cents]) => ({ day, cents }));
}

/** RFC 4180 CSV: fields with a comma, quote or line break are quoted, quotes doubled; CRLF between records. */
export function toCsv(
  header: readonly string[],
  rows: ReadonlyArray<ReadonlyArray<string | number | null>>,
): string {
  const field = (value: string | number | null) => {
    const text = value === null ? '' : String(value);
    return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  return [header, ...rows].map((row) => row.map(field).join(',')).join('\r\n') + '\r\n';
}
