// Calendar dates as 'YYYY-MM-DD' strings. Due dates, D+N and anticipation days are calendar facts, not
// instants: doing the arithmetic on integer day numbers keeps time zones and DST out of it entirely.

const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

/** True for a real calendar date written 'YYYY-MM-DD' (so '2025-02-29' is false). */
export function isDateString(value: string): boolean {
  const match = DATE_PATTERN.exec(value);
  if (match === null) return false;
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

/** The date `days` calendar days after `date` (before, when negative). */
export function addDays(date: string, days: number): string {
  assertInteger(days, 'days');
  return fromEpochDay(toEpochDay(date) + days);
}

/** Signed number of calendar days from `from` to `to`: daysBetween('2025-01-01', '2025-01-31') = 30. */
export function daysBetween(from: string, to: string): number {
  return toEpochDay(to) - toEpochDay(from);
}

/** The UTC calendar date of an instant. */
export function toDateString(instant: Date): string {
  const timeMs = instant.getTime();
  if (Number.isNaN(timeMs)) throw new RangeError('toDateString: invalid Date');
  return format(instant.getUTCFullYear(), instant.getUTCMonth() + 1, instant.getUTCDate());
}

/** Days since 1970-01-01. Throws on a malformed date: callers validate input with isDateString first. */
export function toEpochDay(date: string): number {
  const match = DATE_PATTERN.exec(date);
  if (match === null || !isDateString(date)) throw new RangeError(`not a calendar date: ${date}`);
  return daysFromCivil(Number(match[1]), Number(match[2]), Number(match[3]));
}

/** Inverse of toEpochDay. */
export function fromEpochDay(epochDay: number): string {
  assertInteger(epochDay, 'epochDay');
  // Howard Hinnant's civil_from_days: exact integer arithmetic, no Date and its two-digit-year quirks.
  const z = epochDay + 719468;
  const era = Math.floor(z / 146097);
  const dayOfEra = z - era * 146097;
  const yearOfEra = Math.floor(
    (dayOfEra -
      Math.floor(dayOfEra / 1460) +
      Math.floor(dayOfEra / 36524) -
      Math.floor(dayOfEra / 146096)) /
      365,
  );
  const dayOfYear =
    dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthIndex = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * monthIndex + 2) / 5) + 1;
  const month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  if (year < 0 || year > 9999) throw new RangeError(`date out of range: epoch day ${epochDay}`);
  return format(year, month, day);
}

function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra =
    yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146097 + dayOfEra - 719468;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function format(year: number, month: number, day: number): string {
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

function assertInteger(value: number, name: string): void {
  if (!Number.isSafeInteger(value))
    throw new RangeError(`${name} must be a safe integer, got ${value}`);
}
