import type { Migration } from '@pgw/platform-db';

// The gateway's directory: who the integrators are (tenants), whom they sell for (sellers), on what
// commercial terms (pricing plans), with which credentials (API keys) and where their events go (webhook
// endpoints). Other services never read these tables: they keep copies from the directory events.
// One SQL statement per `trx.raw` call: the embedded database takes one at a time.
export const gatewayMigrations: Migration[] = [
  {
    name: '0001_directory',
    async up(trx) {
      await trx.raw(`
        create table tenants (
          id text primary key,
          name text not null,
          treasury_available_cash_cents bigint not null check (treasury_available_cash_cents >= 0),
          version bigint not null,
          created_at timestamptz not null,
          updated_at timestamptz not null
        )`);
      await trx.raw(`
        create table pricing_plans (
          id text primary key,
          tenant_id text not null references tenants (id),
          name text not null,
          fee_bps_per_month integer not null check (fee_bps_per_month >= 0),
          settlement_delay_days integer not null check (settlement_delay_days >= 0),
          mdr_bps jsonb not null,
          is_default boolean not null,
          version bigint not null,
          created_at timestamptz not null,
          updated_at timestamptz not null
        )`);
      // At most one default plan per tenant, enforced by the database rather than by care.
      await trx.raw(
        'create unique index pricing_plans_one_default on pricing_plans (tenant_id) where is_default',
      );
      await trx.raw(`
        create table sellers (
          id text primary key,
          tenant_id text not null references tenants (id),
          name text not null,
          document text not null,
          document_type text not null check (document_type in ('cpf', 'cnpj')),
          kyc_status text not null check (kyc_status in ('pending', 'approved', 'rejected')),
          anticipation_limit_cents bigint not null check (anticipation_limit_cents >= 0),
          fee_bps_per_month integer not null check (fee_bps_per_month >= 0),
          settlement_delay_days integer not null check (settlement_delay_days >= 0),
          mdr_bps jsonb not null,
          pricing_plan_id text references pricing_plans (id),
          version bigint not null,
          created_at timestamptz not null,
          updated_at timestamptz not null
        )`);
      await trx.raw('create index sellers_tenant on sellers (tenant_id)');
      // The secret itself is never stored: only its SHA-256, which is also the lookup key.
      await trx.raw(`
        create table api_keys (
          id text primary key,
          tenant_id text not null references tenants (id),
          seller_id text references sellers (id),
          livemode boolean not null,
          secret_sha256 text not null unique,
          permissions jsonb not null,
          rate_limit_per_second integer check (rate_limit_per_second > 0),
          created_at timestamptz not null,
          revoked_at timestamptz
        )`);
      await trx.raw(`
        create table webhook_endpoints (
          id text primary key,
          tenant_id text not null references tenants (id),
          url text not null,
          events jsonb not null,
          secret text not null,
          livemode boolean not null,
          version bigint not null,
          created_at timestamptz not null,
          updated_at timestamptz not null
        )`);
    },
  },
  {
    // The operator's lists (GET /admin/v1/tenants and a tenant's sellers, plans, keys and endpoints) read
    // newest first, ties by id: each index serves one list's filter and order, so a page is read without a sort.
    name: '0002_operator_lists',
    async up(trx) {
      await trx.raw('create index tenants_newest on tenants (created_at desc, id desc)');
      await trx.raw(
        'create index sellers_tenant_newest on sellers (tenant_id, created_at desc, id desc)',
      );
      await trx.raw(
        'create index pricing_plans_tenant_newest on pricing_plans (tenant_id, created_at desc, id desc)',
      );
      await trx.raw(
        'create index api_keys_tenant_newest on api_keys (tenant_id, created_at desc, id desc)',
      );
      await trx.raw(
        'create index webhook_endpoints_tenant_newest on webhook_endpoints (tenant_id, created_at desc, id desc)',
      );
    },
  },
  {
    // The end of a key's secret, shown in the operator's lists; keys made before stay without one.
    name: '0003_api_key_secret_last4',
    async up(trx) {
      await trx.raw(
        'alter table api_keys add column secret_last4 text check (char_length(secret_last4) = 4)',
      );
    },
  },
];
