import type { Knex } from 'knex';
import { newId } from '@pgw/domain';
import { writeAtCommit, type Tx } from '@pgw/platform-db';
import { sellerAccount, type Posting } from '@pgw/ledger-domain/postings';

type Row = Record<string, unknown>;

export interface JournalEntry {
  sourceEventId: string;
  tenantId: string;
  livemode: boolean;
  sellerId: string;
  type: string;
  chargeId: string | null;
  settlementId: string | null;
  anticipationId: string | null;
  /** Signed change of what the seller has with us; zero for moves between the seller's own buckets. */
  sellerEffectCents: number;
  createdAt: Date;
  postings: Posting[];
}

interface BalanceDelta {
  tenantId: string;
  livemode: boolean;
  account: string;
  sellerId: string | null;
  deltaCents: number;
}

interface HistoryDelta {
  tenantId: string;
  livemode: boolean;
  sellerId: string;
  entries: number;
}

/** Whether an entry is one of the seller's balance transactions (journal_history's predicate, history_counts' rows). */
const inHistory = (sellerEffectCents: number) => sellerEffectCents !== 0;

/**
 * The balance changes of one batch's transaction, summed per account, and the entries added to each
 * seller's history, so that a busy account (a hot seller, the platform's fee and cash accounts) and a
 * busy seller's history count are written once per batch, in one statement: `flush` runs last in the
 * batch's transaction (ConsumerDefinition.afterBatch) and leaves them to its commit (writeAtCommit), where
 * they go with the inbox's ids.
 */
export class BatchBalances {
  private readonly deltas = new Map<string, BalanceDelta>();
  private readonly histories = new Map<string, HistoryDelta>();

  add(
    entry: Pick<
      JournalEntry,
      'tenantId' | 'livemode' | 'sellerId' | 'sellerEffectCents' | 'postings'
    >,
  ): void {
    const { tenantId, livemode } = entry;
    for (const p of entry.postings) {
      const key = `${tenantId}\u0000${livemode}\u0000${p.account}`;
      const current = this.deltas.get(key) ?? {
        tenantId,
        livemode,
        account: p.account,
        sellerId: p.sellerId,
        deltaCents: 0,
      };
      current.deltaCents += p.amountCents;
      this.deltas.set(key, current);
    }
    if (inHistory(entry.sellerEffectCents)) {
      const key = `${tenantId}\u0000${livemode}\u0000${entry.sellerId}`;
      const current = this.histories.get(key) ?? {
        tenantId,
        livemode,
        sellerId: entry.sellerId,
        entries: 0,
      };
      current.entries++;
      this.histories.set(key, current);
    }
  }

  flush(trx: Tx, now: Date): void {
    // One statement for both tables, rows in key order: two batches lock shared rows in the same order.
    const inKeyOrder = <T>(map: Map<string, T>) =>
      [...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, d]) => d);
    const rows = inKeyOrder(this.deltas).filter((d) => d.deltaCents !== 0);
    const histories = inKeyOrder(this.histories);
    this.deltas.clear();
    this.histories.clear();
    if (rows.length > 0) {
      const balances = rows.map((d) => ({
        tenant_id: d.tenantId,
        livemode: d.livemode,
        account: d.account,
        seller_id: d.sellerId,
        balance_cents: d.deltaCents,
        updated_at: now,
      }));
      const key = ['tenant_id', 'livemode', 'account'];
      const updatedAt = { updated_at: trx.raw('excluded.updated_at') };
      const upsert = addTo(trx, 'accounts', key, 'balance_cents', balances, updatedAt).toSQL();
      writeAtCommit(trx, () => upsert);
    }
    if (histories.length > 0) {
      const counts = histories.map((h) => ({
        tenant_id: h.tenantId,
        livemode: h.livemode,
        seller_id: h.sellerId,
        entries: h.entries,
      }));
      const key = ['tenant_id', 'livemode', 'seller_id'];
      const upsert = addTo(trx, 'history_counts', key, 'entries', counts).toSQL();
      writeAtCommit(trx, () => upsert);
    }
  }
}

/**
 * Inserts `rows` into `table`, or, for a key already there, adds the row's `column` to the stored one (and
 * sets `alsoSet`): one statement for the batch.
 */
function addTo(
  trx: Tx,
  table: 'accounts' | 'history_counts',
  key: string[],
  column: string,
  rows: Record<string, unknown>[],
  alsoSet: Record<string, Knex.Raw> = {},
) {
  return trx(table)
    .insert(rows)
    .onConflict(key)
    .merge({ [column]: trx.raw(`${table}.${column} + excluded.${column}`), ...alsoSet });
}

/**
 * Writes the entry and its postings in one statement (the postings' insert reads the entry's `seq` from the
 * entry's insert, a data-modifying WITH); false when the movement was booked already (no row, no postings).
 */
