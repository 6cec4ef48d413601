import type { Knex } from 'knex';
import { inOneStatement, type Tx } from '@pgw/platform-db';
import { addToBooksSql, sendSalesNow } from './sales-at-commit';
import type { BookCounters } from '@pgw/receivables-domain/books';

type Row = Record<string, unknown>;

export interface SellerKey {
  tenantId: string;
  livemode: boolean;
  sellerId: string;
}

/**
 * Locks the sellers' books rows (creating the missing ones) in one order, so that two transactions
 * that touch the same sellers queue rather than deadlock.
 */
export async function lockBooks(
  trx: Tx,
  tenantId: string,
  livemode: boolean,
  sellerIds: readonly string[],
): Promise<Map<string, BookCounters>> {
  const ids = [...new Set(sellerIds)].sort();
  const out = new Map<string, BookCounters>();
  if (ids.length === 0) return out;
  await sendSalesNow(trx);
  // One statement creates the missing books and locks them all (an upsert's update locks its row), in
  // seller order, so two operations on the same sellers never wait on each other crosswise.
  const rows = (await trx('seller_books')
    .insert(ids.map((seller_id) => ({ tenant_id: tenantId, livemode, seller_id })))
    .onConflict(['tenant_id', 'livemode', 'seller_id'])
    .merge(['seller_id'])
    .returning('*')) as Row[];
  for (const row of rows) out.set(row.seller_id as string, countersOf(row));
  return out;
}

const countersOf = (row: Row): BookCounters => ({
  pendingCents: row.pending_cents as number,
  receivablesAvailableCents: row.receivables_available_cents as number,
  reservedCents: row.reserved_cents as number,
  debtCents: row.debt_cents as number,
});

/**
 * Adds each seller's counter changes to its books (creating the missing ones) in one statement, in seller
 * order as lockBooks locks them, and returns the counters after: for an operation that decides nothing
 * from the counters, the lock and the write of lockBooks + saveBooks in one round trip. `writes` (that read
 * nothing from the books) go in the same statement.
 */
export async function addToBooks(
  trx: Tx,
  tenantId: string,
  livemode: boolean,
  additions: ReadonlyMap<string, BookCounters>,
  now: Date,
  writes: Knex.Sql[] = [],
): Promise<Map<string, BookCounters>> {
  const out = new Map<string, BookCounters>();
  await sendSalesNow(trx);
  if (additions.size === 0) {
    await inOneStatement(trx, writes);
    return out;
  }
  const upsert = addToBooksSql(
    trx,
    [...additions].map(([sellerId, counters]) => ({ tenantId, livemode, sellerId, counters })),
    now,
  )
    .returning('*')
    .toSQL();
  for (const row of await inOneStatement<Row>(trx, [...writes, upsert]))
    out.set(row.seller_id as string, countersOf(row));
  return out;
}

export async function saveBooks(
  trx: Tx,
  tenantId: string,
  livemode: boolean,
  sellerId: string,
  c: BookCounters,
  now: Date,
): Promise<void> {
  await trx('seller_books').where({ tenant_id: tenantId, livemode, seller_id: sellerId }).update({
    pending_cents: c.pendingCents,
    receivables_available_cents: c.receivablesAvailableCents,
    reserved_cents: c.reservedCents,
    debt_cents: c.debtCents,
    updated_at: now,
  });
}

/** Keeps the sellers after `after` in (tenant, livemode, seller) order: a job's page that continues past sellers it could not settle. */
export function afterSeller<Q extends Knex.QueryBuilder>(query: Q, after: SellerKey | null): Q {
  return after === null
    ? query
    : (query.whereRaw('(tenant_id, livemode, seller_id) > (?, ?, ?)', [
        after.tenantId,
        after.livemode,
        after.sellerId,
      ]) as Q);
}

/** Sellers with money to pay out (free available receivables, or a credit owed to them), after `after`. */
export async function sellersToSettle(
  trx: Tx,
  limit: number,
  after: SellerKey | null = null,
): Promise<SellerKey[]> {
  const rows = (await afterSeller(
    trx('seller_books').where((q) =>
      q.where('receivables_available_cents', '>', 0).orWhere('debt_cents', '<', 0),
    ),
    after,
  )
    .orderBy(['tenant_id', 'livemode', 'seller_id'])
    .limit(limit)
    .select('tenant_id', 'livemode', 'seller_id')) as Row[];
  return rows.map((r) => ({
    tenantId: r.tenant_id as string,
    livemode: r.livemode === true,
    sellerId: r.seller_id as string,
  }));
}

/** Sellers with pending receivables due on or before the date. */
export async function sellersWithDueReceivables(
  trx: Tx,
  asOfDate: string,
  limit: number,
): Promise<SellerKey[]> {
  const rows = (await trx('receivables')
    .where({ status: 'pending' })
    .andWhere('due_date', '<=', asOfDate)
    .distinct('tenant_id', 'livemode', 'seller_id')
    .orderBy(['tenant_id', 'livemode', 'seller_id'])
    .limit(limit)) as Row[];
  return rows.map((r) => ({
    tenantId: r.tenant_id as string,
    livemode: r.livemode === true,
    sellerId: r.seller_id as string,
  }));
}
