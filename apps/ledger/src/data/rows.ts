// node-postgres returns bigint as a string, PGlite as a number: money is read through int(), which also
// asserts it is a safe integer.
export function int(value: unknown, name = 'value'): number {
  const n = typeof value === 'string' || typeof value === 'bigint' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n)) throw new Error(`${name} is not a safe integer: ${String(value)}`);
  return n;
}

export function instant(value: unknown): Date {
  const date = value instanceof Date ? value : new Date(String(value));
  if (Number.isNaN(date.getTime())) throw new Error(`not an instant: ${String(value)}`);
  return date;
}
