// One set of column types whatever the driver. Left to themselves, node-postgres hands bigint back as a
// string and PGlite as a number, and both turn a date into a Date at local midnight. Both drivers take
// these parsers (by the type's OID, from its text form), so a row reads the same on PostgreSQL and on the
// embedded database: bigint and numeric → number, date → 'YYYY-MM-DD'; timestamptz stays a Date and
// json/jsonb parsed, as both drivers already give them.

/** PostgreSQL type OIDs (pg_type.oid), fixed since forever. */
export const PG_TYPES = { int8: 20, numeric: 1700, date: 1082 } as const;

/**
 * bigint: money in cents, counts, versions; all of them far below 2^53. One beyond it is a broken invariant,
 * refused rather than rounded (the query fails).
 */
export function parseBigint(text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new Error(`bigint ${text} is beyond the safe integers`);
  return n;
}

/** numeric: what sum() of a bigint column gives. An integer is held to the safe integers as bigint is. */
export function parseNumeric(text: string): number {
  if (/^-?\d+$/.test(text)) return parseBigint(text);
  const n = Number(text);
  if (!Number.isFinite(n)) throw new Error(`numeric ${text} is not a finite number`);
  return n;
}

/** date: the calendar day as written, never moved across a time zone. */
export const parseDate = (text: string): string => text;

export const TYPE_PARSERS: Readonly<Record<number, (text: string) => unknown>> = {
  [PG_TYPES.int8]: parseBigint,
  [PG_TYPES.numeric]: parseNumeric,
  [PG_TYPES.date]: parseDate,
};
