import type { Migration } from '@pgw/platform-db';
import { createCopyTable } from '@pgw/platform-directory';
import { PRICING_PLANS, SELLERS } from './data/directory.repository';

// One statement per trx.raw call (the embedded database takes one at a time). Money is bigint cents;
// calendar dates are 'YYYY-MM-DD' text, so that no driver moves them across a time zone.
const DATE = `text not null check (%s ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$')`;
const date = (column: string) => `${column} ${DATE.replace('%s', column)}`;

export const receivablesMigrations: Migration[] = [
  {
    name: '0001_receivables',
    async up(trx) {
      // Local copies of the gateway's directory: the highest version wins.
      const asShipped = { updatedAtDefaultNow: true };
      await createCopyTable(
        trx,
        SELLERS,
        [
          'tenant_id text not null',
          'settlement_delay_days int not null',
          'mdr_bps jsonb not null',
          'pricing_plan_id text',
        ],
        asShipped,
      );
      await createCopyTable(
        trx,
        PRICING_PLANS,
        [
          'tenant_id text not null',
          'settlement_delay_days int not null',
          'mdr_bps jsonb not null',
          'is_default boolean not null',
        ],
        asShipped,
      );
      await trx.raw(
        'create index pricing_plans_default on pricing_plans (tenant_id) where is_default',
      );

      // The charges we have heard of. A charge waits in awaiting_pricing until the directory copy can
      // price it; unassigned charges have no seller to pay.
      await trx.raw(`
        create table charges (
          charge_id text primary key,
          tenant_id text not null,
          livemode boolean not null,
          seller_id text,
          payment_method text not null,
          amount_cents bigint not null check (amount_cents > 0),
          installments int not null,
          paid_at timestamptz not null,
          split jsonb not null,
          state text not null check (state in ('awaiting_pricing', 'scheduled', 'unassigned')),
          pricing_plan_id text,
          mdr_bps int,
          settlement_delay_days int,
          created_at timestamptz not null,
          updated_at timestamptz not null
        )`);
      await trx.raw(
        `create index charges_awaiting on charges (tenant_id) where state = 'awaiting_pricing'`,
      );

      // Refunds and chargeback steps of a charge, each applied once, in the order they happened.
      await trx.raw(`
        create table adjustments (
          seq bigserial primary key,
          adjustment_id text not null unique,
          tenant_id text not null,
          livemode boolean not null,
          charge_id text not null,
          kind text not null check (kind in ('refund', 'chargeback_opened', 'chargeback_won', 'chargeback_lost')),
          source_id text not null,
          amount_cents bigint not null check (amount_cents >= 0),
          occurred_at timestamptz not null,
          applied_at timestamptz
        )`);
      await trx.raw('create index adjustments_charge on adjustments (charge_id)');

      await trx.raw(`
        create table receivables (
          seq bigserial unique,
          id text primary key,
          tenant_id text not null,
          livemode boolean not null,
          charge_id text not null,
          seller_id text not null,
          payment_method text not null,
          installment int not null,
          installments int not null,
          gross_amount_cents bigint not null check (gross_amount_cents >= 0),
          fee_amount_cents bigint not null check (fee_amount_cents >= 0),
          net_amount_cents bigint not null check (net_amount_cents >= 0),
          mdr_bps int not null,
          debited_gross_cents bigint not null default 0 check (debited_gross_cents >= 0 and debited_gross_cents <= gross_amount_cents),
          ${date('due_date')},
          ${date('original_due_date')},
          status text not null check (status in ('pending', 'available', 'paid', 'canceled', 'anticipated')),
          anticipation_id text,
          settlement_id text,
          version int not null,
          created_at timestamptz not null,
          updated_at timestamptz not null
        )`);
      await trx.raw(
        'create index receivables_list on receivables (tenant_id, livemode, created_at desc, seq desc)',
      );
      await trx.raw('create index receivables_charge on receivables (charge_id)');
      await trx.raw(
        `create index receivables_due on receivables (due_date) where status = 'pending'`,
      );
      await trx.raw(
        `create index receivables_available on receivables (tenant_id, livemode, seller_id) where status = 'available' and settlement_id is null`,
      );
      await trx.raw(
        'create index receivables_settlement on receivables (settlement_id) where settlement_id is not null',
      );

      // Money taken from a seller's balance for a receivable (signed: a chargeback won gives it back).
      await trx.raw(`
        create table debits (
          seq bigserial primary key,
          tenant_id text not null,
          livemode boolean not null,
          seller_id text not null,
          charge_id text not null,
          receivable_id text not null references receivables (id),
          adjustment_id text not null,
          gross_cents bigint not null,
          fee_cents bigint not null,
          net_cents bigint not null,
          created_at timestamptz not null
        )`);
      await trx.raw('create index debits_adjustment on debits (adjustment_id)');
      await trx.raw('create index debits_charge on debits (charge_id)');

      // A seller's running counters (domain/books.ts). Every change to a seller's money locks this row
      // first, so that two replicas never interleave their arithmetic on one seller.
      await trx.raw(`
        create table seller_books (
          tenant_id text not null,
          livemode boolean not null,
          seller_id text not null,
          pending_cents bigint not null default 0,
          receivables_available_cents bigint not null default 0,
          reserved_cents bigint not null default 0,
          debt_cents bigint not null default 0,
          updated_at timestamptz not null default now(),
          primary key (tenant_id, livemode, seller_id)
        )`);

      await trx.raw(`
        create table settlements (
          seq bigserial unique,
          id text primary key,
          tenant_id text not null,
          livemode boolean not null,
          seller_id text not null,
          status text not null check (status in ('pending', 'processing', 'paid', 'failed', 'canceled')),
          amount_cents bigint not null check (amount_cents >= 0),
          receivables_net_cents bigint not null,
          debt_cents bigint not null,
          receivable_count int not null,
          ${date('settlement_date')},
          paid_at timestamptz,
          version int not null,
          created_at timestamptz not null,
          updated_at timestamptz not null
        )`);
      await trx.raw(
        'create index settlements_list on settlements (tenant_id, livemode, created_at desc, seq desc)',
      );
      await trx.raw(
        `create index settlements_in_flight on settlements (status) where status in ('pending', 'processing')`,
      );
    },
  },
  {
    // A seller-scoped key lists its seller's receivables and settlements: indexes that begin with the
    // seller and give the lists' order (receivables_list and settlements_list serve a tenant-wide key).
    name: '0002_seller_lists',
    async up(trx) {
      await trx.raw(
        'create index receivables_seller_list on receivables (tenant_id, livemode, seller_id, created_at desc, seq desc)',
      );
      await trx.raw(
        'create index settlements_seller_list on settlements (tenant_id, livemode, seller_id, created_at desc, seq desc)',
      );
    },
  },
];