export async function insertEntry(trx: Tx, entry: JournalEntry): Promise<boolean> {
  const insertEntryRow = trx('journal_entries')
    .insert({
      id: newId('ldge_'),
      source_event_id: entry.sourceEventId,
      tenant_id: entry.tenantId,
      livemode: entry.livemode,
      seller_id: entry.sellerId,
      type: entry.type,
      charge_id: entry.chargeId,
      settlement_id: entry.settlementId,
      anticipation_id: entry.anticipationId,
      amount_cents: Math.abs(entry.sellerEffectCents),
      direction:
        entry.sellerEffectCents > 0 ? 'credit' : entry.sellerEffectCents < 0 ? 'debit' : null,
      created_at: entry.createdAt,
    })
    .onConflict('source_event_id')
    .ignore()
    .returning('seq')
    .toSQL();
  const postings = entry.postings;
  const insertPostings =
    postings.length === 0
      ? ''
      : `, postings_added as (
           insert into postings (entry_seq, tenant_id, livemode, account, amount_cents)
           select entry.seq, ?, ?, p.account, p.amount_cents
           from entry, (values ${postings.map(() => '(?::text, ?::bigint)').join(', ')}) as p (account, amount_cents)
         )`;
  const result = await trx.raw(
    `with entry as (${insertEntryRow.sql})${insertPostings} select seq from entry`,
    [
      ...insertEntryRow.bindings,
      ...(postings.length === 0 ? [] : [entry.tenantId, entry.livemode]),
      ...postings.flatMap((p) => [p.account, p.amountCents]),
    ],
  );
  return (result.rows as Row[]).length > 0;
}

export interface SellerBalances {
  pendingCents: number;
  availableCents: number;
  reservedCents: number;
  debtCents: number;
}

/** The seller's running balances: four rows by primary key, whatever the length of the history. */
export async function sellerBalances(
  q: Knex | Tx,
  tenantId: string,
  livemode: boolean,
  sellerId: string,
): Promise<SellerBalances> {
  const accounts = {
    pending: sellerAccount(sellerId, 'pending'),
    available: sellerAccount(sellerId, 'available'),
    reserved: sellerAccount(sellerId, 'reserved'),
    debt: sellerAccount(sellerId, 'debt'),
  };
  const rows = (await q('accounts')
    .where({ tenant_id: tenantId, livemode })
    .whereIn('account', Object.values(accounts))
    .select('account', 'balance_cents')) as Row[];
  const of = (account: string) =>
    (rows.find((r) => r.account === account)?.balance_cents ?? 0) as number;
  // The debt account holds what the seller owes as a debit (negative) balance.
  return {
    pendingCents: of(accounts.pending),
    availableCents: of(accounts.available),
    reservedCents: of(accounts.reserved),
    debtCents: -of(accounts.debt),
  };
}

export interface BalanceTransaction {
  id: string;
  type: string;
  direction: 'credit' | 'debit';
  amountCents: number;
  chargeId: string | null;
  createdAt: Date;
}

/**
 * The seller's balance transactions (entries that change what the seller has), most recent first, and
 * how many there are. One statement, so one snapshot and one round trip: the total is the seller's
 * history_counts row, and the page walks journal_history (its WHERE and ORDER BY) reading only the
 * index for the rows OFFSET skips, then fetches the page's own rows by seq.
 */
export async function history(
  q: Knex | Tx,
  tenantId: string,
  livemode: boolean,
  sellerId: string,
  page: number,
  limit: number,
): Promise<{ data: BalanceTransaction[]; total: number }> {
  const rows = (
    await q.raw(
      `with counted as (
         select coalesce((select entries from history_counts where tenant_id = :tenantId and livemode = :livemode and seller_id = :sellerId), 0) as total
       ),
       page as (
         select seq from journal_entries
         where tenant_id = :tenantId and livemode = :livemode and seller_id = :sellerId and amount_cents > 0
         order by created_at desc, seq desc
         limit :limit offset :offset
       )
       select counted.total, e.id, e.type, e.direction, e.amount_cents, e.charge_id, e.created_at
       from counted
       left join (page join journal_entries e on e.seq = page.seq) on true
       order by e.created_at desc, e.seq desc`,
      { tenantId, livemode, sellerId, limit, offset: (page - 1) * limit },
    )
  ).rows as Row[];
  return {
    // The one row of an empty page carries the total alone.
    total: (rows[0]?.total ?? 0) as number,
    data: rows
      .filter((r) => r.id !== null)
      .map((r) => ({
        id: String(r.id),
        type: String(r.type),
        direction: r.direction === 'credit' ? 'credit' : 'debit',
        amountCents: r.amount_cents as number,
        chargeId: typeof r.charge_id === 'string' ? r.charge_id : null,
        createdAt: r.created_at as Date,
      })),
  };
}
