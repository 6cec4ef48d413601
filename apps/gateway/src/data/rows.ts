import type { Knex } from 'knex';
import type { Tx } from '@pgw/platform-db';
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

export interface RowsPage {
  rows: Array<Record<string, unknown>>;
  total: number;
}

/**
 * One page of the operator's lists: the rows of `table` that match `where`, newest first. Rows made in the
 * same instant (one clock tick, or a test's stopped clock) are ordered by id, so that no row is on two
 * pages or on none; `total` counts every match.
 */
export async function pageOfRows(q: Knex | Tx, table: string, where: Record<string, unknown>, page: number, limit: number): Promise<RowsPage> {
  const [count] = await q(table).where(where).count<Array<{ count: string | number }>>({ count: '*' });
  const rows: Array<Record<string, unknown>> = await q(table)
    .where(where)
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(limit)
    .offset((page - 1) * limit);
  return { rows, total: toInt(count?.count ?? 0, `${table}.count`) };
}
