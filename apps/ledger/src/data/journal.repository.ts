import type { Knex } from 'knex';
import { newId } from '@pgw/domain';
import { writeAtCommit, type Tx, type WriteSql } from '@pgw/platform-db';
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

/** The entries a transaction books at its commit, by source event (a movement twice in it is booked once). */
const entriesAtCommit = new WeakMap<Tx, Map<string, JournalEntry>>();

/**
 * Books the entry when the transaction commits, with every other entry of the transaction, in the one statement
 * of its deferred writes (the inbox's ids): nothing in the consumer's transaction reads the journal back. That
 * statement writes the entries not booked already (by source_event_id: the guard that still holds once the
 * inbox has forgotten an event), and for those alone their postings, the balance of each account they touch
 * (summed per account: a busy account, a hot seller's or the platform's, is written once per batch) and each
 * seller's history count. Rows that two batches share are written in key order, so they lock them in the same
 * order. `now` stamps the accounts written.
 */
export function bookAtCommit(trx: Tx, entry: JournalEntry, now: () => Date): void {
  let entries = entriesAtCommit.get(trx);
  if (entries === undefined) {
    const batch = new Map<string, JournalEntry>();
    entriesAtCommit.set(trx, batch);
    const booked = () => [...batch.values()];
    writeAtCommit(trx, () => insertEntriesSql(booked()));
    writeAtCommit(trx, () => bookedPostingsSql(booked()));
    writeAtCommit(trx, () => ({ sql: INSERT_POSTINGS, bindings: [] }));
    writeAtCommit(trx, () => ({ sql: ADD_TO_ACCOUNTS, bindings: [now().toISOString()] }));
    writeAtCommit(trx, () => ({ sql: ADD_TO_HISTORY_COUNTS, bindings: [] }));
    entries = batch;
  }
  if (!entries.has(entry.sourceEventId)) entries.set(entry.sourceEventId, entry);
}

/** An array bound as one value (PostgreSQL's array of the type its placeholder casts to); nulls allowed. */
const array = (values: unknown[]) => values as Knex.Value;

/**
 * The entries, in the order given (their seq follows it), as one insert of arrays (a fixed number of values
 * whatever the batch's size); answers the rows it inserted (`booked_entries`).
 */
function insertEntriesSql(entries: JournalEntry[]): WriteSql {
  const column = (pick: (e: JournalEntry) => unknown) => array(entries.map(pick));
  return {
    name: 'booked_entries',
    sql: `insert into journal_entries (id, source_event_id, tenant_id, livemode, seller_id, type, charge_id, settlement_id, anticipation_id, amount_cents, direction, created_at)
      select id, source_event_id, tenant_id, livemode, seller_id, type, charge_id, settlement_id, anticipation_id, amount_cents, direction, created_at
      from unnest(?::text[], ?::text[], ?::text[], ?::boolean[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::bigint[], ?::text[], ?::timestamptz[])
        with ordinality as e (id, source_event_id, tenant_id, livemode, seller_id, type, charge_id, settlement_id, anticipation_id, amount_cents, direction, created_at, n)
      order by n
      on conflict (source_event_id) do nothing
      returning seq, source_event_id, tenant_id, livemode, seller_id, amount_cents`,
    bindings: [
      column(() => newId('ldge_')),
      column((e) => e.sourceEventId),
      column((e) => e.tenantId),
      column((e) => e.livemode),
      column((e) => e.sellerId),
      column((e) => e.type),
      column((e) => e.chargeId),
      column((e) => e.settlementId),
      column((e) => e.anticipationId),
      column((e) => Math.abs(e.sellerEffectCents)),
      column((e) =>
        e.sellerEffectCents > 0 ? 'credit' : e.sellerEffectCents < 0 ? 'debit' : null,
      ),
      column((e) => e.createdAt.toISOString()),
    ],
  };
}

/** The postings of the entries just booked (`booked_postings`), with their entry's seq. */
function bookedPostingsSql(entries: JournalEntry[]): WriteSql {
  const postings = entries.flatMap((e) => e.postings.map((p) => ({ e, p })));
  return {
    name: 'booked_postings',
    sql: `select b.seq, b.tenant_id, b.livemode, p.account, p.seller_id, p.amount_cents
      from unnest(?::text[], ?::text[], ?::text[], ?::bigint[]) as p (source_event_id, account, seller_id, amount_cents)
      join booked_entries b on b.source_event_id = p.source_event_id`,
    bindings: [
      array(postings.map(({ e }) => e.sourceEventId)),
      array(postings.map(({ p }) => p.account)),
      array(postings.map(({ p }) => p.sellerId)),
      array(postings.map(({ p }) => p.amountCents)),
    ],
  };
}

const INSERT_POSTINGS = `insert into postings (entry_seq, tenant_id, livemode, account, amount_cents)
  select seq, tenant_id, livemode, account, amount_cents from booked_postings`;

const ADD_TO_ACCOUNTS = `insert into accounts (tenant_id, livemode, account, seller_id, balance_cents, updated_at)
  select tenant_id, livemode, account, min(seller_id), sum(amount_cents)::bigint, ?::timestamptz
  from booked_postings
  group by tenant_id, livemode, account
  having sum(amount_cents) <> 0
  order by tenant_id, livemode, account
  on conflict (tenant_id, livemode, account) do update
    set balance_cents = accounts.balance_cents + excluded.balance_cents, updated_at = excluded.updated_at`;

// journal_history's predicate: the entries that change what the seller has.
const ADD_TO_HISTORY_COUNTS = `insert into history_counts (tenant_id, livemode, seller_id, entries)
  select tenant_id, livemode, seller_id, count(*)
  from booked_entries
  where amount_cents > 0
  group by tenant_id, livemode, seller_id
  order by tenant_id, livemode, seller_id
  on conflict (tenant_id, livemode, seller_id) do update
    set entries = history_counts.entries + excluded.entries`;

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
