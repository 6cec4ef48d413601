import type { Migration } from '@pgw/platform-db';

// One statement per trx.raw call (the embedded database takes one at a time).
export const ledgerMigrations: Migration[] = [
  {
    name: '0001_ledger',
    async up(trx) {
      // Running balances, updated in the transaction that writes the postings: a read never sums history.
      await trx.raw(`
        create table accounts (
          tenant_id text not null,
          livemode boolean not null,
          account text not null,
          seller_id text,
          balance_cents bigint not null default 0,
          updated_at timestamptz not null default now(),
          primary key (tenant_id, livemode, account)
        )`);
      // One entry per balance movement; source_event_id makes a redelivered movement a no-op even past the inbox.
      await trx.raw(`
        create table journal_entries (
          seq bigserial primary key,
          id text not null unique,
          source_event_id text not null unique,
          tenant_id text not null,
          livemode boolean not null,
          seller_id text not null,
          type text not null,
          charge_id text,
          settlement_id text,
          anticipation_id text,
          amount_cents bigint not null check (amount_cents >= 0),
          direction text check (direction in ('credit', 'debit')),
          created_at timestamptz not null,
          recorded_at timestamptz not null default now()
        )`);
      await trx.raw(
        `create index journal_history on journal_entries (tenant_id, livemode, seller_id, created_at desc, seq desc) where amount_cents > 0`,
      );
      await trx.raw(`
        create table postings (
          entry_seq bigint not null references journal_entries (seq),
          tenant_id text not null,
          livemode boolean not null,
          account text not null,
          amount_cents bigint not null check (amount_cents <> 0),
          primary key (entry_seq, account)
        )`);
      await trx.raw('create index postings_account on postings (tenant_id, livemode, account)');
    },
  },
  {
    name: '0002_history_counts',
    async up(trx) {
      // The length of each seller's balance history (entries with amount_cents > 0, as journal_history
      // lists them), kept in the transaction that writes the entries, so that a history page's total is
      // one row, not a count over every entry. Entries written by the ledger from now on count
      // themselves (bookAtCommit); SHARE blocks them while the backfill counts what is already there.
      await trx.raw(`
        create table history_counts (
          tenant_id text not null,
          livemode boolean not null,
          seller_id text not null,
          entries bigint not null check (entries >= 0),
          primary key (tenant_id, livemode, seller_id)
        )`);
      await trx.raw('lock table journal_entries in share mode');
      await trx.raw(`
        insert into history_counts (tenant_id, livemode, seller_id, entries)
        select tenant_id, livemode, seller_id, count(*) from journal_entries where amount_cents > 0 group by tenant_id, livemode, seller_id`);
    },
  },
];
