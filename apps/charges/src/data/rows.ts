// Column values as the drivers hand them back: pg gives bigint as text and timestamptz as Date; PGlite
// may differ. These helpers read both.

export type Cents = string | number;
export type Timestamp = Date | string;

export const cents = (value: Cents): number => {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new Error(`not an integer amount: ${String(value)}`);
  return n;
};

export const date = (value: Timestamp): Date => (value instanceof Date ? value : new Date(value));
export const iso = (value: Timestamp): string => date(value).toISOString();
export const isoOrNull = (value: Timestamp | null): string | null => (value === null ? null : iso(value));
export const msOrNull = (value: Timestamp | null): number | null => (value === null ? null : date(value).getTime());
