import type { Migration } from '@pgw/platform-db';
import { createCopyTable } from '@pgw/platform-directory';
import {
  createIdempotencyKeysTable,
  scopeIdempotencyKeysBySeller,
} from '@pgw/platform-idempotency';
import { SELLERS } from './data/seller.repository';

// What charges keeps, in its own schema. Every business row carries tenant_id and livemode, and every
// query filters on both. JSON values (buyer, metadata, split, stored responses) are kept as text: the
// integrator's key order survives (jsonb reorders keys), and PGlite and pg read text the same way.
// No column holds a PAN or a security code: a card charge knows only the vault's token and the
// acquirer's card reference.
export const chargesMigrations: Migration[] = [
  {
    name: '0001_charges',
    async up(trx) {
      await trx.raw(`
        create table charges (
          id text primary key,
          tenant_id text not null,
          livemode boolean not null,
          seller_id text,
          status text not null,
          amount_cents bigint not null check (amount_cents >= 1),
          currency text not null,
          payment_method text not null,
          capture_method text not null,
          installments int,
          card_token text,
          card_ref text,
          buyer_json text not null,
          metadata_json text,
          split_json text not null default '[]',
          acquirer_code text,
          acquirer_transaction_id text,
          authorization_code text,
          acquirer_return_code text,
          acquirer_return_message text,
          refused_reason text,
          pix_expires_in int,
          pix_qr_code text,
          pix_expires_at timestamptz,
          boleto_due_date text,
          boleto_barcode text,
          boleto_digitable_line text,
          outcome_known boolean not null,
          announced boolean not null default false,
          refunded_cents bigint not null default 0,
          chargeback_cents bigint not null default 0,
          status_before_chargeback text,
          authorized_at timestamptz,
          paid_at timestamptz,
          canceled_at timestamptz,
          created_at timestamptz not null,
          updated_at timestamptz not null
        )`);
      await trx.raw('create index charges_scope on charges (tenant_id, livemode, id)');
      // The recovery's work list: intents whose provider outcome is not known yet.
      await trx.raw(
        'create index charges_outcome_unknown on charges (created_at) where outcome_known = false',
      );
      await trx.raw(
        'create index charges_expiring on charges (status, payment_method, created_at)',
      );

      await trx.raw(`
        create table refunds (
          id text primary key,
          charge_id text not null references charges (id),
          tenant_id text not null,
          livemode boolean not null,
          status text not null,
          amount_cents bigint not null check (amount_cents >= 1),
          reason text,
          provider_reference text,
          failure_reason text,
          succeeded_at timestamptz,
          created_at timestamptz not null,
          updated_at timestamptz not null
        )`);
      await trx.raw('create index refunds_charge on refunds (charge_id)');
      await trx.raw(
        `create index refunds_processing on refunds (created_at) where status = 'processing'`,
      );

      await trx.raw(`
        create table chargebacks (
          seq bigserial not null,
          id text primary key,
          charge_id text not null references charges (id),
          tenant_id text not null,
          livemode boolean not null,
          seller_id text,
          status text not null,
          amount_cents bigint not null check (amount_cents >= 1),
          reason_code text,
          evidence_due_at timestamptz,
          opened_at timestamptz not null,
          resolved_at timestamptz,
          created_at timestamptz not null,
          updated_at timestamptz not null
        )`);
      await trx.raw(
        'create index chargebacks_list on chargebacks (tenant_id, livemode, opened_at desc, seq desc)',
      );

      // Idempotency keys beside the rows they protect (contract §3): written in the same transaction as
      // the business outcome they replay.
      await createIdempotencyKeysTable(trx);

      // The local copy of the directory's sellers (gateway.seller-changed.v1), for split recipients.
      await createCopyTable(trx, SELLERS, ['tenant_id text not null']);

      // One holder at a time per background job, across replicas (a lease rather than a session advisory
      // lock: the job calls the acquirer between transactions, and must hold no connection meanwhile).
      await trx.raw(
        'create table job_leases (name text primary key, holder text not null, expires_at timestamptz not null)',
      );
    },
  },
  {
    // Idempotency keys scoped by the API key's seller too, and held on a lease (contract §3).
    name: '0002_idempotency_seller_scope',
    up: scopeIdempotencyKeysBySeller,
  },
  {
    // A seller-scoped key lists its seller's chargebacks: an index that begins with the seller and gives
    // the list's order (chargebacks_list serves a tenant-wide key).
    name: '0003_chargebacks_seller_list',
    async up(trx) {
      await trx.raw(
        'create index chargebacks_seller_list on chargebacks (tenant_id, livemode, seller_id, opened_at desc, seq desc)',
      );
    },
  },
  {
    // The seller's KYC status in charges' copy of the directory, for the owner of a card charge made with a
    // tenant-wide key (its token's seller, known only once the vault answered). Null: no event since.
    name: '0004_sellers_kyc_status',
    async up(trx) {
      await trx.raw('alter table sellers add column kyc_status text');
    },
  },
  {
    // The card's brand, from the vault's answer at creation: charges.charge-paid.v2 carries it.
    name: '0005_charges_card_brand',
    async up(trx) {
      await trx.raw('alter table charges add column card_brand text');
    },
  },
  {
    // GET /charges lists a tenant's (or a seller's) charges newest first: the dashboard's charge list.
    name: '0006_charges_list',
    async up(trx) {
      await trx.raw(
        'create index charges_list on charges (tenant_id, livemode, created_at desc, id desc)',
      );
      await trx.raw(
        'create index charges_seller_list on charges (tenant_id, livemode, seller_id, created_at desc, id desc)',
      );
    },
  },
  {
    // A tenant's live rails (issue 23): which adapter moves its live card, Pix and boleto money, and the
    // name its credentials are kept under in the deployment's environment. No secret is stored here.
    name: '0007_live_rails',
    async up(trx) {
      await trx.raw(`
        create table live_rails (
          tenant_id text primary key,
          card_provider text,
          card_credentials text,
          pix_provider text,
          pix_credentials text,
          boleto_provider text,
          boleto_credentials text,
          updated_at timestamptz not null,
          check ((card_provider is null) = (card_credentials is null)),
          check ((pix_provider is null) = (pix_credentials is null)),
          check ((boleto_provider is null) = (boleto_credentials is null))
        )
      `);
    },
  },
  {
    // A PSP's payment notification names the Pix by txid: the live Pix it paid is found by it.
    name: '0008_charges_pix_txid',
    async up(trx) {
      await trx.raw(
        `create index charges_pix_txid on charges (acquirer_transaction_id) where payment_method = 'pix'`,
      );
    },
  },
  {
    // The rail that served each charge (issue 23): a tenant whose rails change while charges are in flight
    // must not send their capture or refund to another acquirer. Older rows stay null and follow the
    // tenant's rails, as before.
    name: '0009_charges_acquirer_rail',
    async up(trx) {
      await trx.raw('alter table charges add column acquirer_rail text');
      // The boleto exchange asks which bank accounts pending live boletos wait on.
      await trx.raw(
        `create index charges_pending_boleto_rail on charges (acquirer_rail) where payment_method = 'boleto' and status = 'pending' and livemode`,
      );
    },
  },
  {
    // The CNAB 240 state of each bank account a boleto rail names (issue 23), shared by every replica:
    // one row per account, locked by each update (data/cnab240-state.repository.ts). The JSON is the
    // adapter's own format (`Cnab240State`, versioned inside).
    name: '0010_cnab240_states',
    async up(trx) {
      await trx.raw(
        'create table cnab240_states (account text primary key, state text not null, updated_at timestamptz not null)',
      );
    },
  },
  {
    // A charge's history (issue 22: GET /charges/{id}/events): each event the charge, its refunds and its
    // chargebacks announced, written with its outbox row (operations/announce.ts), since the outbox forgets
    // sent rows after a week. Charges made before this migration list only what happened to them after it.
    name: '0011_charge_events',
    async up(trx) {
      await trx.raw(`
        create table charge_events (
          seq bigserial not null,
          id text primary key,
          charge_id text not null references charges (id),
          tenant_id text not null,
          livemode boolean not null,
          type text not null,
          charge_status text not null,
          refund_id text,
          chargeback_id text,
          amount_cents bigint not null,
          created_at timestamptz not null
        )`);
      await trx.raw(
        'create index charge_events_of_charge on charge_events (charge_id, created_at desc, seq desc)',
      );
      // GET /charges/{id}/refunds lists a charge's refunds newest first (refunds_charge finds them unordered).
      await trx.raw(
        'create index refunds_of_charge on refunds (charge_id, created_at desc, id desc)',
      );
    },
  },
];
