import type { Knex } from 'knex';
import { pagedQuery, type Tx } from '@pgw/platform-db';
import type { MdrBps } from '@pgw/gateway-domain/defaults';

/** Which page of an operator list: `page` counts from 1, `limit` rows a page. */
export interface Paging {
  page: number;
  limit: number;
}

/** One page of an operator list, and how many rows match in all. */
export interface Page<T> {
  data: T[];
  total: number;
}

/**
 * One page of the operator's lists: the rows of `table` that match `where`, newest first, each read by
 * `fromRow`. Rows made in the same instant (one clock tick, or a test's stopped clock) are ordered by id,
 * so that no row is on two pages or on none; `total` counts every match (the platform's `pagedQuery`).
 */
export async function pageOf<T>(
  q: Knex | Tx,
  table: string,
  where: Record<string, unknown>,
  { page, limit }: Paging,
  fromRow: (row: Record<string, unknown>) => T,
): Promise<Page<T>> {
  const { rows, total } = await pagedQuery<Record<string, unknown>>(
    q(table).where(where),
    ['created_at', 'id'],
    page,
    limit,
  );
  return { data: rows.map(fromRow), total };
}

/**
 * The row of `table` whose id is `id`, read by `fromRow`, or null; locked for the rest of the transaction
 * when `forUpdate` (a directory row's version must grow by one).
 */
export async function findById<T>(
  q: Knex | Tx,
  table: string,
  id: string,
  fromRow: (row: Record<string, unknown>) => T,
  options: { forUpdate?: boolean } = {},
): Promise<T | null> {
  const query = q(table).where({ id }).first();
  const row: Record<string, unknown> | undefined = await (options.forUpdate === true
    ? query.forUpdate()
    : query);
  return row === undefined ? null : fromRow(row);
}

/** A directory table's two reads that every table answers alike, bound to the table and its `fromRow`. */
export interface TableReads<T> {
  /** The row whose id is `id`, or null; locked for the rest of the transaction when `forUpdate`. */
  find(q: Knex | Tx, id: string, options?: { forUpdate?: boolean }): Promise<T | null>;
  /** One page of the tenant's rows, newest first. */
  pageOfTenant(q: Knex | Tx, tenantId: string, paging: Paging): Promise<Page<T>>;
}

export function tableReads<T>(
  table: string,
  fromRow: (row: Record<string, unknown>) => T,
): TableReads<T> {
  return {
    find: (q, id, options = {}) => findById(q, table, id, fromRow, options),
    pageOfTenant: (q, tenantId, paging) =>
      pageOf(q, table, { tenant_id: tenantId }, paging, fromRow),
  };
}

/** What every directory row carries: its id, a version that grows by one with each change, and its times. */
export interface DirectoryRecord {
  id: string;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

export function recordFromRow(row: Record<string, unknown>): DirectoryRecord {
  return {
    id: String(row.id),
    version: row.version as number,
    createdAt: row.created_at as Date,
    updatedAt: row.updated_at as Date,
  };
}

/** The terms a pricing plan sets and a seller's own override: the anticipation fee, D+N and the MDR. */
export interface Terms {
  feeBpsPerMonth: number;
  settlementDelayDays: number;
  mdrBps: MdrBps;
}

export function termsFromRow(row: Record<string, unknown>): Terms {
  return {
    feeBpsPerMonth: row.fee_bps_per_month as number,
    settlementDelayDays: row.settlement_delay_days as number,
    mdrBps: row.mdr_bps as MdrBps,
  };
}

/**
 * The writes of a table of one tenant's directory rows: the id, the tenant and the creation time are set
 * once, by the insert; `toRow` gives the columns that every change rewrites.
 */
export function tenantRowWrites<T extends DirectoryRecord & { tenantId: string }>(
  table: string,
  toRow: (record: T) => Record<string, unknown>,
) {
  return {
    insert: async (trx: Tx, record: T): Promise<void> => {
      await trx(table).insert({
        id: record.id,
        tenant_id: record.tenantId,
        created_at: record.createdAt,
        ...toRow(record),
      });
    },
    update: async (trx: Tx, record: T): Promise<void> => {
      await trx(table).where({ id: record.id }).update(toRow(record));
    },
  };
}
