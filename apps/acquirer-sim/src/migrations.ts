import type { Migration } from '@pgw/platform-db';

// The simulator's own schema. It stands for the outside world, so it keeps what a real card store keeps
// (the PAN, in the clear here; a real one keeps it in its PCI zone). It never stores a CVV.
// Every table has a unique `reference`: the caller's idempotency reference.
export const simMigrations: Migration[] = [
  {
    name: '0001_acquirer_sim',
    async up(trx) {
      await trx.raw(`
        create table cards (
          card_ref text primary key,
          reference text not null unique,
          pan text not null,
          brand text not null,
          last4 text not null,
          exp_month int not null,
          exp_year int not null,
          holder_name text not null,
          created_at timestamptz not null
        )`);
      await trx.raw(`
        create table authorizations (
          transaction_id text primary key,
          reference text not null unique,
          card_ref text not null references cards (card_ref),
          amount_cents bigint not null,
          installments int not null,
          capture_requested boolean not null,
          status text not null,
          captured_amount_cents bigint not null default 0,
          refunded_amount_cents bigint not null default 0,
          authorization_code text,
          return_code text,
          return_message text,
          refused_reason text,
          created_at timestamptz not null,
          captured_at timestamptz,
          canceled_at timestamptz
        )`);
      await trx.raw(`
        create table refunds (
          refund_id text primary key,
          reference text not null unique,
          transaction_id text not null references authorizations (transaction_id),
          amount_cents bigint not null,
          status text not null,
          failure_reason text,
          created_at timestamptz not null
        )`);
      await trx.raw(`
        create table pix_charges (
          txid text primary key,
          reference text not null unique,
          amount_cents bigint not null,
          expires_in int not null,
          qr_code text not null,
          status text not null,
          expires_at timestamptz not null,
          paid_at timestamptz,
          created_at timestamptz not null
        )`);
      await trx.raw('create sequence boleto_nosso_numero');
      await trx.raw(`
        create table boletos (
          reference text primary key,
          amount_cents bigint not null,
          due_date text not null,
          barcode text not null unique,
          digitable_line text not null,
          status text not null,
          paid_at timestamptz,
          created_at timestamptz not null
        )`);
      await trx.raw(`create table provider_mode (id int primary key check (id = 1), mode text not null, updated_at timestamptz not null default now())`);
      await trx.raw(`insert into provider_mode (id, mode) values (1, 'normal')`);
    },
  },
];
