import type { Knex } from 'knex';
import { inOneStatement, writeAtCommit, type Tx, type WriteSql } from '@pgw/platform-db';
import { ZERO_COUNTERS, type BookCounters } from '@pgw/receivables-domain/books';
import type { SellerKey } from './books.repository';

/** What to add to one seller's books. */
export interface BooksAddition extends SellerKey {
  counters: BookCounters;
}

const booksKey = (a: SellerKey) => `${a.tenantId}\u0000${a.livemode}\u0000${a.sellerId}`;

/**
 * Adds each seller's counters to its books, creating the missing ones, in one upsert whose rows are in key
 * order (two transactions that add to the same sellers lock them in the same order).
 */
export function addToBooksSql(
  q: Knex | Tx,
  additions: readonly BooksAddition[],
  now: Date,
): Knex.QueryBuilder {
  const add = (column: string) => q.raw(`seller_books.${column} + excluded.${column}`);
  return q('seller_books')
    .insert(
      [...additions]
        .sort((a, b) => (booksKey(a) < booksKey(b) ? -1 : booksKey(a) > booksKey(b) ? 1 : 0))
        .map(({ tenantId, livemode, sellerId, counters: c }) => ({
          tenant_id: tenantId,
          livemode,
          seller_id: sellerId,
          pending_cents: c.pendingCents,
          receivables_available_cents: c.receivablesAvailableCents,
          reserved_cents: c.reservedCents,
          debt_cents: c.debtCents,
          updated_at: now,
        })),
    )
    .onConflict(['tenant_id', 'livemode', 'seller_id'])
    .merge({
      pending_cents: add('pending_cents'),
      receivables_available_cents: add('receivables_available_cents'),
      reserved_cents: add('reserved_cents'),
      debt_cents: add('debt_cents'),
      updated_at: q.raw('excluded.updated_at'),
    });
}

/** A write of a sale, and whether it went already. */
interface SaleWrite {
  sql: Knex.Sql;
  sent: boolean;
}

/** A transaction's sales not written yet: their writes, and what they add to each seller's books (summed). */
interface PendingSales {
  writes: SaleWrite[];
  books: Map<string, BooksAddition>;
  now: Date;
}

const pendingSales = new WeakMap<Tx, PendingSales>();

/**
 * Leaves a sale's writes (its receivables, its charge's new state) and what it adds to its sellers' books to
 * the transaction's commit, where they go in its one statement of deferred writes (the inbox's ids, the outbox's
 * rows). Only for a sale that decides nothing from the books: one that adds to them what cannot make them
 * negative and whose movement does not depend on what they hold. Whatever in the transaction reads or locks
 * the charges, the receivables or the books sends them first (`sendSalesNow`), so it sees them.
 */
export function saleAtCommit(
  trx: Tx,
  writes: readonly Knex.Sql[],
  additions: readonly BooksAddition[],
  now: Date,
): void {
  let pending = pendingSales.get(trx);
  if (pending === undefined) {
    const created: PendingSales = { writes: [], books: new Map(), now };
    pendingSales.set(trx, created);
    // Registered once, built at commit from what sendSalesNow has not sent by then (null: nothing left).
    writeAtCommit(trx, (q) => takeBooks(q, created));
    pending = created;
  }
  for (const sql of writes) {
    const write: SaleWrite = { sql, sent: false };
    pending.writes.push(write);
    writeAtCommit(trx, () => (write.sent ? null : write.sql));
  }
  for (const a of additions) {
    const before = pending.books.get(booksKey(a))?.counters ?? ZERO_COUNTERS;
    pending.books.set(booksKey(a), { ...a, counters: sum(before, a.counters) });
  }
}

const sum = (a: BookCounters, b: BookCounters): BookCounters => ({
  pendingCents: a.pendingCents + b.pendingCents,
  receivablesAvailableCents: a.receivablesAvailableCents + b.receivablesAvailableCents,
  reservedCents: a.reservedCents + b.reservedCents,
  debtCents: a.debtCents + b.debtCents,
});

function takeBooks(q: Knex | Tx, pending: PendingSales): WriteSql | null {
  const additions = [...pending.books.values()];
  pending.books.clear();
  return additions.length === 0 ? null : addToBooksSql(q, additions, pending.now).toSQL();
}

/** Writes the transaction's pending sales now (one statement), before something reads what they change. */
export async function sendSalesNow(trx: Tx): Promise<void> {
  const pending = pendingSales.get(trx);
  if (pending === undefined) return;
  const writes = pending.writes.filter((w) => !w.sent);
  pending.writes = [];
  for (const w of writes) w.sent = true;
  const books = takeBooks(trx, pending);
  await inOneStatement(trx, [...writes.map((w) => w.sql), ...(books === null ? [] : [books])]);
}
