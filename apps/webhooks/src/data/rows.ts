// Drivers differ in what they hand back: pg gives bigint as a string and jsonb parsed; PGlite may give
// numbers. These read a column whatever the driver.

export const toNumber = (value: unknown): number => {
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isFinite(n)) throw new Error(`expected a number, got ${String(value)}`);
  return n;
};

export const toDate = (value: unknown): Date => (value instanceof Date ? value : new Date(String(value)));

export const toDateOrNull = (value: unknown): Date | null => (value === null || value === undefined ? null : toDate(value));

export const toStringArray = (value: unknown): string[] => {
  const parsed: unknown = typeof value === 'string' ? JSON.parse(value) : value;
  if (!Array.isArray(parsed) || !parsed.every((v) => typeof v === 'string')) throw new Error('expected a JSON array of strings');
  return parsed;
};
