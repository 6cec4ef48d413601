// Drivers disagree on types: node-postgres returns bigint as a string, PGlite as a number, and both
// return timestamptz as a Date. Every row is read through these, which also assert that money is a safe
// integer (a broken invariant otherwise).

export type Row = Record<string, unknown>;

export function int(value: unknown, name = 'value'): number {
  const n = typeof value === 'string' ? Number(value) : typeof value === 'bigint' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n)) throw new Error(`${name} is not a safe integer: ${String(value)}`);
  return n;
}

export function instant(value: unknown, name = 'value'): Date {
  const date = value instanceof Date ? value : new Date(String(value));
  if (Number.isNaN(date.getTime())) throw new Error(`${name} is not an instant: ${String(value)}`);
  return date;
}

export function text(value: unknown, name = 'value'): string {
  if (typeof value !== 'string') throw new Error(`${name} is not a string: ${String(value)}`);
  return value;
}

export function textOrNull(value: unknown, name = 'value'): string | null {
  return value === null || value === undefined ? null : text(value, name);
}

/** `count(*)` and `sum(...)` come back as strings, numbers or null depending on the driver. */
export function aggregate(rows: Row[], column: string): number {
  const value = rows[0]?.[column];
  return value === null || value === undefined ? 0 : int(value, column);
}
