import type { Migration } from '@pgw/platform-db';
import { createCopyTable } from '@pgw/platform-directory';
import {
  createIdempotencyKeysTable,
  scopeIdempotencyKeysBySeller,
} from '@pgw/platform-idempotency';
import { PRICING_PLANS, SELLERS, TENANTS } from './data/directory.repository';

// One statement per trx.raw call (the embedded database takes one at a time). Money is bigint cents;
// calendar dates are 'YYYY-MM-DD' text, so that no driver moves them across a time zone (and text order
// is date order).
const date = (column: string) =>
  `${column} text not null check (${column} ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$')`;

export const anticipationMigrations: Migration[] = [
  {
    name: '0001_anticipation',
    async up(trx) {
      // Local copies of the gateway's directory (highest version wins): what prices an anticipation and
      // what limits it.
      const asShipped = { updatedAtDefaultNow: true };
      await createCopyTable(
        trx,
        TENANTS,
        [
          'treasury_available_cash_cents bigint not null check (treasury_available_cash_cents >= 0)',
        ],
        asShipped,
      );
      await createCopyTable(
        trx,
        SELLERS,
        [
          'tenant_id text not null',
          'anticipation_limit_cents bigint not null check (anticipation_limit_cents >= 0)',
          'fee_bps_per_month int not null check (fee_bps_per_month >= 0)',
          'settlement_delay_days int not null check (settlement_delay_days >= 0)',
          'pricing_plan_id text',
        ],
        asShipped,
      );
      await createCopyTable(
        trx,
        PRICING_PLANS,
        [
          'tenant_id text not null',
          'fee_bps_per_month int not null check (fee_bps_per_month >= 0)',
          'settlement_delay_days int not null check (settlement_delay_days >= 0)',
          'is_default boolean not null',
        ],
        asShipped,
      );
      await trx.raw(
        'create index pricing_plans_default on pricing_plans (tenant_id) where is_default',
      );

      // The local copy of the receivables service's receivables (receivable-changed, highest version
      // wins). anticipated_by is ours: set in the execution's transaction, never cleared by the copy, so
      // that a receivable is out of every later anticipation at once, before receivables hears of it.
      await trx.raw(`
        create table receivables (
          receivable_id text primary key,
          tenant_id text not null,
          livemode boolean not null,
          seller_id text not null,
          charge_id text not null,
          status text not null,
          gross_amount_cents bigint not null,
          net_amount_cents bigint not null check (net_amount_cents >= 0),
          debited_gross_cents bigint not null,
          ${date('due_date')},
          anticipation_id text,
          anticipated_by text,
          version bigint not null,
          updated_at timestamptz not null default now()
        )`);
      // Exactly the eligible rows of contract §4 but for the date, in the order the simulation lists them.
      await trx.raw(`
        create index receivables_eligible on receivables (tenant_id, livemode, seller_id, due_date, receivable_id)
          where status = 'pending' and anticipation_id is null and anticipated_by is null`);

      // Cash paid out of each tenant's treasury by executions, per environment: available cash is the
      // directory's figure minus this. The row is also the lock that serializes a tenant's executions.
      await trx.raw(`
        create table treasury (
          tenant_id text not null,
          livemode boolean not null,
          cash_out_cents bigint not null default 0 check (cash_out_cents >= 0),
          updated_at timestamptz not null default now(),
          primary key (tenant_id, livemode)
        )`);

      await trx.raw(`
        create table anticipations (
          seq bigserial unique,
          id text primary key,
          tenant_id text not null,
          livemode boolean not null,
          seller_id text not null,
          status text not null check (status in ('succeeded')),
          gross_amount_cents bigint not null check (gross_amount_cents >= 0),
          fee_amount_cents bigint not null check (fee_amount_cents >= 0),
          net_amount_cents bigint not null check (net_amount_cents >= 0),
          fee_bps_per_month int not null,
          settlement_delay_days int not null,
          pricing_plan_id text,
          ${date('executed_on')},
          created_at timestamptz not null,
          check (net_amount_cents + fee_amount_cents = gross_amount_cents)
        )`);
      await trx.raw(
        'create index anticipations_list on anticipations (tenant_id, livemode, seller_id, created_at desc, seq desc)',
      );

      // One row per receivable ever anticipated: the primary key on receivable_id is the last word on
      // "no receivable is anticipated twice", whatever the locks above it do.
      await trx.raw(`
        create table anticipation_items (
          receivable_id text primary key,
          anticipation_id text not null references anticipations (id),
          position int not null,
          tenant_id text not null,
          livemode boolean not null,
          seller_id text not null,
          charge_id text not null,
          ${date('due_date')},
          receivable_version bigint not null,
          days_anticipated int not null check (days_anticipated >= 1),
          gross_amount_cents bigint not null check (gross_amount_cents >= 0),
          fee_amount_cents bigint not null check (fee_amount_cents >= 0),
          net_amount_cents bigint not null check (net_amount_cents >= 0),
          check (net_amount_cents + fee_amount_cents = gross_amount_cents),
          unique (anticipation_id, position)
        )`);
      // Exposure: the gross of anticipated receivables whose original due date has not come.
      await trx.raw(
        'create index anticipation_items_exposure on anticipation_items (tenant_id, livemode, seller_id, due_date)',
      );

      // Idempotency-Key (contract §3), beside the anticipation it protects.
      await createIdempotencyKeysTable(trx);
    },
  },
  {
    // Idempotency keys scoped by the API key's seller too, and held on a lease (contract §3).
    name: '0002_idempotency_seller_scope',
    up: scopeIdempotencyKeysBySeller,
  },
];
