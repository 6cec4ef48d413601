import { PAYMENT_METHODS, type MdrBps } from '../directory/defaults';

// Reading rows back: PostgreSQL returns bigint as a string (pg) or a number (PGlite), timestamps as
// Date, jsonb parsed. These helpers turn each into one type, and treat anything else as the broken
// invariant it is.

export function toInt(value: unknown, column: string): number {
  const n = typeof value === 'string' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n)) throw new Error(`column ${column} is not a safe integer`);
  return n;
}

export function toDate(value: unknown, column: string): Date {
  const date = value instanceof Date ? value : typeof value === 'string' ? new Date(value) : null;
  if (date === null || Number.isNaN(date.getTime())) throw new Error(`column ${column} is not a timestamp`);
  return date;
}

export function toNullableDate(value: unknown, column: string): Date | null {
  return value === null || value === undefined ? null : toDate(value, column);
}

export function toJson(value: unknown): unknown {
  return typeof value === 'string' ? JSON.parse(value) : value;
}

export function toMdrBps(value: unknown, column: string): MdrBps {
  const json = toJson(value);
  if (typeof json !== 'object' || json === null) throw new Error(`column ${column} is not an MDR map`);
  const get = (method: string): number => toInt(Object.getOwnPropertyDescriptor(json, method)?.value, `${column}.${method}`);
  const [credit_card, debit_card, pix, boleto] = PAYMENT_METHODS.map(get);
  if (credit_card === undefined || debit_card === undefined || pix === undefined || boleto === undefined) {
    throw new Error(`column ${column} is not an MDR map`);
  }
  return { credit_card, debit_card, pix, boleto };
}

export function toStringArray(value: unknown, column: string): string[] {
  const json = toJson(value);
  if (!Array.isArray(json) || !json.every((v): v is string => typeof v === 'string')) {
    throw new Error(`column ${column} is not an array of strings`);
  }
  return json;
}
